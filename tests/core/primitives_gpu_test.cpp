// Every GPU primitive against its CPU twin on random inputs, sizes 0 to 100M.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "core/buffer.h"
#include "core/memory.h"
#include "core/primitives.h"
#include "core/readback.h"
#include "tests/core/primitive_reference.h"
#include "tests/test_support.h"

namespace caustica {
namespace {

using testing::RandomValues;

// 4096 and 4097: either side of the one-block scan's limit.
const std::vector<size_t> kSizes = {0, 1, 2, 3, 1023, 4096, 4097, 65537, 1000003, 16777217, 100000000};

template <class T>
Buffer<T> OnDevice(const Backend& gpu, const std::vector<T>& host) {
    Buffer<T> b(gpu);
    b.Upload(host);
    return b;
}

// The GPU's scan of counts with the total in an item after them (whatever it held is not added
// in), against the CPU's.
template <class T>
void ExpectScanTotalAsCpu(const Backend& cpu, const Backend& gpu, std::vector<T> counts) {
    counts.push_back(T(7));
    std::vector<T> expected = counts;
    Readback cpu_total(MemorySpace::Host, sizeof(T));
    const T total = ExclusiveScanTotal(cpu, Span<T>(expected), cpu_total);
    auto d = OnDevice(gpu, counts);
    Readback gpu_total(MemorySpace::Device, sizeof(T));
    EXPECT_EQ(ExclusiveScanTotal(gpu, d.span(), gpu_total), total);
    EXPECT_EQ(d.Download(), expected);
}

class PrimitivesGpu : public ::testing::TestWithParam<size_t> {
protected:
    Backend cpu = Backend::Cpu();
};

TEST_P(PrimitivesGpu, ExclusiveScanEqualsCpu) {
    CA_REQUIRE_GPU(gpu);
    const size_t n = GetParam();
    const auto in = RandomValues<uint32_t>(n, 21, 0, 100);
    ExpectScanTotalAsCpu(cpu, gpu, in);
    // Two counts in one 64-bit item, as the eye passes scan their children and diffuse ends.
    std::vector<uint64_t> packed(n);
    for (size_t i = 0; i < n; ++i) packed[i] = in[i] % 3 + (uint64_t(in[i] % 2) << 32);
    ExpectScanTotalAsCpu(cpu, gpu, packed);

    const auto f = RandomValues<float>(n, 22, 0.0f, 1.0f);
    std::vector<float> fexpected(n);
    ExclusiveScan<float>(cpu, f, Span<float>(fexpected));
    auto df = OnDevice(gpu, f);
    ExclusiveScan<float>(gpu, df.span(), df.span());
    const auto fgot = df.Download();
    for (size_t i = 0; i < n; i += 1 + n / 100000)
        ASSERT_NEAR(fgot[i], fexpected[i], 1e-4 * (fexpected[i] + 1)) << "at " << i;
}

TEST_P(PrimitivesGpu, ReduceEqualsCpu) {
    CA_REQUIRE_GPU(gpu);
    const size_t n = GetParam();
    const auto in = RandomValues<int32_t>(n, 23, -1000, 1000);
    auto d = OnDevice(gpu, in);
    for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Min, ReduceOp::Max})
        EXPECT_EQ(Reduce<int32_t>(gpu, d.span(), op), Reduce<int32_t>(cpu, in, op));
    const auto u = RandomValues<uint64_t>(n, 24, 0, 1u << 30);
    auto du = OnDevice(gpu, u);
    EXPECT_EQ(Reduce<uint64_t>(gpu, du.span(), ReduceOp::Sum), Reduce<uint64_t>(cpu, u, ReduceOp::Sum));
    const auto f = RandomValues<float>(n, 25, -1.0f, 1.0f);
    auto df = OnDevice(gpu, f);
    EXPECT_EQ(Reduce<float>(gpu, df.span(), ReduceOp::Max), Reduce<float>(cpu, f, ReduceOp::Max));
    EXPECT_NEAR(Reduce<float>(gpu, df.span(), ReduceOp::Sum), Reduce<float>(cpu, f, ReduceOp::Sum), 1e-3 * (1 + n / 1000.0));
}

TEST_P(PrimitivesGpu, CompactEqualsCpu) {
    CA_REQUIRE_GPU(gpu);
    const size_t n = GetParam();
    const auto in = RandomValues<uint32_t>(n, 26, 0, ~0u);
    const auto flags = RandomValues<uint8_t>(n, 27, 0, 1);
    std::vector<uint32_t> expected(n);
    const size_t expected_count = Compact<uint32_t>(cpu, in, flags, Span<uint32_t>(expected));
    expected.resize(expected_count);
    auto din = OnDevice(gpu, in);
    auto dflags = OnDevice(gpu, flags);
    Buffer<uint32_t> dout(gpu, n);
    const size_t count = Compact<uint32_t>(gpu, din.span(), dflags.span(), dout.span());
    ASSERT_EQ(count, expected_count);
    dout.Resize(count);
    EXPECT_EQ(dout.Download(), expected);
}

TEST_P(PrimitivesGpu, RadixSortPairsEqualsCpu) {
    CA_REQUIRE_GPU(gpu);
    const size_t n = GetParam();
    auto keys = RandomValues<uint32_t>(n, 28, 0, 5000);
    std::vector<uint32_t> values(n);
    std::iota(values.begin(), values.end(), 0u);
    auto dkeys = OnDevice(gpu, keys);
    auto dvalues = OnDevice(gpu, values);
    RadixSortPairs<uint32_t>(cpu, Span<uint32_t>(keys), Span<uint32_t>(values));
    RadixSortPairs<uint32_t>(gpu, dkeys.span(), dvalues.span());
    EXPECT_EQ(dkeys.Download(), keys);
    EXPECT_EQ(dvalues.Download(), values);

    auto keys64 = RandomValues<uint64_t>(n, 29, 0, ~uint64_t(0));
    std::iota(values.begin(), values.end(), 0u);
    auto dkeys64 = OnDevice(gpu, keys64);
    dvalues.Upload(values);
    RadixSortPairs<uint64_t>(cpu, Span<uint64_t>(keys64), Span<uint32_t>(values), 0, 48);
    RadixSortPairs<uint64_t>(gpu, dkeys64.span(), dvalues.span(), 0, 48);
    EXPECT_EQ(dkeys64.Download(), keys64);
    EXPECT_EQ(dvalues.Download(), values);
}

// The values in key order wherever the GPU's last pass left them, as the CPU's: 33 bits of 64-bit
// keys (five passes of CUB's eight bits, so the other buffer) and 32 bits of 32-bit keys (four).
TEST_P(PrimitivesGpu, SortValuesByKeyEqualsCpu) {
    CA_REQUIRE_GPU(gpu);
    const size_t n = GetParam();
    const auto expect_as_cpu = [&](auto keys, int end_bit) {
        using K = typename decltype(keys)::value_type;
        std::vector<uint32_t> values(n), alt(n + 1);
        std::iota(values.begin(), values.end(), 0u);
        auto dkeys = OnDevice(gpu, keys);
        auto dvalues = OnDevice(gpu, values);
        auto dalt = OnDevice(gpu, alt);
        const Span<uint32_t> expected = SortValuesByKey<K>(cpu, Span<K>(keys), Span<uint32_t>(values),
                                                           Span<uint32_t>(alt), 0, end_bit);
        const Span<uint32_t> sorted = SortValuesByKey<K>(gpu, dkeys.span(), dvalues.span(), dalt.span(), 0, end_bit);
        ASSERT_EQ(sorted.size(), n);
        EXPECT_TRUE(sorted.data() == dvalues.data() || sorted.data() == dalt.data());
        std::vector<uint32_t> got(n);
        CopyBytes(got.data(), MemorySpace::Host, sorted.data(), MemorySpace::Device, n * sizeof(uint32_t));
        EXPECT_EQ(got, std::vector<uint32_t>(expected.begin(), expected.end()));
    };
    expect_as_cpu(RandomValues<uint64_t>(n, 31, 0, (uint64_t(1) << 33) - 1), 33);
    expect_as_cpu(RandomValues<uint32_t>(n, 32, 0, ~0u), 32);
}

TEST_P(PrimitivesGpu, SegmentedReduceEqualsCpu) {
    CA_REQUIRE_GPU(gpu);
    const size_t n = GetParam();
    const auto in = RandomValues<uint32_t>(n, 30, 0, 1000);
    const auto offsets = testing::RandomSegments(n, 31);
    auto din = OnDevice(gpu, in);
    auto doffsets = OnDevice(gpu, offsets);
    std::vector<uint32_t> expected(offsets.size() - 1);
    Buffer<uint32_t> dout(gpu, offsets.size() - 1);
    for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Min, ReduceOp::Max}) {
        SegmentedReduce<uint32_t>(cpu, in, offsets, Span<uint32_t>(expected), op);
        SegmentedReduce<uint32_t>(gpu, din.span(), doffsets.span(), dout.span(), op);
        EXPECT_EQ(dout.Download(), expected);
    }
}

INSTANTIATE_TEST_SUITE_P(Sizes, PrimitivesGpu, ::testing::ValuesIn(kSizes));

}  // namespace
}  // namespace caustica
