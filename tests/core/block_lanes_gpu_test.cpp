// A GPU block's lanes (BlockLanes' block scan, its warps' ballots and least values) through
// ParallelForBlocks with 64 KB of dynamic shared memory, against plain loops and the CPU's one
// lane. A launch unit: nvcc compiles it in a CUDA build.
#include <gtest/gtest.h>

#include "tests/core/block_lanes_test_pass.h"
#include "tests/core/primitive_reference.h"
#include "tests/test_support.h"

namespace caustica {
namespace {

TEST(BlockLanesGpu, EqualsTheCpu) {
    CA_REQUIRE_GPU(gpu);
    std::vector<uint32_t> sizes{0, 1, 31, 32, 33, 255, 256, 257, 5000, 16384};
    for (uint32_t i = 0; i < 300; ++i) sizes.push_back((i * 7919u) % 5000u);  // many blocks at once
    const std::vector<uint32_t> offsets = testing::SetOffsets(sizes);
    const auto values = testing::RandomValues<uint32_t>(offsets.back(), 21, 0, 100000);
    const testing::BlockLanesRun expected = testing::SerialBlockLanes(values, offsets);
    EXPECT_TRUE(testing::RunBlockLanes(Backend::Cpu(), values, offsets) == expected);
    EXPECT_TRUE(testing::RunBlockLanes(gpu, values, offsets) == expected);
}

}  // namespace
}  // namespace caustica
