// A GPU block's lanes (BlockLanes' block scan, its warps' ballots and least values, its parts) through
// ParallelForBlocks with 64 KB of dynamic shared memory, and groups of a warp's lanes (GroupLanes)
// through ParallelForGroups, against plain loops and the CPU's one lane. A launch unit: nvcc
// compiles it in a CUDA build.
#include <gtest/gtest.h>

#include "core/parallel_for_lanes.h"
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

// Parts of a block that wait at their own barriers while the others run ahead: sets of unequal
// sizes, so that a block's parts take different numbers of rounds.
TEST(BlockLanesGpu, PartsEqualTheCpu) {
    CA_REQUIRE_GPU(gpu);
    std::vector<uint32_t> sizes{0, 1, 255, 256, 257, 1000};
    for (uint32_t i = 0; i < 500; ++i) sizes.push_back((i * 7919u) % 1300u);
    const std::vector<uint32_t> offsets = testing::SetOffsets(sizes);
    const auto values = testing::RandomValues<uint32_t>(offsets.back(), 23, 0, 100000);
    const std::vector<uint32_t> expected = testing::SerialBlockLanes(values, offsets).prefix;
    EXPECT_EQ(testing::RunBlockParts(Backend::Cpu(), values, offsets), expected);
    EXPECT_EQ(testing::RunBlockParts(gpu, values, offsets), expected);
}

// Item s's lanes share the values [offsets[s], offsets[s + 1]): their sum, and for odd items also
// their greatest, so that the groups of a warp take different branches.
struct GroupSumsPass {
    using Scratch = NoScratch;
    const uint32_t* values;
    const uint32_t* offsets;
    uint32_t* sums;
    uint32_t* greatest;
    template <class Lanes>
    CA_HD void Run(const Lanes& lanes, NoScratch&, uint32_t s) const {
        uint32_t sum = 0, most = 0;
        for (uint32_t i = offsets[s] + lanes.Lane(); i < offsets[s + 1]; i += Lanes::kCount) {
            sum += values[i];
            most = values[i] > most ? values[i] : most;
        }
        sum = lanes.Reduce(sum, Plus());
        if (s % 2 == 1) most = lanes.Reduce(most, [](uint32_t a, uint32_t b) { return a > b ? a : b; });
        if (lanes.Lane() == 0) {
            sums[s] = sum;
            greatest[s] = s % 2 == 1 ? most : 0u;
        }
    }
};

template <uint32_t kWidth>
std::vector<uint32_t> RunGroupSums(const Backend& backend, const std::vector<uint32_t>& values,
                                   const std::vector<uint32_t>& offsets) {
    const size_t items = offsets.size() - 1;
    Buffer<uint32_t> v(backend), o(backend), sums(backend), greatest(backend);
    v.Upload(Span<const uint32_t>(values));
    o.Upload(Span<const uint32_t>(offsets));
    sums.Resize(items);
    greatest.Resize(items);
    ParallelForGroups<kWidth>(backend, "group sums", items, GroupSumsPass{v.data(), o.data(), sums.data(), greatest.data()});
    std::vector<uint32_t> out = sums.Download(), most = greatest.Download();
    out.insert(out.end(), most.begin(), most.end());
    return out;
}

TEST(GroupLanesGpu, EqualsTheCpu) {
    CA_REQUIRE_GPU(gpu);
    std::vector<uint32_t> sizes;
    for (uint32_t i = 0; i < 3001; ++i) sizes.push_back((i * 7919u) % 70u);  // items of 0 to 69 values
    const std::vector<uint32_t> offsets = testing::SetOffsets(sizes);
    const auto values = testing::RandomValues<uint32_t>(offsets.back(), 22, 0, 100000);
    std::vector<uint32_t> expected(2 * sizes.size(), 0u);
    for (size_t s = 0; s < sizes.size(); ++s)
        for (uint32_t i = offsets[s]; i < offsets[s + 1]; ++i) {
            expected[s] += values[i];
            if (s % 2 == 1) expected[sizes.size() + s] = std::max(expected[sizes.size() + s], values[i]);
        }
    EXPECT_EQ(RunGroupSums<4>(Backend::Cpu(), values, offsets), expected);
    EXPECT_EQ(RunGroupSums<4>(gpu, values, offsets), expected);
    EXPECT_EQ(RunGroupSums<8>(gpu, values, offsets), expected);
    EXPECT_EQ(RunGroupSums<16>(gpu, values, offsets), expected);
}

}  // namespace
}  // namespace caustica
