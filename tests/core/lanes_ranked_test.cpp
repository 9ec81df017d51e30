// LanesRanked on the CPU (one lane walks the items) through ParallelForBlocks, against a plain
// loop; the GPU suite compares the blocks of threads with it.
#include <gtest/gtest.h>

#include "tests/core/lanes_ranked_test_pass.h"
#include "tests/core/primitive_reference.h"
#include "tests/core/ranked_test_pass.h"

namespace caustica {
namespace {

using testing::RandomValues;

TEST(LanesRanked, EveryItemOnceWithItsRankInItsSet) {
    // Sets either side of a GPU round (2048 items) and of three.
    const std::vector<uint32_t> sizes{0, 1, 7, 2047, 2048, 2049, 6144, 6145, 16384, 3};
    const std::vector<uint32_t> offsets = testing::SetOffsets(sizes);
    const size_t n = offsets.back();
    const auto counts = RandomValues<uint32_t>(n, 5, 0, 3);
    auto starts = RandomValues<uint8_t>(n, 6, 0, 40);
    for (uint8_t& s : starts) s = s == 0 ? 1 : 0;
    std::vector<uint32_t> expected;
    for (size_t set = 0; set + 1 < offsets.size(); ++set) {
        // Each set is ranked on its own: its first item starts a segment.
        const std::vector<uint32_t> c(counts.begin() + offsets[set], counts.begin() + offsets[set + 1]);
        const std::vector<uint8_t> s(starts.begin() + offsets[set], starts.begin() + offsets[set + 1]);
        const std::vector<uint32_t> r = testing::SerialRanks(c, s);
        expected.insert(expected.end(), r.begin(), r.end());
    }
    const testing::BlockRanksRun got = testing::RunBlockRanks(Backend::Cpu(), counts, starts, offsets);
    EXPECT_EQ(got.ranks, expected);
    EXPECT_EQ(got.calls, std::vector<uint32_t>(n, 1u));
}

}  // namespace
}  // namespace caustica
