#include <gtest/gtest.h>

#include "tests/core/primitive_reference.h"
#include "tests/core/ranked_test_pass.h"

namespace caustica {
namespace {

using testing::RandomValues;
using testing::RunRanked;
using testing::SerialRanks;

void ExpectSerialRanks(size_t n, uint32_t max_count, uint8_t start_one_in, uint64_t seed) {
    const auto counts = RandomValues<uint32_t>(n, seed, 0, max_count);
    std::vector<uint8_t> starts = RandomValues<uint8_t>(n, seed + 1, 0, start_one_in);
    for (uint8_t& s : starts) s = s == 0 ? 1 : 0;
    const testing::RankedRun run = RunRanked(Backend::Cpu(), counts, starts);
    EXPECT_EQ(run.ranks, SerialRanks(counts, starts)) << n << " items";
    EXPECT_EQ(run.calls, std::vector<uint32_t>(n, 1u)) << "every item exactly once";
}

TEST(ParallelForRanked, CpuEqualsTheSerialLoop) {
    for (size_t n : {0, 1, 2, 4095, 4096, 4097, 100003}) {
        ExpectSerialRanks(n, 3, 50, 7 + n);   // short segments
        ExpectSerialRanks(n, 1, 255, 9 + n);  // long segments of 0/1 counts: a stable split's flags
    }
}

TEST(ParallelForRanked, OneSegmentIsAnExclusiveScan) {
    const auto counts = RandomValues<uint32_t>(250000, 3, 0, 1000);
    const std::vector<uint8_t> none(counts.size(), 0);
    const testing::RankedRun run = RunRanked(Backend::Cpu(), counts, none);
    std::vector<uint32_t> expected(counts.size());
    ExclusiveScan<uint32_t>(Backend::Cpu(), counts, Span<uint32_t>(expected));
    EXPECT_EQ(run.ranks, expected);
}

}  // namespace
}  // namespace caustica
