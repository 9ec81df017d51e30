#include "tests/kdtree/triangle/kdtree_test_helpers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/backend.h"
#include "core/rng.h"
#include "kdtree/triangle/exact_sah_builder.h"
#include "kdtree/triangle/trace_rays.h"
#include "kdtree/triangle/tree_validator.h"
#include "renderer/bench/generated_meshes.h"
#include "renderer/bench/ray_sets.h"
#include "renderer/bench/scene_triangles.h"
#include "tests/kdtree/triangle/traversal_walks.h"

#include "kdtree/triangle/bfs_builder.h"

namespace caustica::testing {
namespace {

Aabb BoundsOf(const std::vector<Triangle>& triangles) {
    Aabb b;
    for (const Triangle& t : triangles) b.Extend(t.Bounds());
    return b;
}

Vec3 Corner(const Triangle& t, int k) { return k == 0 ? t.v0 : (k == 1 ? t.v1 : t.v2); }

template <class T>
void Append(std::vector<T>& out, const std::vector<T>& more) { out.insert(out.end(), more.begin(), more.end()); }

// A point on a sphere around the box, outside it.
Vec3 OutsidePoint(const Aabb& box, Rng& rng) {
    const float z = 2.0f * rng.NextFloat() - 1.0f, phi = 6.2831853f * rng.NextFloat();
    const float r = std::sqrt(std::max(0.0f, 1.0f - z * z));
    const float radius = 0.75f * Length(box.Extent()) + 1.0f;
    return box.Center() + Vec3(r * std::cos(phi), r * std::sin(phi), z) * radius;
}

}  // namespace

std::vector<Triangle> RandomTriangles(size_t count, uint64_t seed, float extent, float size) {
    std::vector<Triangle> out(count);
    for (size_t i = 0; i < count; ++i) {
        Rng rng(seed, 0, 7, i);
        const Vec3 c(extent * rng.NextFloat(), extent * rng.NextFloat(), extent * rng.NextFloat());
        const auto corner = [&] {
            return c + Vec3(rng.NextFloat() - 0.5f, rng.NextFloat() - 0.5f, rng.NextFloat() - 0.5f) * size;
        };
        out[i] = {corner(), corner(), corner()};
    }
    return out;
}

std::vector<NamedScene> GeneratedScenes() {
    std::vector<NamedScene> scenes;
    scenes.push_back({"random_triangles", RandomTriangles(3000, 11, 10.0f, 1.0f)});
    // Spheres and boxes that touch each other and share box edges (two boxes side by side).
    std::vector<Triangle> mixed = TessellatedSphere(Vec3(0.0f), 1.0f, 12, 24);
    Append(mixed, TessellatedSphere(Vec3(2.0f, 0.0f, 0.0f), 1.0f, 9, 17));
    Append(mixed, TessellatedBox(Aabb(Vec3(-1.0f, 1.0f, -1.0f), Vec3(1.0f, 3.0f, 1.0f)), 4));
    Append(mixed, TessellatedBox(Aabb(Vec3(1.0f, 1.0f, -1.0f), Vec3(3.0f, 3.0f, 1.0f)), 3));
    Append(mixed, TessellatedTorus(Vec3(0.0f, -3.0f, 0.0f), 1.0f, 0.4f, 20, 10));
    scenes.push_back({"spheres_boxes_torus", std::move(mixed)});
    // Two flat grids: one in a plane, one across it (axis-aligned planar triangles).
    std::vector<Triangle> grids = FlatGrid(-2.0f, 2.0f, 0.0f, 24);
    for (const Triangle& t : FlatGrid(-1.0f, 1.0f, 0.5f, 10))
        grids.push_back({Vec3(t.v0.x, t.v0.z, t.v0.y), Vec3(t.v1.x, t.v1.z, t.v1.y), Vec3(t.v2.x, t.v2.z, t.v2.y)});
    scenes.push_back({"grids", std::move(grids)});
    scenes.push_back({"instanced", InstancedMeshScene(20000, 5)});
    return scenes;
}

std::vector<std::string> ModelFiles() {
    return {"stanford-bunny.obj", "nefertiti.obj", "ogre.obj", "teapot.obj", "sponza-33k.obj"};
}

std::vector<NamedScene> LoadModels(const std::string& models_dir, const std::vector<std::string>& files) {
    std::vector<NamedScene> meshes;
    for (const std::string& file : files) {
        const std::string path = models_dir + "/" + file;
        if (std::filesystem::exists(path))
            meshes.push_back({file, LoadTrianglesForBench(path)});
        else
            ADD_FAILURE() << path << " is missing";
    }
    return meshes;
}

std::vector<BuilderCase> CpuBuilders() {
    std::vector<BuilderCase> cases;
    cases.push_back({"exact", [](Span<const Triangle> triangles, const SahParams& params, SahTree& out) {
                         BuildExactSahTree(triangles, params, out);
                     }});
    cases.push_back({"bfs_cpu", [](Span<const Triangle> triangles, const SahParams& params, SahTree& out) {
                         const Backend cpu = Backend::Cpu();
                         BfsSahBuilder(cpu, params).Build(triangles, out);
                     }});
    return cases;
}

std::vector<Ray> MixedRays(const std::vector<Triangle>& triangles, size_t per_kind, uint64_t seed) {
    const Aabb box = BoundsOf(triangles);
    std::vector<Ray> rays;
    const int side = std::max(1, int(std::sqrt(double(per_kind))));
    Append(rays, CameraRays(box, side, side));
    Append(rays, RandomRays(box, per_kind, seed));
    if (triangles.empty()) return rays;
    const float scale = box.Empty() ? 1.0f : std::max(MaxComponent(box.Extent()), 1e-3f);
    for (size_t i = 0; i < per_kind; ++i) {
        Rng rng(seed, 0, 2, i);
        const Triangle& t = triangles[rng.NextU32() % triangles.size()];
        const Vec3 v = Corner(t, int(rng.NextU32() % 3));
        const Vec3 w = Corner(t, int(rng.NextU32() % 3));
        // Along an axis: half exactly through a vertex (the ray then lies in split planes through
        // that vertex), half from random points.
        const int axis = int(rng.NextU32() % 3);
        Vec3 d(0.0f);
        d[axis] = (rng.NextU32() & 1) ? 1.0f : -1.0f;
        const Vec3 from = (i & 1) ? v - d * (2.0f * scale) : box.lo + box.Extent() * Vec3(rng.NextFloat(), rng.NextFloat(), rng.NextFloat());
        rays.emplace_back(from, d);
        // Exactly at a vertex, and at an edge midpoint, from outside.
        const Vec3 o = OutsidePoint(box, rng);
        rays.emplace_back(o, v - o);
        rays.emplace_back(o, (v + w) * 0.5f - o);
    }
    // From points on the triangles in random directions, just off the surface.
    Append(rays, SurfaceRays(triangles, per_kind, seed));
    return rays;
}

std::vector<Ray> RaysFromInsideThroughVerticesAndEdges(const std::vector<Triangle>& closed_mesh, Vec3 inside) {
    std::vector<Ray> rays;
    for (const Triangle& t : closed_mesh)
        for (int k = 0; k < 3; ++k) {
            const Vec3 a = Corner(t, k), b = Corner(t, (k + 1) % 3);
            rays.emplace_back(inside, a - inside);
            rays.emplace_back(inside, (a + b) * 0.5f - inside);
        }
    return rays;
}

std::vector<Ray> SplitPlaneRays(const SahTree& tree, size_t count, uint64_t seed) {
    const std::vector<KdNode> nodes = tree.nodes.Download();
    const Aabb box = tree.bounds;
    std::vector<Ray> rays;
    if (box.Empty()) return rays;
    const float scale = std::max(MaxComponent(box.Extent()), 1e-3f);
    std::vector<size_t> interior;
    for (size_t i = 0; i < nodes.size(); ++i)
        if (!nodes[i].IsLeaf()) interior.push_back(i);
    const size_t stride = std::max<size_t>(1, interior.size() / std::max<size_t>(1, count));
    for (size_t k = 0; k < interior.size(); k += stride) {
        const size_t i = interior[k];
        Rng rng(seed, 0, 3, i);
        const int axis = nodes[i].Axis(), u = (axis + 1) % 3, v = (axis + 2) % 3;
        Vec3 o = box.lo + box.Extent() * Vec3(rng.NextFloat(), rng.NextFloat(), rng.NextFloat());
        o[axis] = nodes[i].split;
        const float a = 6.2831853f * rng.NextFloat();
        Vec3 in_plane(0.0f), along_u(0.0f), along_v(0.0f), across(0.0f);
        in_plane[u] = std::cos(a), in_plane[v] = std::sin(a);
        along_u[u] = (rng.NextU32() & 1) ? 1.0f : -1.0f;
        along_v[v] = (rng.NextU32() & 1) ? 1.0f : -1.0f;
        across = in_plane * 0.6f;
        across[axis] = (rng.NextU32() & 1) ? 0.8f : -0.8f;
        for (const Vec3 d : {in_plane, along_u, along_v, across}) rays.emplace_back(o, d);
        // From outside the box, in the plane, toward the box's middle.
        Vec3 target = box.Center();
        target[axis] = nodes[i].split;
        Vec3 from = target - in_plane * (2.0f * scale);
        from[axis] = nodes[i].split;
        rays.emplace_back(from, target - from);
    }
    return rays;
}

CombScene DeepestComb() {
    CombScene comb;
    const int levels = kMaxTraversalDepth;
    // Preorder: splits 0 .. levels - 1 (the left child of each is the next), then the leaf [0, 1]
    // (left of the last split) and the leaves [1, 2], ..., [levels, levels + 1] (the right
    // children, deepest first). Split i at x = levels - i has the right child 2 * levels - i.
    std::vector<KdNode> nodes;
    for (int i = 0; i < levels; ++i) nodes.push_back(KdNode::Interior(0, float(levels - i), uint32_t(2 * levels - i)));
    comb.triangles = {{Vec3(0.3f, -1, -1), Vec3(0.3f, 3, -1), Vec3(0.3f, -1, 3)},
                      {Vec3(levels + 0.95f, -1, -1), Vec3(levels + 0.95f, 3, -1), Vec3(levels + 0.95f, -1, 3)}};
    std::vector<uint32_t> indices = {0, 1};
    nodes.push_back(KdNode::Leaf(0, 1));                    // [0, 1]: the triangle at 0.3
    for (int k = 1; k < levels; ++k) nodes.push_back(KdNode::Leaf(0, 0));  // [k, k + 1]: empty
    nodes.push_back(KdNode::Leaf(1, 1));                    // [levels, levels + 1]: the triangle at levels + 0.95
    comb.tree.nodes.Upload(Span<const KdNode>(nodes));
    comb.tree.indices.Upload(Span<const uint32_t>(indices));
    comb.tree.bounds = Aabb(Vec3(0, -1, -1), Vec3(float(levels + 1), 1, 1));
    comb.tree.max_depth = levels;
    for (const float y : {0.1f, -0.5f, 0.7f}) {
        comb.rays.emplace_back(Vec3(0.5f, y, 0.2f), Vec3(1, 0, 0));                     // through all, to the far end
        comb.rays.emplace_back(Vec3(levels + 0.9f, y, -0.3f), Vec3(-1, 0, 0));          // back to the start
        comb.rays.emplace_back(Vec3(-3.0f, y, 0.4f), Vec3(1, 0.001f, 0));               // from outside
        comb.rays.emplace_back(Vec3(0.5f, y, 0.2f), Vec3(1, 0, 0), 0.0f, levels - 0.5f);  // stops before the end
    }
    return comb;
}

size_t ExpectSameClosestHits(const std::vector<Hit>& hits, const std::vector<Hit>& expected,
                             const std::vector<Ray>& rays, const std::string& what) {
    size_t mismatches = 0;
    for (size_t i = 0; i < rays.size(); ++i) {
        const Hit& a = hits[i];
        const Hit& b = expected[i];
        const bool same = a.triangle == b.triangle && (!b.Valid() || (a.t == b.t && a.u == b.u && a.v == b.v));
        if (!same && mismatches++ < 5)
            ADD_FAILURE() << what << ": ray " << i << " (origin " << rays[i].origin.x << " " << rays[i].origin.y << " "
                          << rays[i].origin.z << ", direction " << rays[i].direction.x << " " << rays[i].direction.y
                          << " " << rays[i].direction.z << "): triangle " << a.triangle << " at t=" << a.t
                          << ", expected triangle " << b.triangle << " at t=" << b.t;
    }
    EXPECT_EQ(mismatches, 0u) << what << ": closest-hit mismatches out of " << rays.size() << " rays";
    return mismatches;
}

size_t ExpectMatchesBruteForce(const SahTree& tree, const std::vector<Triangle>& triangles,
                               const std::vector<Ray>& rays, const std::string& what) {
    const Backend cpu = Backend::Cpu();
    const Span<const Triangle> tris(triangles);
    std::vector<Hit> tree_hits(rays.size()), brute_hits(rays.size());
    TraceClosestHits(cpu, tree.View(), tris, Span<const Ray>(rays), Span<Hit>(tree_hits));
    BruteForceClosestHits(cpu, tris, Span<const Ray>(rays), Span<Hit>(brute_hits));
    ExpectSameClosestHits(tree_hits, brute_hits, rays, what + " (tree vs brute force)");
    size_t hit_count = 0;
    for (const Hit& h : brute_hits) hit_count += h.Valid();

    const std::vector<Ray> shadow = ShadowRays(rays, brute_hits, PointLightFor(tree.bounds));
    std::vector<uint8_t> tree_occ(shadow.size()), brute_occ(shadow.size());
    TraceOcclusion(cpu, tree.View(), tris, Span<const Ray>(shadow), Span<uint8_t>(tree_occ));
    BruteForceOcclusion(cpu, tris, Span<const Ray>(shadow), Span<uint8_t>(brute_occ));
    size_t occ_mismatches = 0;
    for (size_t i = 0; i < shadow.size(); ++i) occ_mismatches += tree_occ[i] != brute_occ[i];
    EXPECT_EQ(occ_mismatches, 0u) << what << ": any-hit mismatches out of " << shadow.size() << " shadow rays";
    return hit_count;
}

std::vector<uint64_t> ExpectEveryWalkMatchesBruteForce(const SahTree& tree, const std::vector<Triangle>& triangles,
                                                       const std::vector<Ray>& rays, const std::string& what) {
    const Backend cpu = Backend::Cpu();
    const Span<const Triangle> tris(triangles);
    std::vector<Hit> brute_hits(rays.size());
    BruteForceClosestHits(cpu, tris, Span<const Ray>(rays), Span<Hit>(brute_hits));
    const std::vector<Ray> shadow = ShadowRays(rays, brute_hits, PointLightFor(tree.bounds));
    std::vector<uint8_t> brute_occ(shadow.size());
    BruteForceOcclusion(cpu, tris, Span<const Ray>(shadow), Span<uint8_t>(brute_occ));

    const std::vector<TraversalWalk> walks = TraversalWalks();
    std::vector<TraversalCost> stack_costs;
    std::vector<uint64_t> restarts;
    for (const TraversalWalk& walk : walks) {
        const std::string label = what + ", " + walk.name;
        std::vector<Hit> hits(rays.size());
        TraceClosestHits(cpu, walk, tree.View(), tris, Span<const Ray>(rays), Span<Hit>(hits));
        ExpectSameClosestHits(hits, brute_hits, rays, label + " vs brute force");
        std::vector<uint8_t> occ(shadow.size());
        TraceOcclusion(cpu, walk, tree.View(), tris, Span<const Ray>(shadow), Span<uint8_t>(occ));
        size_t occ_mismatches = 0;
        for (size_t i = 0; i < shadow.size(); ++i) occ_mismatches += occ[i] != brute_occ[i];
        EXPECT_EQ(occ_mismatches, 0u) << label << ": any-hit mismatches out of " << shadow.size() << " shadow rays";

        // The same leaves as the stack walk, so the same ray-triangle tests; restarts read more nodes.
        const std::vector<TraversalCost> costs = MeasureClosestHits(walk, tree.View(), triangles.data(), rays);
        if (stack_costs.empty()) stack_costs = costs;
        size_t cost_mismatches = 0;
        uint64_t walk_restarts = 0;
        for (size_t i = 0; i < rays.size(); ++i) {
            cost_mismatches += costs[i].leaves != stack_costs[i].leaves || costs[i].tests != stack_costs[i].tests ||
                               costs[i].nodes < stack_costs[i].nodes;
            walk_restarts += costs[i].restarts;
        }
        EXPECT_EQ(cost_mismatches, 0u) << label << ": rays whose leaves or tests differ from the stack walk's";
        restarts.push_back(walk_restarts);
    }
    return restarts;
}

void ExpectValidTree(const SahTree& tree, const std::vector<Triangle>& triangles, const SahParams& params,
                     const std::string& what) {
    const TreeValidationReport report = ValidateTree(tree, Span<const Triangle>(triangles), params);
    EXPECT_TRUE(report.ok) << what << ": " << report.Summary();
}

}  // namespace caustica::testing
