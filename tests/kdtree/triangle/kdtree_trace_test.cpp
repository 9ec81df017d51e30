// Trees from every CPU builder against brute force: generated scenes, real meshes, degenerate
// input, watertightness; plus the geometry, cost and validator building blocks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/backend.h"
#include "core/error.h"
#include "kdtree/triangle/exact_sah_builder.h"
#include "kdtree/triangle/ray_triangle.h"
#include "kdtree/triangle/sah_cost.h"
#include "kdtree/triangle/trace_rays.h"
#include "kdtree/triangle/traversal.h"
#include "kdtree/triangle/tree_validator.h"
#include "kdtree/triangle/triangle_box.h"
#include "kdtree/triangle/triangle_clip.h"
#include "renderer/bench/generated_meshes.h"
#include "tests/kdtree/triangle/kdtree_test_helpers.h"
#include "tests/test_support.h"

namespace caustica {
namespace {

using testing::BuilderCase;

SahTree BuildWith(const BuilderCase& builder, const std::vector<Triangle>& triangles, const SahParams& params = {}) {
    SahTree tree(MemorySpace::Host);
    builder.build(Span<const Triangle>(triangles), params, tree);
    return tree;
}

// --- Building blocks --------------------------------------------------------------------------

TEST(RayTriangle, HitsInsideAndReportsBarycentrics) {
    const Triangle t{Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)};
    float tt, u, v;
    ASSERT_TRUE(IntersectTriangle(WatertightRay(Ray(Vec3(0.25f, 0.5f, 2.0f), Vec3(0, 0, -1))), t, &tt, &u, &v));
    EXPECT_FLOAT_EQ(tt, 2.0f);
    EXPECT_FLOAT_EQ(u, 0.25f);
    EXPECT_FLOAT_EQ(v, 0.5f);
    EXPECT_FALSE(IntersectTriangle(WatertightRay(Ray(Vec3(0.75f, 0.5f, 2.0f), Vec3(0, 0, -1))), t, &tt, &u, &v));
}

TEST(RayTriangle, SharedEdgesAndVerticesOfAFanNeverLeak) {
    // A fan of triangles around a centre: rays exactly through the shared edges and the centre
    // (not the rim, where a rounded ray may pass outside).
    std::vector<Triangle> fan;
    const int n = 7;
    const Vec3 c(0.1f, -0.2f, 0.3f);
    for (int i = 0; i < n; ++i) {
        const float a0 = 6.2831853f * i / n, a1 = 6.2831853f * ((i + 1) % n) / n;
        fan.push_back({c, c + Vec3(std::cos(a0), std::sin(a0), 0.01f * i), c + Vec3(std::cos(a1), std::sin(a1), 0.01f * ((i + 1) % n))});
    }
    for (const Vec3 origin : {Vec3(0.3f, 0.7f, 3.0f), Vec3(-2.0f, 0.1f, -1.5f), Vec3(0.0f, 0.0f, 5.0f)})
        for (const Triangle& t : fan)
            for (const Vec3 target : {t.v0, (t.v0 + t.v1) * 0.5f, (t.v0 + t.v2) * 0.5f}) {  // inner vertex and edges
                const Ray ray(origin, target - origin);
                EXPECT_TRUE(FindClosestHitBruteForce(fan.data(), uint32_t(fan.size()), ray).Valid())
                    << "ray toward " << target.x << " " << target.y << " " << target.z;
            }
}

TEST(TriangleBox, ClippedBoundsAreTheBoxOfThePartInside) {
    const Triangle t{Vec3(0, 0, 0), Vec3(4, 0, 0), Vec3(0, 4, 0)};
    const Aabb clipped = ClippedTriangleBounds(t, Aabb(Vec3(1, 1, -1), Vec3(5, 5, 1)));
    EXPECT_EQ(clipped.lo, Vec3(1, 1, 0));
    EXPECT_EQ(clipped.hi, Vec3(3, 3, 0));
    EXPECT_TRUE(ClippedTriangleBounds(t, Aabb(Vec3(3, 3, -1), Vec3(5, 5, 1))).Empty());
    // Touching at a corner gives a point box.
    const Aabb corner = ClippedTriangleBounds(t, Aabb(Vec3(4, -1, -1), Vec3(5, 1, 1)));
    EXPECT_EQ(corner.lo, Vec3(4, 0, 0));
    EXPECT_EQ(corner.hi, Vec3(4, 0, 0));
}

TEST(TriangleBox, OverlapAgreesWithClippingOnRandomTriangles) {
    const std::vector<Triangle> triangles = testing::RandomTriangles(3000, 3, 4.0f, 3.0f);
    const Aabb box(Vec3(1.0f, 1.5f, 0.5f), Vec3(2.5f, 2.0f, 3.0f));
    size_t overlapping = 0;
    for (const Triangle& t : triangles) {
        const bool overlaps = TriangleOverlapsBox(t, box);
        overlapping += overlaps;
        EXPECT_EQ(overlaps, !ClippedTriangleBounds(t, box).Empty());
    }
    EXPECT_GT(overlapping, 100u);
    EXPECT_LT(overlapping, triangles.size());
    // A triangle whose box overlaps but whose plane passes beside the box corner.
    EXPECT_FALSE(TriangleOverlapsBox({Vec3(2, 0, 0), Vec3(0, 2, 0), Vec3(0, 0, 2)}, Aabb(Vec3(0.0f), Vec3(0.6f))));
    EXPECT_TRUE(TriangleOverlapsBox({Vec3(2, 0, 0), Vec3(0, 2, 0), Vec3(0, 0, 2)}, Aabb(Vec3(0.0f), Vec3(0.7f))));
}

// The BFS builder's float clip (triangle_clip.h) against the exact one in double: its box, cut to
// the box clipped against, holds the exact part inside and little more, for triangles in general
// position and the awkward ones: corners and edges on the box's faces, triangles lying in a face,
// long slivers through the box, far from the origin, and nearly parallel to an axis.
TEST(TriangleBox, FloatClipHoldsTheExactPartInside) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    const auto pick = [&](float lo, float hi) { return lo + (hi - lo) * unit(rng); };
    size_t meeting = 0, loose = 0;
    for (int i = 0; i < 20000; ++i) {
        const float scale = i % 4 == 0 ? 1000.0f : 1.0f, offset = i % 8 == 1 ? 5000.0f : 0.0f;
        const Vec3 base(offset, -offset, offset);
        Aabb box(base + Vec3(pick(0, 1), pick(0, 1), pick(0, 1)) * scale, Vec3(0.0f));
        box.hi = box.lo + Vec3(pick(0.01f, 1), pick(0.01f, 1), pick(0.01f, 1)) * scale;
        const auto corner = [&] {
            Vec3 p = box.lo + (box.hi - box.lo) * Vec3(pick(-1.5f, 2.5f), pick(-1.5f, 2.5f), pick(-1.5f, 2.5f));
            if (i % 5 == 2) {  // on the plane of one of the box's faces
                const int a = int(rng() % 3);
                p = p.With(a, rng() % 2 ? box.lo[a] : box.hi[a]);
            }
            return p;
        };
        Triangle t{corner(), corner(), corner()};
        const int axis = int(rng() % 3);
        if (i % 7 == 3) {  // lying in a face of the box
            const float face = rng() % 2 ? box.lo[axis] : box.hi[axis];
            t = {t.v0.With(axis, face), t.v1.With(axis, face), t.v2.With(axis, face)};
        } else if (i % 7 == 4) {  // all but parallel to the axis
            const float at = t.v0[axis];
            t.v1 = t.v1.With(axis, at + 1e-4f * scale * pick(-1, 1));
            t.v2 = t.v2.With(axis, at + 1e-4f * scale * pick(-1, 1));
        } else if (i % 7 == 5) {  // a sliver from far outside to far outside
            t.v1 = t.v0 + (t.v1 - t.v0) * 50.0f;
            t.v2 = t.v1 + (t.v2 - t.v1) * 1e-3f;
        }
        const Aabb exact = ClippedTriangleBounds(t, box);
        const Aabb clipped = WidenedClippedTriangleBounds(t, box).Intersect(box);
        if (exact.Empty()) continue;
        ++meeting;
        ASSERT_FALSE(clipped.Empty()) << i;
        // Float rounding: a few units in the last place of the triangle's coordinates and edges,
        // which the widening covers where the triangle is about the box's size but not where it
        // reaches fifty boxes out (the slivers; Sutherland and Hodgman's clipping in float missed
        // by as much).
        float magnitude = 0.0f;
        for (const Vec3& v : {t.v0, t.v1, t.v2, t.v1 - t.v0, t.v2 - t.v1, t.v0 - t.v2})
            magnitude = std::max({magnitude, std::fabs(v.x), std::fabs(v.y), std::fabs(v.z)});
        const float rounding = 4e-7f * magnitude;
        const float tolerance = 1e-4f * MaxComponent(box.Extent()) + 4e-6f * (offset + scale);
        bool tight = true;
        for (int a = 0; a < 3; ++a) {
            EXPECT_LE(clipped.lo[a], exact.lo[a] + rounding) << i << " axis " << a;
            EXPECT_GE(clipped.hi[a], exact.hi[a] - rounding) << i << " axis " << a;
            tight = tight && exact.lo[a] - clipped.lo[a] <= tolerance && clipped.hi[a] - exact.hi[a] <= tolerance;
        }
        // An edge that misses a face by less than a unit in the last place, far from the origin,
        // counts as crossing it: the box is then looser along the edge (by up to the box's size for
        // an edge all but parallel to an axis).
        loose += !tight;
    }
    EXPECT_GT(meeting, 5000u);
    EXPECT_LE(loose, meeting / 1000);
}

TEST(SahCost, LeafAndOneSplitByHand) {
    SahParams params;
    params.cost_traversal = 2.0f;
    params.cost_intersection = 3.0f;
    SahTree tree(MemorySpace::Host);
    tree.bounds = Aabb(Vec3(0.0f), Vec3(2.0f, 1.0f, 1.0f));  // area 10
    std::vector<KdNode> nodes = {KdNode::Leaf(0, 4)};
    tree.nodes.Upload(Span<const KdNode>(nodes));
    EXPECT_DOUBLE_EQ(SahCost(tree, params), 12.0);
    // Split x at 0.5: left box area 4, right box area 8; leaves with 1 and 3 triangles.
    nodes = {KdNode::Interior(0, 0.5f, 2), KdNode::Leaf(0, 1), KdNode::Leaf(1, 3)};
    tree.nodes.Upload(Span<const KdNode>(nodes));
    EXPECT_NEAR(SahCost(tree, params), 2.0 + 0.4 * 3.0 * 1 + 0.8 * 3.0 * 3, 1e-6);
}

// --- Validator: it must catch broken trees --------------------------------------------------

class ValidatorTest : public ::testing::Test {
protected:
    void SetUp() override {
        triangles = TessellatedSphere(Vec3(0.0f), 1.0f, 8, 16);
        BuildExactSahTree(Span<const Triangle>(triangles), params, tree);
        nodes = tree.nodes.Download();
        indices = tree.indices.Download();
        ASSERT_TRUE(ValidateTree(tree, Span<const Triangle>(triangles), params).ok);
        ASSERT_GT(nodes.size(), 3u);
    }
    bool ValidAfterChange() {
        tree.nodes.Upload(Span<const KdNode>(nodes));
        tree.indices.Upload(Span<const uint32_t>(indices));
        return ValidateTree(tree, Span<const Triangle>(triangles), params).ok;
    }
    std::vector<Triangle> triangles;
    SahParams params;
    SahTree tree{MemorySpace::Host};
    std::vector<KdNode> nodes;
    std::vector<uint32_t> indices;
};

TEST_F(ValidatorTest, CatchesAMissingTriangle) {
    // Replace one leaf entry by a copy of its neighbour (or a far triangle): that triangle is lost
    // from the leaf it overlaps.
    for (const KdNode& n : nodes)
        if (n.IsLeaf() && n.Count() >= 2) {
            indices[n.first] = indices[n.first + 1];
            break;
        }
    EXPECT_FALSE(ValidAfterChange());
}

TEST_F(ValidatorTest, CatchesABadRightChild) {
    for (KdNode& n : nodes)
        if (!n.IsLeaf()) {
            n = KdNode::Interior(n.Axis(), n.split, n.RightChild() + 1);
            break;
        }
    EXPECT_FALSE(ValidAfterChange());
}

TEST_F(ValidatorTest, CatchesASplitOutsideItsBox) {
    nodes[0] = KdNode::Interior(nodes[0].Axis(), 5.0f, nodes[0].RightChild());
    EXPECT_FALSE(ValidAfterChange());
}

TEST_F(ValidatorTest, CatchesAnIndexOutOfRange) {
    indices[0] = uint32_t(triangles.size());
    EXPECT_FALSE(ValidAfterChange());
}

TEST_F(ValidatorTest, CatchesExcessDepth) {
    params.max_depth = 1;
    EXPECT_FALSE(ValidAfterChange());
}

// --- Every builder ----------------------------------------------------------------------------

class BuilderTest : public ::testing::TestWithParam<BuilderCase> {};

TEST_P(BuilderTest, GeneratedScenesMatchBruteForce) {
    for (const testing::NamedScene& scene : testing::GeneratedScenes()) {
        SCOPED_TRACE(scene.name);
        const SahParams params;
        const SahTree tree = BuildWith(GetParam(), scene.triangles, params);
        testing::ExpectValidTree(tree, scene.triangles, params, scene.name);
        EXPECT_GT(tree.nodes.size(), 1u);
        EXPECT_LT(SahCost(tree, params), params.cost_intersection * scene.triangles.size());
        const std::vector<Ray> rays = testing::MixedRays(scene.triangles, 3000, 17);
        const size_t hits = testing::ExpectMatchesBruteForce(tree, scene.triangles, rays, scene.name);
        EXPECT_GT(hits, rays.size() / 10);
    }
}

TEST_P(BuilderTest, RealMeshesMatchBruteForce) {
    CA_REQUIRE_MODELS(models);
    for (const testing::NamedScene& mesh : testing::LoadModels(models, testing::ModelFiles())) {
        const std::string& file = mesh.name;
        const std::vector<Triangle>& triangles = mesh.triangles;
        SCOPED_TRACE(file);
        const SahParams params;
        const SahTree tree = BuildWith(GetParam(), triangles, params);
        testing::ExpectValidTree(tree, triangles, params, file);
        // Brute force costs rays x triangles: fewer rays on the big meshes.
        const size_t per_kind = triangles.size() > 20000 ? 250 : 1500;
        const std::vector<Ray> rays = testing::MixedRays(triangles, per_kind, 23);
        const size_t hits = testing::ExpectMatchesBruteForce(tree, triangles, rays, file);
        EXPECT_GT(hits, rays.size() / 10);
    }
}

TEST_P(BuilderTest, DegenerateInputBuildsValidTrees) {
    std::vector<testing::NamedScene> cases;
    cases.push_back({"no triangles", {}});
    cases.push_back({"one triangle", {{Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 1)}}});
    // Zero-area triangles (points and segments) among normal ones.
    std::vector<Triangle> zero_area = testing::RandomTriangles(500, 4, 5.0f, 1.0f);
    for (size_t i = 0; i < zero_area.size(); i += 3) zero_area[i].v2 = zero_area[i].v1;
    for (size_t i = 1; i < zero_area.size(); i += 3) zero_area[i].v1 = zero_area[i].v2 = zero_area[i].v0;
    for (size_t i = 2; i < zero_area.size(); i += 6) zero_area[i].v2 = (zero_area[i].v0 + zero_area[i].v1) * 0.5f;
    cases.push_back({"zero-area triangles", zero_area});
    // All in one tilted plane, and all in one axis-aligned plane.
    std::vector<Triangle> coplanar, flat = testing::RandomTriangles(800, 5, 5.0f, 1.0f);
    for (Triangle& t : flat) t.v0.z = t.v1.z = t.v2.z = 1.5f;
    for (const Triangle& t : flat) {
        const auto tilt = [](Vec3 p) { return Vec3(p.x, p.y, 0.3f * p.x - 0.7f * p.y); };
        coplanar.push_back({tilt(t.v0), tilt(t.v1), tilt(t.v2)});
    }
    cases.push_back({"coplanar (axis-aligned)", flat});
    cases.push_back({"coplanar (tilted)", coplanar});
    cases.push_back({"all in one point", std::vector<Triangle>(1000, Triangle{Vec3(1.0f), Vec3(1.0f), Vec3(1.0f)})});
    cases.push_back({"collinear", std::vector<Triangle>(300, Triangle{Vec3(0.0f), Vec3(1, 2, 3), Vec3(2, 4, 6)})});
    cases.push_back({"100K identical triangles",
                     std::vector<Triangle>(100000, Triangle{Vec3(0, 0, 0), Vec3(1, 0, 0.5f), Vec3(0, 1, 0.25f)})});
    for (const testing::NamedScene& c : cases) {
        SCOPED_TRACE(c.name);
        const SahParams params;
        const SahTree tree = BuildWith(GetParam(), c.triangles, params);
        testing::ExpectValidTree(tree, c.triangles, params, c.name);
        const size_t per_kind = c.triangles.size() > 10000 ? 10 : 400;
        testing::ExpectMatchesBruteForce(tree, c.triangles, testing::MixedRays(c.triangles, per_kind, 29), c.name);
    }
}

TEST_P(BuilderTest, ClosedMeshesAreWatertightFromInside) {
    const std::vector<testing::NamedScene> meshes = {
        {"sphere", TessellatedSphere(Vec3(0.1f, 0.2f, -0.3f), 2.0f, 20, 37)},
        {"box", TessellatedBox(Aabb(Vec3(-1.0f, -2.0f, -0.5f), Vec3(1.5f, 1.0f, 0.75f)), 6)},
        {"torus", TessellatedTorus(Vec3(0.5f, 0.0f, 0.25f), 1.5f, 0.5f, 40, 21)}};
    for (const testing::NamedScene& mesh : meshes) {
        SCOPED_TRACE(mesh.name);
        const SahParams params;
        const SahTree tree = BuildWith(GetParam(), mesh.triangles, params);
        // A point inside the solid: the centre of the sphere and the box, a point on the torus's
        // core circle.
        Aabb box;
        for (const Triangle& t : mesh.triangles) box.Extend(t.Bounds());
        const Vec3 inside = mesh.name == "torus" ? Vec3(0.5f + 1.5f * 0.6f, 1.5f * 0.8f, 0.25f) : box.Center();
        const std::vector<Ray> rays = testing::RaysFromInsideThroughVerticesAndEdges(mesh.triangles, inside);
        std::vector<Hit> hits(rays.size());
        TraceClosestHits(Backend::Cpu(), tree.View(), Span<const Triangle>(mesh.triangles), Span<const Ray>(rays),
                         Span<Hit>(hits));
        size_t misses = 0;
        for (const Hit& h : hits) misses += !h.Valid();
        EXPECT_EQ(misses, 0u) << "of " << rays.size() << " rays from inside through vertices and edge midpoints";
        testing::ExpectMatchesBruteForce(tree, mesh.triangles, rays, mesh.name);
    }
}

TEST_P(BuilderTest, DepthBoundMakesLeaves) {
    const std::vector<Triangle> triangles = InstancedMeshScene(5000, 9);
    SahParams params;
    params.max_depth = 4;
    const SahTree tree = BuildWith(GetParam(), triangles, params);
    EXPECT_LE(tree.max_depth, 4);
    testing::ExpectValidTree(tree, triangles, params, "depth 4");
    testing::ExpectMatchesBruteForce(tree, triangles, testing::MixedRays(triangles, 500, 31), "depth 4");
}

INSTANTIATE_TEST_SUITE_P(Builders, BuilderTest, ::testing::ValuesIn(testing::CpuBuilders()),
                         [](const ::testing::TestParamInfo<BuilderCase>& info) { return info.param.name; });

// --- The exact builder's own properties ---------------------------------------------------------

TEST(ExactSahBuilder, SameTreeEveryRun) {
    const std::vector<Triangle> triangles = InstancedMeshScene(30000, 2);
    SahTree a(MemorySpace::Host), b(MemorySpace::Host);
    BuildExactSahTree(Span<const Triangle>(triangles), {}, a);
    BuildExactSahTree(Span<const Triangle>(triangles), {}, b);
    const std::vector<KdNode> na = a.nodes.Download(), nb = b.nodes.Download();
    ASSERT_EQ(na.size(), nb.size());
    for (size_t i = 0; i < na.size(); ++i) {
        ASSERT_EQ(na[i].bits, nb[i].bits) << "node " << i;
        ASSERT_EQ(na[i].first, nb[i].first) << "node " << i;
    }
    EXPECT_EQ(a.indices.Download(), b.indices.Download());
}

TEST(ExactSahBuilder, SplitsTwoSeparatedClustersBetweenThem) {
    // Two far-apart clusters: the root split must separate them (any plane in the gap).
    std::vector<Triangle> triangles = testing::RandomTriangles(200, 1, 1.0f, 0.2f);
    Aabb first, second;
    for (const Triangle& t : triangles) first.Extend(t.Bounds());
    for (Triangle t : testing::RandomTriangles(200, 2, 1.0f, 0.2f)) {
        t.v0.x += 10.0f, t.v1.x += 10.0f, t.v2.x += 10.0f;
        triangles.push_back(t);
        second.Extend(t.Bounds());
    }
    SahTree tree(MemorySpace::Host);
    BuildExactSahTree(Span<const Triangle>(triangles), {}, tree);
    const KdNode root = tree.nodes.Download()[0];
    ASSERT_FALSE(root.IsLeaf());
    EXPECT_EQ(root.Axis(), 0);
    EXPECT_GE(root.split, first.hi.x);
    EXPECT_LE(root.split, second.lo.x);
}

// The SAH of splitting the root at (axis, pos), with counts found by classifying every triangle
// (the same rules as the builder: ending on the plane is left, starting on it is right, lying in
// it goes to the cheaper side).
double RootSplitCost(const std::vector<Triangle>& triangles, const Aabb& box, int axis, float pos, const SahParams& p) {
    size_t nl = 0, nr = 0, np = 0;
    for (const Triangle& t : triangles) {
        const Aabb b = t.Bounds();
        if (b.lo[axis] == pos && b.hi[axis] == pos) ++np;
        else if (b.hi[axis] <= pos) ++nl;
        else if (b.lo[axis] >= pos) ++nr;
        else ++nl, ++nr;
    }
    Aabb l = box, r = box;
    l.hi[axis] = pos;
    r.lo[axis] = pos;
    const double pl = double(l.SurfaceArea()) / box.SurfaceArea(), pr = double(r.SurfaceArea()) / box.SurfaceArea();
    return p.cost_traversal + p.cost_intersection * std::min(pl * double(nl + np) + pr * double(nr),
                                                             pl * double(nl) + pr * double(nr + np));
}

TEST(ExactSahBuilder, RootSplitIsTheCheapestCandidatePlane) {
    // Random triangles plus some lying in axis planes, so every event type occurs.
    std::vector<Triangle> triangles = testing::RandomTriangles(400, 8, 3.0f, 0.8f);
    for (size_t i = 0; i < triangles.size(); i += 5) triangles[i].v1.y = triangles[i].v2.y = triangles[i].v0.y;
    const SahParams params;
    SahTree tree(MemorySpace::Host);
    BuildExactSahTree(Span<const Triangle>(triangles), params, tree);
    double best = INFINITY;
    for (const Triangle& t : triangles)
        for (int axis = 0; axis < 3; ++axis)
            for (const float pos : {t.Bounds().lo[axis], t.Bounds().hi[axis]})
                best = std::min(best, RootSplitCost(triangles, tree.bounds, axis, pos, params));
    const KdNode root = tree.nodes.Download()[0];
    ASSERT_FALSE(root.IsLeaf());
    EXPECT_NEAR(RootSplitCost(triangles, tree.bounds, root.Axis(), root.split, params), best, 1e-9 * best);
}

TEST(Traversal, DepthAboveTheStackBoundIsRejected) {
    SahTreeView view;
    view.max_depth = kMaxTraversalDepth + 1;
    EXPECT_FALSE(IsTraversable(view));
    Hit hit;
    Ray ray;
    EXPECT_THROW(TraceClosestHits(Backend::Cpu(), view, {}, Span<const Ray>(&ray, 1), Span<Hit>(&hit, 1)), RuntimeError);
}

}  // namespace
}  // namespace caustica
