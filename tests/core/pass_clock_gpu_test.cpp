// PassClock on the GPU: a mark of one thread's chain orders another thread's work behind it with
// no host wait for the GPU, and the time between two marks is the work's between them.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/buffer.h"
#include "core/pass_clock.h"
#include "core/primitives.h"
#include "core/readback.h"
#include "core/worker_thread.h"
#include "tests/test_support.h"

namespace caustica {
namespace {

// A second thread scans 16M items and marks its queue there without waiting for the scan; this
// thread then reads the scan's last item behind that mark's point. Its own queue would read it at once, the
// scan unfinished.
TEST(PassClockGpu, AnotherThreadsWorkWaitsForTheMark) {
    CA_REQUIRE_GPU(gpu);
    const size_t n = size_t(1) << 24;
    Buffer<uint64_t> values(gpu);
    const Backend scanner = gpu.Background();
    PassClock clock(scanner);
    WorkerThread worker;
    Readback readback(MemorySpace::Device, sizeof(uint64_t));
    for (int round = 0; round < 3; ++round) {
        values.Upload(std::vector<uint64_t>(n + 1, 3));
        gpu.Synchronize();  // the upload is this thread's: done before the other thread scans
        int before = 0, after = 0;
        QueuePoint scanned;
        worker.Start([&] {
            clock.Clear();
            before = clock.Mark();
            ExclusiveScan(scanner, Span<const uint64_t>(values.span()), values.span());
            after = clock.Mark();
            scanned = clock.Point(after);
        });
        worker.Wait();
        scanned.WaitHere();
        readback.Start(values.data() + n, sizeof(uint64_t));
        EXPECT_EQ(readback.Wait<uint64_t>(), 3ull * n) << "round " << round;
        EXPECT_GT(clock.Ms(before, after), 0.0) << "round " << round;
    }
}

}  // namespace
}  // namespace caustica
