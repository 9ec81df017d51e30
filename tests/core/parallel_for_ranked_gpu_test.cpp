// ParallelForRanked's single-pass GPU kernel (decoupled look-back) against the CPU's scan. A launch
// unit: nvcc compiles it in a CUDA build.
#include <gtest/gtest.h>

#include "tests/core/primitive_reference.h"
#include "tests/core/ranked_test_pass.h"
#include "tests/test_support.h"

namespace caustica {
namespace {

using testing::RandomValues;
using testing::RunRanked;

std::vector<uint8_t> Starts(size_t n, uint64_t seed, uint8_t one_in) {
    std::vector<uint8_t> starts = RandomValues<uint8_t>(n, seed, 0, one_in);
    for (uint8_t& s : starts) s = s == 0 ? 1 : 0;
    return starts;
}

class ParallelForRankedGpu : public ::testing::TestWithParam<size_t> {};

// 2047-2049: either side of one tile; 20M: some ten thousand tiles looking back.
INSTANTIATE_TEST_SUITE_P(Sizes, ParallelForRankedGpu, ::testing::Values(0, 1, 2, 2047, 2048, 2049, 100003, 3000001, 20000000));

TEST_P(ParallelForRankedGpu, EqualsTheCpu) {
    CA_REQUIRE_GPU(gpu);
    const size_t n = GetParam();
    for (uint8_t one_in : {uint8_t(3), uint8_t(200), uint8_t(255)}) {
        const auto counts = RandomValues<uint32_t>(n, 11 + one_in, 0, 3);
        const auto starts = Starts(n, 13 + one_in, one_in);
        const testing::RankedRun expected = RunRanked(Backend::Cpu(), counts, starts);
        const testing::RankedRun got = RunRanked(gpu, counts, starts);
        EXPECT_EQ(got.ranks, expected.ranks) << n << " items, a segment start in " << int(one_in);
        EXPECT_EQ(got.calls, std::vector<uint32_t>(n, 1u)) << "every item exactly once";
    }
}

// The tile status words are reused with a new tag each time, never cleared between uses; growing
// them (the 1M run after the small ones) clears them once.
TEST(ParallelForRankedGpuReuse, ManyUsesInARow) {
    CA_REQUIRE_GPU(gpu);
    for (int use = 0; use < 200; ++use) {
        const size_t n = use == 150 ? 1000000 : 5000 + size_t(use) * 37;
        const auto counts = RandomValues<uint32_t>(n, 100 + use, 0, 2);
        const auto starts = Starts(n, 300 + use, 40);
        ASSERT_EQ(RunRanked(gpu, counts, starts).ranks, RunRanked(Backend::Cpu(), counts, starts).ranks) << "use " << use;
    }
}

}  // namespace
}  // namespace caustica
