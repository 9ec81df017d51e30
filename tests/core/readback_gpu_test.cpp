// Readback from the GPU: the bytes arrive behind the work queued before Start (a scan of 16M
// items and a fill), with no Synchronize in between, a few bytes and megabytes alike, and those a
// pass writes itself once it has computed them. A launch unit.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/buffer.h"
#include "core/parallel_for.h"
#include "core/primitives.h"
#include "core/readback.h"
#include "tests/test_support.h"

namespace caustica {
namespace {

TEST(ReadbackGpu, WaitsForTheWorkQueuedBeforeIt) {
    CA_REQUIRE_GPU(gpu);
    const size_t n = size_t(1) << 24;
    Buffer<uint64_t> values(gpu);
    values.Upload(std::vector<uint64_t>(n + 1, 3));
    Readback readback(MemorySpace::Device, sizeof(uint64_t));
    for (int round = 0; round < 3; ++round) {
        ExclusiveScan(gpu, Span<const uint64_t>(values.span()), values.span());
        readback.Start(values.data() + n, sizeof(uint64_t));
        EXPECT_EQ(readback.Wait<uint64_t>(), 3ull * n) << "round " << round;
        values.FillBytes(0);
        readback.Start(values.data() + n, sizeof(uint64_t));
        EXPECT_EQ(readback.Wait<uint64_t>(), 0u) << "round " << round;
        values.Upload(std::vector<uint64_t>(n + 1, 3));
    }
}

// More than a few bytes (here 8 MiB) go through a copy engine, and still arrive behind the work
// queued before Start.
TEST(ReadbackGpu, LargeCopiesWaitForTheWorkQueuedBeforeThem) {
    CA_REQUIRE_GPU(gpu);
    const size_t n = size_t(1) << 20;
    Buffer<uint64_t> values(gpu);
    Readback readback(MemorySpace::Device, n * sizeof(uint64_t));
    for (int round = 0; round < 3; ++round) {
        values.Upload(std::vector<uint64_t>(n, uint64_t(round + 1)));
        ExclusiveScan(gpu, Span<const uint64_t>(values.span()), values.span());
        readback.Start(values.data(), n * sizeof(uint64_t));
        values.FillBytes(0);  // queued behind the copy
        const uint64_t* got = static_cast<const uint64_t*>(readback.Wait());
        size_t wrong = 0;
        for (size_t i = 0; i < n; ++i) wrong += got[i] != uint64_t(round + 1) * i;
        EXPECT_EQ(wrong, 0u) << "round " << round;
    }
}

// The sum of n items, by one thread, to the host.
struct SumToHostPass {
    const uint64_t* values;
    size_t n;
    ReadbackTarget to_host;
    CA_HD void operator()(int) const {
        uint64_t sum = 0;
        for (size_t i = 0; i < n; ++i) sum += values[i];
        to_host.Write(sum);
    }
};

TEST(ReadbackGpu, BytesAPassWritesItselfArriveOnceWritten) {
    CA_REQUIRE_GPU(gpu);
    const size_t n = size_t(1) << 16;
    Buffer<uint64_t> values(gpu);
    values.Upload(std::vector<uint64_t>(n, 3));
    Readback readback(MemorySpace::Device, sizeof(uint64_t));
    for (int round = 0; round < 3; ++round) {
        ExclusiveScan(gpu, Span<const uint64_t>(values.span()), values.span());  // 0, 3, 6, ...
        readback.StartFromPass(sizeof(uint64_t), [&](const ReadbackTarget& to_host) {
            ParallelFor(gpu, "sum to host", 1, SumToHostPass{values.data(), n, to_host});
        });
        EXPECT_EQ(readback.Wait<uint64_t>(), 3ull * n * (n - 1) / 2) << "round " << round;
        values.Upload(std::vector<uint64_t>(n, 3));
        readback.Start(values.data(), sizeof(uint64_t));  // the two ways take turns
        EXPECT_EQ(readback.Wait<uint64_t>(), 3u) << "round " << round;
    }
}

}  // namespace
}  // namespace caustica
