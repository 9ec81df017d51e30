// The BFS SAH builder on the GPU gives the same tree as on the CPU: identical node arrays, bounds
// and depth, and the same triangles in every leaf (their order inside large-stage leaves may
// differ: the GPU's per-chunk atomics lay entries out in any order; small-stage leaves are sorted).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/memory.h"
#include "kdtree/triangle/bfs_builder.h"
#include "renderer/bench/generated_meshes.h"
#include "tests/kdtree/triangle/test_scenes.h"
#include "tests/kdtree/triangle/tree_check.h"
#include "tests/test_support.h"

namespace caustica {
namespace {

using testing::HostTree;

HostTree Build(const Backend& backend, const std::vector<Triangle>& tris, const SahParams& params = {}) {
    Buffer<Triangle> input(backend);
    input.Upload(Span<const Triangle>(tris));
    BfsSahBuilder builder(backend, params);
    SahTree tree(backend);
    builder.Build(input.span(), tree);
    return testing::Download(tree);
}

void ExpectGpuEqualsCpu(const Backend& gpu, const std::vector<Triangle>& tris, const SahParams& params = {}) {
    const HostTree on_gpu = Build(gpu, tris, params);
    const HostTree on_cpu = Build(Backend::Cpu(), tris, params);
    EXPECT_EQ(testing::CompareTrees(on_cpu, on_gpu), "");
    EXPECT_EQ(testing::CheckStructure(on_gpu, tris.size(), params.max_depth), "");
}

TEST(BfsBuilderGpu, GeneratedScenesMatchTheCpu) {
    CA_REQUIRE_GPU(gpu);
    ExpectGpuEqualsCpu(gpu, testing::RandomTriangles(50, 10));  // starts in the small-node stage
    ExpectGpuEqualsCpu(gpu, testing::RandomTriangles(3000, 11));
    ExpectGpuEqualsCpu(gpu, testing::TriangleSoup(100000, 0.03f, 12));
    ExpectGpuEqualsCpu(gpu, testing::Sphere(128, 256));
    ExpectGpuEqualsCpu(gpu, testing::CubeGrid(10));
    ExpectGpuEqualsCpu(gpu, testing::FlatFacedParts());
    ExpectGpuEqualsCpu(gpu, FlatGear());  // large-node stage, then flat cells in the small one
    // Flat cells over a floor: the median weighed against the SAH, empty space cut by area.
    ExpectGpuEqualsCpu(gpu, testing::BallOnAFloor());
    ExpectGpuEqualsCpu(gpu, testing::RingAndBallOnAFloor());
    SahParams params;
    params.small_node_threshold = 16;
    params.chunk_size = 64;
    params.max_depth = 20;
    ExpectGpuEqualsCpu(gpu, testing::TriangleSoup(50000, 0.05f, 13), params);
    SahParams both_sides;  // straddling triangles in both small children, as Zhou et al. 2008
    both_sides.test_small_stage_straddlers = false;
    ExpectGpuEqualsCpu(gpu, FlatGear(), both_sides);
    ExpectGpuEqualsCpu(gpu, testing::TriangleSoup(100000, 0.03f, 12), both_sides);
    SahParams batches;  // the small-node stage's roots in batches
    batches.small_stage_batch_entries = 5000;
    ExpectGpuEqualsCpu(gpu, testing::TriangleSoup(100000, 0.03f, 12), batches);
    ExpectGpuEqualsCpu(gpu, FlatGear(), batches);
    // Large nodes above the binned SAH's limit split at the median alone (Zhou et al. 2008), and
    // weighing the median against the SAH from 65 entries on, their bins gathered over the chunks.
    SahParams median_alone, median_or_sah;
    median_alone.median_or_sah_max_entries = 0;
    median_or_sah.binned_sah_max_entries = 64;
    ExpectGpuEqualsCpu(gpu, testing::TriangleSoup(100000, 0.03f, 12), median_alone);
    ExpectGpuEqualsCpu(gpu, testing::Sphere(128, 256), median_alone);
    ExpectGpuEqualsCpu(gpu, testing::TriangleSoup(100000, 0.03f, 12), median_or_sah);
    ExpectGpuEqualsCpu(gpu, FlatGear(), median_or_sah);
}

TEST(BfsBuilderGpu, LevelsInOneBlockMatchTheCpu) {
    // Every level's later passes in one block, none, and a limit that the soup's middle levels pass.
    CA_REQUIRE_GPU(gpu);
    for (const int limit : {0, 1 << 30, 300}) {
        SCOPED_TRACE(limit);
        SahParams params;
        params.children_in_one_block_max = limit;
        params.large_levels_in_one_block_max = limit;
        params.small_levels_in_one_block_max = limit / 16;
        ExpectGpuEqualsCpu(gpu, testing::TriangleSoup(30000, 0.05f, 2), params);
        ExpectGpuEqualsCpu(gpu, testing::FlatFacedParts(), params);
    }
}

TEST(BfsBuilderGpu, RealModelsMatchTheCpu) {
    CA_REQUIRE_GPU(gpu);
    CA_REQUIRE_MODELS(dir);
    for (const char* name : {"stanford-bunny.obj", "nefertiti.obj", "ogre.obj", "teapot.obj", "sponza-33k.obj"}) {
        SCOPED_TRACE(name);
        ExpectGpuEqualsCpu(gpu, testing::LoadObj(dir + "/" + name));
    }
}

TEST(BfsBuilderGpu, DegenerateInputMatchesTheCpu) {
    CA_REQUIRE_GPU(gpu);
    ExpectGpuEqualsCpu(gpu, {});
    ExpectGpuEqualsCpu(gpu, {{Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)}});
    ExpectGpuEqualsCpu(gpu, std::vector<Triangle>(5000, Triangle{Vec3(1, 2, 3), Vec3(1, 2, 3), Vec3(1, 2, 3)}));
    auto flat = testing::TriangleSoup(20000, 0.1f, 14);
    for (auto& t : flat) t.v0.z = t.v1.z = t.v2.z = 0.0f;
    ExpectGpuEqualsCpu(gpu, flat);
    // Identical triangles among others: useless splits become large-stage leaves.
    std::vector<Triangle> same(30000, Triangle{Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 1)});
    const auto others = testing::TriangleSoup(3000, 0.1f, 19);
    same.insert(same.end(), others.begin(), others.end());
    ExpectGpuEqualsCpu(gpu, same);
    SahParams shallow;
    shallow.max_depth = 4;
    ExpectGpuEqualsCpu(gpu, testing::TriangleSoup(50000, 0.05f, 15), shallow);
}

TEST(BfsBuilderGpu, MillionIdenticalTriangles) {
    CA_REQUIRE_GPU(gpu);
    ExpectGpuEqualsCpu(gpu, std::vector<Triangle>(1000000, Triangle{Vec3(0, 0, 0), Vec3(2, 0, 0), Vec3(0, 1, 3)}));
}

// Copies of one box in one place: useless splits (bfs_large_passes.h, UselessSplit) end the large
// stage early on both devices, with the same leaves of many triangles.
TEST(BfsBuilderGpu, MillionCoincidentTrianglesMatchTheCpu) {
    CA_REQUIRE_GPU(gpu);
    ExpectGpuEqualsCpu(gpu, CoincidentBoxes(1000000));
    ExpectGpuEqualsCpu(gpu, CoincidentBoxes(24000));
}

// Long triangles filling a volume: the level past the work lists' bound ends in the same leaves.
TEST(BfsBuilderGpu, LongTrianglesFillingAVolumeMatchTheCpu) {
    CA_REQUIRE_GPU(gpu);
    ExpectGpuEqualsCpu(gpu, testing::TriangleSoup(20000, 5.0f, 21));
}

TEST(BfsBuilderGpu, MillionsOfTrianglesMatchTheCpu) {
    CA_REQUIRE_GPU(gpu);
    const auto tris = testing::TriangleSoup(2500000, 0.01f, 16);
    // Large levels that read back (kChildEntriesWithoutReadBack), and small levels of hundreds of
    // thousands of nodes of a few triangles, whose split decisions the GPU spreads over its lanes
    // (bfs_small_split.cpp, SpreadSplitKernel).
    ExpectGpuEqualsCpu(gpu, tris);
    // Rays through the GPU tree agree with brute force.
    const HostTree tree = Build(gpu, tris);
    std::string problem;
    EXPECT_EQ(testing::CountRayMismatches(tree, tris, 100, 17, &problem), 0) << problem;
}

TEST(BfsBuilderGpu, WarmRebuildAllocatesNothing) {
    CA_REQUIRE_GPU(gpu);
    const auto tris = testing::TriangleSoup(200000, 0.03f, 18);
    Buffer<Triangle> input(gpu);
    input.Upload(Span<const Triangle>(tris));
    BfsSahBuilder builder(gpu);
    SahTree tree(gpu);
    builder.Build(input.span(), tree);
    const HostTree first = testing::Download(tree);
    const size_t bytes = DeviceMemoryCounters().current_device_bytes;
    for (int i = 0; i < 3; ++i) builder.Build(input.span(), tree);
    EXPECT_EQ(DeviceMemoryCounters().current_device_bytes, bytes);
    EXPECT_EQ(testing::CompareTrees(first, testing::Download(tree)), "");
}

}  // namespace
}  // namespace caustica
