// PriorityStream: a stream of the device's highest priority, whose work a queue point orders after
// the work queued before it on the thread's own stream.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/buffer.h"
#include "core/pass_clock.h"
#include "core/primitives.h"
#include "core/readback.h"
#include "core/thread_stream.h"
#include "tests/test_support.h"

#if CAUSTICA_WITH_CUDA
#include <cuda_runtime.h>  // the first test asks the device itself
#endif

namespace caustica {
namespace {

#if CAUSTICA_WITH_CUDA
TEST(PriorityStreamGpu, HasTheDevicesHighestPriority) {
    CA_REQUIRE_GPU(gpu);
    const PriorityStream stream(gpu.IsGpu());
    ASSERT_NE(stream.get(), nullptr);
    int lowest = 0, highest = 0, priority = 0;
    ASSERT_EQ(cudaDeviceGetStreamPriorityRange(&lowest, &highest), cudaSuccess);
    ASSERT_EQ(cudaStreamGetPriority(static_cast<cudaStream_t>(stream.get()), &priority), cudaSuccess);
    EXPECT_EQ(priority, highest);
    EXPECT_EQ(PriorityStream(false).get(), nullptr);
}
#endif

// A scan of 16M items on the thread's stream, then its total read on the priority stream behind
// a queue point, three rounds.
TEST(PriorityStreamGpu, RunsAfterTheQueuePointItWaitsFor) {
    CA_REQUIRE_GPU(gpu);
    const size_t n = size_t(1) << 24;
    const PriorityStream stream(true);
    PassClock clock(gpu);
    Buffer<uint64_t> values(gpu);
    Readback total(MemorySpace::Device, sizeof(uint64_t));
    for (int round = 1; round <= 3; ++round) {
        values.Upload(std::vector<uint64_t>(n + 1, uint64_t(round)));
        ExclusiveScan(gpu, Span<const uint64_t>(values.span()), values.span());
        clock.Clear();
        const QueuePoint scanned = clock.Point(clock.Mark());
        {
            const ThreadStreamScope on_stream(stream.get());
            scanned.WaitHere();
            total.Start(values.data() + n, sizeof(uint64_t));
        }
        EXPECT_EQ(total.Wait<uint64_t>(), uint64_t(round) * n) << "round " << round;
    }
}

}  // namespace
}  // namespace caustica
