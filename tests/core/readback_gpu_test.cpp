// Readback from the GPU: the bytes arrive behind the work queued before Start (a scan of 16M
// items and a fill), with no Synchronize in between.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/buffer.h"
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

}  // namespace
}  // namespace caustica
