// LanesRanked with a GPU block's threads (BlockLanes' block scan, a round of 2048 items) through
// ParallelForBlocks with 64 KB of dynamic shared memory, against the CPU's one lane. A launch unit:
// nvcc compiles it in a CUDA build.
#include <gtest/gtest.h>

#include "tests/core/lanes_ranked_test_pass.h"
#include "tests/core/primitive_reference.h"
#include "tests/test_support.h"

namespace caustica {
namespace {

using testing::RandomValues;

TEST(LanesRankedGpu, EqualsTheCpu) {
    CA_REQUIRE_GPU(gpu);
    std::vector<uint32_t> sizes{0, 1, 7, 2047, 2048, 2049, 6144, 6145, 16384};
    for (uint32_t i = 0; i < 300; ++i) sizes.push_back((i * 7919u) % 5000u);  // many blocks at once
    const std::vector<uint32_t> offsets = testing::SetOffsets(sizes);
    const size_t n = offsets.back();
    for (uint8_t one_in : {uint8_t(3), uint8_t(200), uint8_t(255)}) {
        const auto counts = RandomValues<uint32_t>(n, 21 + one_in, 0, 3);
        auto starts = RandomValues<uint8_t>(n, 22 + one_in, 0, one_in);
        for (uint8_t& s : starts) s = s == 0 ? 1 : 0;
        const testing::BlockRanksRun expected = testing::RunBlockRanks(Backend::Cpu(), counts, starts, offsets);
        const testing::BlockRanksRun got = testing::RunBlockRanks(gpu, counts, starts, offsets);
        EXPECT_EQ(got.ranks, expected.ranks) << "a segment start in " << int(one_in);
        EXPECT_EQ(got.calls, std::vector<uint32_t>(n, 1u)) << "every item exactly once";
    }
}

}  // namespace
}  // namespace caustica
