// Every primitive on the CPU backend against a plain loop, on sizes 0, 1, 2, odd sizes and
// millions of items.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "core/buffer.h"
#include "core/error.h"
#include "core/primitives.h"
#include "core/readback.h"
#include "tests/core/primitive_reference.h"

namespace caustica {
namespace {

using testing::RandomValues;

const std::vector<size_t> kSizes = {0, 1, 2, 3, 17, 255, 1000, 65537, 1000003, 4000000};

class PrimitivesCpu : public ::testing::TestWithParam<size_t> {
protected:
    Backend backend = Backend::Cpu();
};

TEST_P(PrimitivesCpu, ExclusiveScanMatchesLoop) {
    const size_t n = GetParam();
    auto in = RandomValues<uint32_t>(n, 1, 0, 1000);
    std::vector<uint32_t> out(n);
    ExclusiveScan<uint32_t>(backend, in, Span<uint32_t>(out));
    EXPECT_EQ(out, testing::ReferenceExclusiveScan(in));
    // In place, with the total in an item after the counts (whatever it holds is not added in).
    std::vector<uint32_t> inplace = in;
    inplace.push_back(12345);
    Readback readback(MemorySpace::Host, sizeof(uint32_t));
    const uint32_t total = ExclusiveScanTotal(backend, Span<uint32_t>(inplace), readback);
    EXPECT_EQ(total, std::accumulate(in.begin(), in.end(), uint32_t(0)));
    EXPECT_EQ(inplace.back(), total);
    inplace.pop_back();
    EXPECT_EQ(inplace, out);
}

TEST_P(PrimitivesCpu, ExclusiveScanFloatIsCloseToLoop) {
    const size_t n = GetParam();
    auto in = RandomValues<float>(n, 2, 0.0f, 1.0f);
    std::vector<float> out(n);
    ExclusiveScan<float>(backend, in, Span<float>(out));
    const auto ref = testing::ReferenceExclusiveScan(in);
    for (size_t i = 0; i < n; ++i) ASSERT_NEAR(out[i], ref[i], 1e-4 * (ref[i] + 1)) << "at " << i;
}

TEST(PrimitivesCpuLarge, FloatScanKeepsSmallItemsPastTwoToThe24) {
    // 40M items of 0.5: the running total passes 2^24, where adding 0.5 to a float total
    // one item at a time no longer changes it.
    Backend backend = Backend::Cpu();
    const size_t n = 40000000;
    std::vector<float> in(n, 0.5f), out(n);
    ExclusiveScan<float>(backend, in, Span<float>(out));
    EXPECT_NEAR(out[n - 1], 0.5 * double(n - 1), 1e-4 * 0.5 * double(n));
}

TEST_P(PrimitivesCpu, ReduceMatchesLoop) {
    const size_t n = GetParam();
    auto in = RandomValues<int32_t>(n, 3, -1000000, 1000000);
    for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Min, ReduceOp::Max})
        EXPECT_EQ(Reduce<int32_t>(backend, in, op), testing::ReferenceReduce(Span<const int32_t>(in), op));
    auto u64 = RandomValues<uint64_t>(n, 4, 0, uint64_t(1) << 40);
    EXPECT_EQ(Reduce<uint64_t>(backend, u64, ReduceOp::Sum), testing::ReferenceReduce(Span<const uint64_t>(u64), ReduceOp::Sum));
    auto f = RandomValues<float>(n, 5, -1.0f, 1.0f);
    EXPECT_EQ(Reduce<float>(backend, f, ReduceOp::Min), testing::ReferenceReduce(Span<const float>(f), ReduceOp::Min));
    EXPECT_EQ(Reduce<float>(backend, f, ReduceOp::Max), testing::ReferenceReduce(Span<const float>(f), ReduceOp::Max));
}

TEST_P(PrimitivesCpu, CompactMatchesLoop) {
    const size_t n = GetParam();
    auto in = RandomValues<uint32_t>(n, 6, 0, 1u << 30);
    auto flags = RandomValues<uint8_t>(n, 7, 0, 1);
    std::vector<uint32_t> out(n, 0xdeadbeef);
    const size_t count = Compact<uint32_t>(backend, in, flags, Span<uint32_t>(out));
    const auto ref = testing::ReferenceCompact(in, flags);
    ASSERT_EQ(count, ref.size());
    out.resize(count);
    EXPECT_EQ(out, ref);
}

TEST_P(PrimitivesCpu, RadixSortPairsIsStableAndMatchesStableSort) {
    const size_t n = GetParam();
    // Few distinct keys, so stability is visible through the values.
    auto keys = RandomValues<uint32_t>(n, 8, 0, 1000);
    std::vector<uint32_t> values(n);
    std::iota(values.begin(), values.end(), 0u);
    auto ref = testing::ReferenceSortPairs(keys, values);
    RadixSortPairs<uint32_t>(backend, Span<uint32_t>(keys), Span<uint32_t>(values));
    EXPECT_EQ(keys, ref.first);
    EXPECT_EQ(values, ref.second);

    auto keys64 = RandomValues<uint64_t>(n, 9, 0, ~uint64_t(0));
    std::iota(values.begin(), values.end(), 0u);
    auto ref64 = testing::ReferenceSortPairs(keys64, values);
    RadixSortPairs<uint64_t>(backend, Span<uint64_t>(keys64), Span<uint32_t>(values));
    EXPECT_EQ(keys64, ref64.first);
    EXPECT_EQ(values, ref64.second);
}

TEST_P(PrimitivesCpu, RadixSortPairsOnABitRange) {
    const size_t n = GetParam();
    auto keys = RandomValues<uint32_t>(n, 10, 0, ~0u);
    std::vector<uint32_t> values(n);
    std::iota(values.begin(), values.end(), 0u);
    // Sorting bits [4, 12) orders by that field alone, stably.
    std::vector<uint32_t> field(n);
    for (size_t i = 0; i < n; ++i) field[i] = (keys[i] >> 4) & 0xff;
    auto ref = testing::ReferenceSortPairs(field, values);
    RadixSortPairs<uint32_t>(backend, Span<uint32_t>(keys), Span<uint32_t>(values), 4, 12);
    EXPECT_EQ(values, ref.second);
}

TEST_P(PrimitivesCpu, SortValuesByKeyGivesTheValuesInKeyOrder) {
    const size_t n = GetParam();
    auto keys = RandomValues<uint64_t>(n, 13, 0, (uint64_t(1) << 33) - 1);
    std::vector<uint32_t> values(n), alt(n);
    std::iota(values.begin(), values.end(), 0u);
    const auto ref = testing::ReferenceSortPairs(keys, values);
    const Span<uint32_t> sorted =
        SortValuesByKey<uint64_t>(backend, Span<uint64_t>(keys), Span<uint32_t>(values), Span<uint32_t>(alt), 0, 33);
    ASSERT_EQ(sorted.size(), n);
    EXPECT_EQ(std::vector<uint32_t>(sorted.begin(), sorted.end()), ref.second);
}

TEST_P(PrimitivesCpu, SegmentedReduceMatchesLoop) {
    const size_t n = GetParam();
    auto in = RandomValues<float>(n, 11, -10.0f, 10.0f);
    const auto offsets = testing::RandomSegments(n, 12);
    std::vector<float> out(offsets.size() - 1);
    for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Min, ReduceOp::Max}) {
        SegmentedReduce<float>(backend, in, offsets, Span<float>(out), op);
        const auto ref = testing::ReferenceSegmentedReduce(Span<const float>(in), offsets, op);
        for (size_t s = 0; s < ref.size(); ++s) {
            if (std::isinf(ref[s]))  // the identity of an empty segment
                ASSERT_EQ(out[s], ref[s]) << "segment " << s;
            else
                ASSERT_NEAR(out[s], ref[s], 1e-3f) << "segment " << s;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Sizes, PrimitivesCpu, ::testing::ValuesIn(kSizes));

TEST(Buffer, GrowsByDoublingAndKeepsContents) {
    Backend backend = Backend::Cpu();
    Buffer<int> b(backend);
    b.Resize(3);
    for (int i = 0; i < 3; ++i) b.data()[i] = i + 1;
    EXPECT_EQ(b.capacity(), 3u);
    b.Resize(4);
    EXPECT_EQ(b.capacity(), 6u);
    EXPECT_EQ(b.data()[2], 3);
    const int* before = b.data();
    b.Resize(5);
    b.Resize(1);
    b.Resize(6);
    EXPECT_EQ(b.data(), before) << "no reallocation within the capacity";
    std::vector<int> host = {7, 8, 9};
    b.Upload(host);
    EXPECT_EQ(b.Download(), host);
}

TEST(Backend, UnknownDeviceIsAnInputError) {
    EXPECT_THROW(Backend::Create("tpu"), InputError);
    EXPECT_FALSE(Backend::Create("cpu").IsGpu());
    if (!CudaDeviceAvailable()) {
        EXPECT_THROW(Backend::Create("cuda"), InputError);
        EXPECT_FALSE(Backend::Create("auto").IsGpu());
    }
}

}  // namespace
}  // namespace caustica
