// Builds over triangles that share their bounds (copies of one mesh in one place) stay near
// O(N log N): no split that separates little is taken again and again, and leaves may hold many
// triangles. Work is compared by the BFS builder's work-list entries (deterministic), time by a
// loose ratio against a build over as many spread triangles on the same machine.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "kdtree/triangle/bfs_builder.h"
#include "kdtree/triangle/exact_sah_builder.h"
#include "renderer/bench/generated_meshes.h"
#include "tests/kdtree/triangle/test_scenes.h"
#include "tests/kdtree/triangle/tree_check.h"

namespace caustica {
namespace {

template <class F>
double Seconds(F build) {
    const auto start = std::chrono::steady_clock::now();
    build();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The tree holds every triangle where rays can find it.
void ExpectComplete(const SahTree& tree, const std::vector<Triangle>& tris) {
    const testing::HostTree host = testing::Download(tree);
    EXPECT_EQ(testing::CheckStructure(host, tris.size(), SahParams{}.max_depth), "");
    EXPECT_EQ(testing::CheckCompleteness(host, tris), "");
}

// Before the useless-split rules, 120,000 coincident triangles took 34 times as long as 120,000
// spread ones on the CPU (20.8 s against 0.61): levels halved cells towards points where copies
// touch them, down to the depth bound. Now, where every large split is a median (median_alone),
// the tree over copies of a box does not depend on how many copies there are, so the work per
// triangle does not either: the build is linear in the copies. With the default, nodes of up to
// SahParams::median_or_sah_max_entries weigh the median against the SAH, which 12,000 copies'
// nodes are and a million's are not; the million's build is still timed against spread triangles.
TEST(CoincidentBuild, BfsMillionCoincidentTrianglesBuildLikeSpreadOnes) {
    const std::vector<Triangle> spread = InstancedMeshScene(1000000, 1);
    const std::vector<Triangle> coincident = CoincidentBoxes(1000000), fewer = CoincidentBoxes(12000);
    const Backend cpu = Backend::Cpu();
    SahParams median_alone;
    median_alone.median_or_sah_max_entries = 0;
    BfsSahBuilder builder(cpu), median_builder(cpu, median_alone);
    SahTree tree(cpu);
    median_builder.Build(Span<const Triangle>(fewer), tree);
    const BfsBuildStats fewer_stats = median_builder.stats();
    median_builder.Build(Span<const Triangle>(coincident), tree);
    ExpectComplete(tree, coincident);
    const BfsBuildStats stats = median_builder.stats();
    builder.Build(Span<const Triangle>(spread), tree);  // the work lists' first growth, untimed
    const double spread_s = Seconds([&] { builder.Build(Span<const Triangle>(spread), tree); });
    const double coincident_s = Seconds([&] { builder.Build(Span<const Triangle>(coincident), tree); });
    ExpectComplete(tree, coincident);
    EXPECT_EQ(stats.large_entries / 1000000, fewer_stats.large_entries / 12000);
    EXPECT_EQ(stats.nodes, fewer_stats.nodes);
    EXPECT_LE(stats.max_depth, 20);
    EXPECT_LT(coincident_s, 5 * spread_s) << "coincident " << coincident_s << " s, spread " << spread_s << " s";
    std::printf("1M triangles on the CPU: coincident %.2f s, spread %.2f s\n", coincident_s, spread_s);
}

// 2,000 boxes in one place (24,000 triangles: 4.3 s on two cores before) and 2,000 boxes stacked in a column (faces in common planes, each box's top on the
// next one's bottom).
TEST(CoincidentBuild, BfsStackedBoxesDoNotStall) {
    std::vector<Triangle> column;
    for (int i = 0; i < 2000; ++i) {
        const std::vector<Triangle> box = TessellatedBox(Aabb(Vec3(0, 0, float(i)), Vec3(1, 1, float(i + 1))), 1);
        column.insert(column.end(), box.begin(), box.end());
    }
    const std::vector<Triangle> in_place = CoincidentBoxes(24000);
    const Backend cpu = Backend::Cpu();
    for (const std::vector<Triangle>* tris : std::vector<const std::vector<Triangle>*>{&in_place, &column}) {
        BfsSahBuilder builder(cpu);
        SahTree tree(cpu);
        builder.Build(Span<const Triangle>(*tris), tree);
        ExpectComplete(tree, *tris);
        EXPECT_LE(builder.stats().large_entries, 100 * tris->size());
    }
}

// Long triangles that fill a volume straddle most planes, and each median split keeps most of them
// on both sides while the SAH still favours it: 20,000 of them had run the CPU out of memory (5,000
// took 1.1 GB). A level whose work list passes its bound now ends in leaves; rays still find every
// hit, and ordinary scenes never reach the bound (their trees stay as they were).
TEST(CoincidentBuild, LongTrianglesFillingAVolumeStayWithinTheWorkListBound) {
    const Backend cpu = Backend::Cpu();
    BfsSahBuilder builder(cpu);
    SahTree tree(cpu);
    const std::vector<Triangle> long_ones = testing::TriangleSoup(20000, 5.0f, 21);
    builder.Build(Span<const Triangle>(long_ones), tree);
    EXPECT_TRUE(builder.stats().entry_bound_leaves);
    EXPECT_LE(builder.stats().peak_entries, 32 * long_ones.size());
    ExpectComplete(tree, long_ones);
    std::string problem;
    EXPECT_EQ(testing::CountRayMismatches(testing::Download(tree), long_ones, 200, 5, &problem), 0) << problem;
    for (const std::vector<Triangle>& ordinary : {InstancedMeshScene(200000, 1), testing::TriangleSoup(100000, 0.03f, 3)}) {
        builder.Build(Span<const Triangle>(ordinary), tree);
        EXPECT_FALSE(builder.stats().entry_bound_leaves);
    }
}

// The exact builder already stops where no plane lowers the SAH cost: a million coincident
// triangles build in less time than 200,000 spread ones.
TEST(CoincidentBuild, ExactMillionCoincidentTrianglesBuildLikeSpreadOnes) {
    const std::vector<Triangle> spread = InstancedMeshScene(200000, 1);
    const std::vector<Triangle> coincident = CoincidentBoxes(1000000);
    SahTree tree(MemorySpace::Host);
    const double spread_s = Seconds([&] { BuildExactSahTree(Span<const Triangle>(spread), {}, tree); });
    const double coincident_s = Seconds([&] { BuildExactSahTree(Span<const Triangle>(coincident), {}, tree); });
    ExpectComplete(tree, coincident);
    EXPECT_LT(coincident_s, 5 * spread_s) << "coincident " << coincident_s << " s, spread " << spread_s << " s";
}

}  // namespace
}  // namespace caustica
