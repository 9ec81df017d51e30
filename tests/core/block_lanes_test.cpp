// What a block's lanes share, on the CPU (one lane does all) through ParallelForBlocks, against
// plain loops; the GPU suite compares the blocks of threads with it.
#include <gtest/gtest.h>

#include "tests/core/block_lanes_test_pass.h"
#include "tests/core/primitive_reference.h"

namespace caustica {
namespace {

TEST(BlockLanes, ScanBallotAndMinimumAsPlainLoops) {
    const std::vector<uint32_t> offsets = testing::SetOffsets({0, 1, 31, 32, 33, 255, 256, 257, 5000, 16384, 3});
    const auto values = testing::RandomValues<uint32_t>(offsets.back(), 5, 0, 1000);
    EXPECT_TRUE(testing::RunBlockLanes(Backend::Cpu(), values, offsets) == testing::SerialBlockLanes(values, offsets));
}

TEST(BlockLanes, PartsScanTheirSetsAsPlainLoops) {
    const std::vector<uint32_t> offsets = testing::SetOffsets({0, 1, 255, 256, 257, 1000, 3, 700, 2});
    const auto values = testing::RandomValues<uint32_t>(offsets.back(), 6, 0, 1000);
    EXPECT_EQ(testing::RunBlockParts(Backend::Cpu(), values, offsets), testing::SerialBlockLanes(values, offsets).prefix);
}

}  // namespace
}  // namespace caustica
