// The BFS SAH builder on the CPU backend: valid, complete trees whose rays agree with brute force,
// on generated scenes, the real meshes and degenerate input.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "kdtree/triangle/bfs_build_state.h"
#include "kdtree/triangle/bfs_builder.h"
#include "tests/kdtree/triangle/test_scenes.h"
#include "tests/kdtree/triangle/tree_check.h"
#include "tests/test_support.h"

namespace caustica {
namespace {

using testing::HostTree;

HostTree BuildOnCpu(const std::vector<Triangle>& tris, const SahParams& params = {}, BfsBuildStats* stats = nullptr) {
    Backend cpu = Backend::Cpu();
    BfsSahBuilder builder(cpu, params);
    SahTree tree(cpu);
    builder.Build(Span<const Triangle>(tris), tree);
    if (stats) *stats = builder.stats();
    return testing::Download(tree);
}

// The small-node stage's boxes (RootEntryBox): a triangle inside the root's cell keeps its box; one
// that leaves the cell gets a box within the cell that holds the part of the triangle in it, and
// equals the large-node stage's box, clipped at each plane on the way down to the cell, up to
// rounding.
TEST(BfsBuilder, RootEntryBoxesAreTheLargeStagesBoxes) {
    const Aabb root_cell(Vec3(-1.0f, -1.0f, -1.0f), Vec3(1.0f, 1.0f, 1.0f));
    const Triangle inside{Vec3(-0.5f, 0.0f, 0.1f), Vec3(0.2f, 0.7f, -0.3f), Vec3(0.4f, -0.6f, 0.9f)};
    const Aabb kept = bfs::RootEntryBox(inside, root_cell);
    const Aabb own = bfs::TriangleBox(inside);
    EXPECT_EQ(kept.lo, own.lo);
    EXPECT_EQ(kept.hi, own.hi);
    Rng rng(7, 0, 0, 0);
    const auto uniform = [&](float lo, float hi) { return lo + (hi - lo) * rng.NextFloat(); };
    int clipped = 0;
    for (int i = 0; i < 2000; ++i) {
        // A cell reached by four splits from the root's cell, and a triangle around it.
        Aabb cell = root_cell;
        const auto corner = [&] { return Vec3{uniform(-2, 2), uniform(-2, 2), uniform(-2, 2)}; };  // in order
        const Triangle t{corner(), corner(), corner()};
        Aabb entry = bfs::ClippedEntryBox(t, bfs::TriangleBox(t), root_cell);
        if (entry.Empty()) continue;
        for (int level = 0; level < 4 && !entry.Empty(); ++level) {
            const int axis = level % 3;
            const float p = 0.5f * (cell.lo[axis] + cell.hi[axis]);
            const int side = entry.lo[axis] < p ? 0 : 1;  // follow the triangle
            cell = cell.Half(axis, p, side);
            entry = bfs::ChildEntryBox(t, entry, cell, axis);
        }
        const Aabb box = bfs::RootEntryBox(t, cell);
        for (int a = 0; a < 3; ++a) {
            EXPECT_GE(box.lo[a], cell.lo[a]);
            EXPECT_LE(box.hi[a], cell.hi[a]);
            const float tolerance = 1e-5f * (cell.hi[a] - cell.lo[a]) + 1e-6f;
            EXPECT_NEAR(box.lo[a], entry.lo[a], tolerance) << i;
            EXPECT_NEAR(box.hi[a], entry.hi[a], tolerance) << i;
        }
        // The part of the triangle in the cell lies in the box.
        for (int k = 0; k < 64; ++k) {
            float u = rng.NextFloat(), v = rng.NextFloat();
            if (u + v > 1.0f) u = 1.0f - u, v = 1.0f - v;
            const Vec3 q = t.v0 + (t.v1 - t.v0) * u + (t.v2 - t.v0) * v;
            bool in_cell = true, in_box = true;
            for (int a = 0; a < 3; ++a) {
                in_cell = in_cell && q[a] >= cell.lo[a] && q[a] <= cell.hi[a];
                in_box = in_box && q[a] >= box.lo[a] && q[a] <= box.hi[a];
            }
            EXPECT_TRUE(!in_cell || in_box) << i;
        }
        ++clipped;
    }
    EXPECT_GT(clipped, 500);  // enough triangles reached a cell four splits down
}

// Structure, completeness, and rays against brute force.
void ExpectValid(const HostTree& tree, const std::vector<Triangle>& tris, const SahParams& params, int rays) {
    EXPECT_EQ(testing::CheckStructure(tree, tris.size(), params.max_depth), "");
    EXPECT_EQ(testing::CheckCompleteness(tree, tris), "");
    std::string problem;
    EXPECT_EQ(testing::CountRayMismatches(tree, tris, rays, 1234, &problem), 0) << problem;
}

// The same nodes, and the same triangles in the same order in every leaf.
void ExpectSameTreeAndIndices(const HostTree& a, const HostTree& b) {
    EXPECT_EQ(testing::CompareTrees(a, b), "");
    EXPECT_EQ(a.indices, b.indices);
}

struct NamedScene {
    const char* name;
    std::vector<Triangle> tris;
};

std::vector<NamedScene> GeneratedScenes() {
    return {{"random triangles", testing::RandomTriangles(2000, 1)},
            {"small-triangle soup", testing::TriangleSoup(30000, 0.05f, 2)},
            {"tessellated sphere", testing::Sphere(64, 128)},
            {"grid of cubes", testing::CubeGrid(7)},
            {"flat-faced parts", testing::FlatFacedParts()}};
}

TEST(BfsBuilder, GeneratedScenesGiveValidTrees) {
    for (const auto& scene : GeneratedScenes()) {
        SCOPED_TRACE(scene.name);
        BfsBuildStats stats;
        const HostTree tree = BuildOnCpu(scene.tris, {}, &stats);
        ExpectValid(tree, scene.tris, {}, 3000);
        EXPECT_EQ(stats.nodes, tree.nodes.size());
        EXPECT_EQ(stats.index_count, tree.indices.size());
        EXPECT_EQ(stats.max_depth, tree.max_depth);
        EXPECT_GT(stats.small_roots, 0u);
        EXPECT_GT(tree.nodes.size(), 1u);
    }
}

TEST(BfsBuilder, EmptySpaceIsCutOff) {
    // Two clusters far apart: below the root, each half's cell is mostly empty space.
    auto tris = testing::TriangleSoup(20000, 0.05f, 21);
    for (size_t i = 0; i < tris.size(); i += 2) {
        tris[i].v0 += Vec3(200, 50, 0);
        tris[i].v1 += Vec3(200, 50, 0);
        tris[i].v2 += Vec3(200, 50, 0);
    }
    BfsBuildStats stats;
    const HostTree tree = BuildOnCpu(tris, {}, &stats);
    ExpectValid(tree, tris, {}, 1000);
    EXPECT_GT(stats.empty_space_cuts, 0u);
    EXPECT_EQ(stats.large_leaves, 0u);
    size_t empty_leaves = 0;
    for (const KdNode& n : tree.nodes) empty_leaves += n.IsLeaf() && n.Count() == 0;
    EXPECT_GE(empty_leaves, stats.empty_space_cuts);
}

TEST(BfsBuilder, OtherParametersGiveValidTrees) {
    SahParams params;
    params.small_node_threshold = 8;
    params.chunk_size = 32;
    params.max_depth = 14;
    params.cost_traversal = 0.3f;
    for (const auto& scene : GeneratedScenes()) {
        SCOPED_TRACE(scene.name);
        const HostTree tree = BuildOnCpu(scene.tris, params);
        ExpectValid(tree, scene.tris, params, 1000);
    }
}

TEST(BfsBuilder, LeavesAreSmallWhereDepthAllows) {
    // With the default depth bound, the soup's leaves end well under the small-node threshold.
    const auto tris = testing::TriangleSoup(50000, 0.02f, 3);
    const HostTree tree = BuildOnCpu(tris);
    size_t leaves = 0, items = 0;
    for (const KdNode& n : tree.nodes)
        if (n.IsLeaf()) {
            ++leaves;
            items += n.Count();
            EXPECT_LE(n.Count(), 64u);
        }
    EXPECT_LT(double(items) / double(leaves), 8.0);
}

TEST(BfsBuilder, RealModels) {
    CA_REQUIRE_MODELS(dir);
    for (const char* name : {"stanford-bunny.obj", "nefertiti.obj", "ogre.obj", "teapot.obj", "sponza-33k.obj"}) {
        SCOPED_TRACE(name);
        const auto tris = testing::LoadObj(dir + "/" + name);
        ASSERT_GT(tris.size(), 1000u);
        const HostTree tree = BuildOnCpu(tris);
        ExpectValid(tree, tris, {}, 600);
    }
}

TEST(BfsBuilder, DepthBoundMakesLeaves) {
    const auto tris = testing::TriangleSoup(20000, 0.05f, 4);
    for (int bound : {0, 1, 3, 9}) {
        SCOPED_TRACE(bound);
        SahParams params;
        params.max_depth = bound;
        const HostTree tree = BuildOnCpu(tris, params);
        EXPECT_LE(tree.max_depth, bound);
        ExpectValid(tree, tris, params, 300);
    }
}

TEST(BfsBuilder, EmptyAndSingleTriangle) {
    const HostTree empty = BuildOnCpu({});
    ASSERT_EQ(empty.nodes.size(), 1u);
    EXPECT_TRUE(empty.nodes[0].IsLeaf());
    EXPECT_EQ(empty.nodes[0].Count(), 0u);
    EXPECT_TRUE(empty.indices.empty());

    const std::vector<Triangle> one = {{Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)}};
    const HostTree tree = BuildOnCpu(one);
    ExpectValid(tree, one, {}, 200);
    EXPECT_EQ(tree.bounds.lo, Vec3(0, 0, 0));
    EXPECT_EQ(tree.bounds.hi, Vec3(1, 1, 0));
}

TEST(BfsBuilder, DegenerateInput) {
    std::vector<NamedScene> scenes;
    // All triangles in one point.
    scenes.push_back({"one point", std::vector<Triangle>(5000, Triangle{Vec3(1, 2, 3), Vec3(1, 2, 3), Vec3(1, 2, 3)})});
    // All triangles in the plane z = 0.
    auto flat = testing::TriangleSoup(8000, 0.1f, 5);
    for (auto& t : flat) t.v0.z = t.v1.z = t.v2.z = 0.0f;
    scenes.push_back({"coplanar", flat});
    // Zero-area triangles (collinear corners), some lying along axes.
    auto sticks = testing::TriangleSoup(4000, 0.1f, 6);
    for (size_t i = 0; i < sticks.size(); ++i) {
        auto& t = sticks[i];
        t.v2 = i % 2 ? t.v0 + (t.v1 - t.v0) * 0.5f : t.v0;
        if (i % 3 == 0) t.v1 = Vec3(t.v0.x + 0.1f, t.v0.y, t.v0.z), t.v2 = t.v1;
    }
    scenes.push_back({"zero area", sticks});
    // Identical triangles, with a few others.
    std::vector<Triangle> same(3000, Triangle{Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 1)});
    const auto others = testing::TriangleSoup(500, 0.1f, 7);
    same.insert(same.end(), others.begin(), others.end());
    scenes.push_back({"identical plus others", same});
    // Points on a line, so every cell is thin.
    std::vector<Triangle> line;
    for (int i = 0; i < 3000; ++i) {
        const Vec3 p(float(i % 97) * 0.01f, 0.0f, 0.0f);
        line.push_back({p, p, p});
    }
    scenes.push_back({"points on a line", line});
    for (const auto& scene : scenes) {
        SCOPED_TRACE(scene.name);
        const HostTree tree = BuildOnCpu(scene.tris);
        EXPECT_EQ(testing::CheckStructure(tree, scene.tris.size(), SahParams{}.max_depth), "");
        EXPECT_EQ(testing::CheckCompleteness(tree, scene.tris), "");
        std::string problem;
        EXPECT_EQ(testing::CountRayMismatches(tree, scene.tris, 300, 99, &problem), 0) << problem;
    }
}

TEST(BfsBuilder, MillionIdenticalTriangles) {
    const std::vector<Triangle> tris(1000000, Triangle{Vec3(0, 0, 0), Vec3(2, 0, 0), Vec3(0, 1, 3)});
    BfsBuildStats stats;
    const HostTree tree = BuildOnCpu(tris, {}, &stats);
    EXPECT_EQ(testing::CheckStructure(tree, tris.size(), SahParams{}.max_depth), "");
    // Every split puts every triangle on both sides, so the root is one leaf of all of them.
    ASSERT_EQ(tree.nodes.size(), 1u);
    EXPECT_EQ(stats.large_leaves, 1u);
    EXPECT_EQ(stats.large_leaf_items, 1000000u);
    EXPECT_EQ(tree.nodes[0].Count(), 1000000u);
    std::vector<uint32_t> sorted = tree.indices;
    std::sort(sorted.begin(), sorted.end());
    for (uint32_t i = 0; i < sorted.size(); ++i) ASSERT_EQ(sorted[i], i);
}

TEST(BfsBuilder, TreeDoesNotDependOnTheOrderOfEntries) {
    // The GPU's chunk atomics lay out each node's entries in any order; decisions must depend only
    // on the sets. Permuting the input permutes every work list, so the tree must be the same up
    // to renaming the triangles.
    for (const auto& scene : GeneratedScenes()) {
        SCOPED_TRACE(scene.name);
        const auto& tris = scene.tris;
        std::vector<uint32_t> perm(tris.size());
        for (uint32_t i = 0; i < perm.size(); ++i) perm[i] = i;
        Rng rng(31, 0, 0, 0);
        for (size_t i = perm.size() - 1; i > 0; --i) std::swap(perm[i], perm[rng.NextU32() % (i + 1)]);
        std::vector<Triangle> permuted(tris.size());
        for (size_t i = 0; i < tris.size(); ++i) permuted[i] = tris[perm[i]];
        const HostTree a = BuildOnCpu(tris);
        HostTree b = BuildOnCpu(permuted);
        for (uint32_t& index : b.indices) index = perm[index];
        EXPECT_EQ(testing::CompareTrees(a, b), "");
    }
}

TEST(BfsBuilder, LevelsInOneBlockGiveTheSameTree) {
    // Passes and whole levels run in one block up to the limits of SahParams, else a launch a
    // pass: every level one way, every level the other, limits that the middle levels of the soup
    // pass, and every small level queued behind the one before (its split decisions a launch, the
    // rest in one block) must give the same tree, indices in the same order. With the median
    // weighed against the SAH above 64 entries, levels of launches gather those nodes' bins over
    // their chunks and levels in one block walk their entries: the same bins, the same tree.
    SahParams median_or_sah;
    median_or_sah.binned_sah_max_entries = 64;
    median_or_sah.median_or_sah_max_entries = 1 << 20;
    for (const SahParams& base : {SahParams(), median_or_sah})
    for (const auto& scene : GeneratedScenes()) {
        const bool from_65 = base.binned_sah_max_entries == 64;
        SCOPED_TRACE(std::string(scene.name) + (from_65 ? ", median or SAH from 65 entries" : ""));
        SahParams never = base, always = base, mixed = base;
        never.children_in_one_block_max = never.large_levels_in_one_block_max = never.small_levels_in_one_block_max = 0;
        always.children_in_one_block_max = always.large_levels_in_one_block_max =
            always.small_levels_in_one_block_max = 1 << 30;
        mixed.children_in_one_block_max = 300;
        mixed.large_levels_in_one_block_max = 600;
        mixed.small_levels_in_one_block_max = 20;
        SahParams queued = never;
        queued.children_in_one_block_max = 1 << 30;
        BfsBuildStats stats;
        const HostTree a = BuildOnCpu(scene.tris, never, &stats);
        EXPECT_GT(stats.large_levels + stats.small_levels, 2);
        for (const SahParams& params : {always, mixed, queued}) {
            BfsBuildStats other;
            const HostTree b = BuildOnCpu(scene.tris, params, &other);
            ExpectSameTreeAndIndices(a, b);
            // The same work, level by level.
            EXPECT_EQ(other.large_levels, stats.large_levels);
            EXPECT_EQ(other.large_nodes, stats.large_nodes);
            EXPECT_EQ(other.large_entries, stats.large_entries);
            EXPECT_EQ(other.peak_entries, stats.peak_entries);
            EXPECT_EQ(other.small_levels, stats.small_levels);
            EXPECT_EQ(other.large_leaves, stats.large_leaves);
            EXPECT_EQ(other.records, stats.records);
            // Levels in one block, or queued behind each other, read their sizes back once a run.
            EXPECT_LT(other.read_backs, stats.read_backs);
        }
    }
}

TEST(BfsBuilder, SmallStageBatchesGiveTheSameTreeInLessMemory) {
    // The small-node stage's roots in batches of at most 64 and 2,000 entries: each root's subtree
    // is built alone, so the tree and its index order are those of one batch, and the candidates'
    // masks and the small-node lists are held for one batch only.
    for (const auto& scene : GeneratedScenes()) {
        SCOPED_TRACE(scene.name);
        BfsBuildStats one;
        const HostTree a = BuildOnCpu(scene.tris, {}, &one);
        EXPECT_EQ(one.small_batches, 1);
        for (const int batch : {64, 2000}) {
            SCOPED_TRACE(batch);
            SahParams params;
            params.small_stage_batch_entries = batch;
            BfsBuildStats batched;
            const HostTree b = BuildOnCpu(scene.tris, params, &batched);
            ExpectSameTreeAndIndices(a, b);
            EXPECT_EQ(batched.records, one.records);
            EXPECT_EQ(batched.small_nodes, one.small_nodes);
            EXPECT_GT(batched.small_batches, 1);
            EXPECT_LT(batched.work_bytes, one.work_bytes);
        }
    }
}

TEST(BfsBuilder, LevelsOfMillionsOfEntriesGiveValidTrees) {
    // The first levels of 2.5M triangles may give their children more than 4M entries, so they read
    // the children's count back before placing them (kChildEntriesWithoutReadBack), twice over here:
    // a rebuild grows the lists no further and gives the same tree.
    const auto tris = testing::TriangleSoup(2500000, 0.01f, 21);
    Backend cpu = Backend::Cpu();
    BfsSahBuilder builder(cpu);
    SahTree tree(cpu);
    builder.Build(Span<const Triangle>(tris), tree);
    const HostTree first = testing::Download(tree);
    ExpectValid(first, tris, {}, 20);
    const size_t work_bytes = builder.stats().work_bytes;
    builder.Build(Span<const Triangle>(tris), tree);
    ExpectSameTreeAndIndices(first, testing::Download(tree));
    EXPECT_EQ(builder.stats().work_bytes, work_bytes);
}

TEST(BfsBuilder, RebuildsReuseTheBuilderAndGiveTheSameTree) {
    Backend cpu = Backend::Cpu();
    BfsSahBuilder builder(cpu);
    const auto big = testing::TriangleSoup(40000, 0.05f, 8);
    const auto small = testing::Sphere(8, 16);
    SahTree tree(cpu);
    builder.Build(Span<const Triangle>(big), tree);
    const HostTree first = testing::Download(tree);
    builder.Build(Span<const Triangle>(small), tree);
    ExpectValid(testing::Download(tree), small, {}, 300);
    builder.Build(Span<const Triangle>(big), tree);
    // The CPU order is deterministic: indices are identical too.
    ExpectSameTreeAndIndices(first, testing::Download(tree));
}

}  // namespace
}  // namespace caustica
