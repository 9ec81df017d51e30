#include "core/handover.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "core/worker_thread.h"

namespace caustica {
namespace {

// The taker gets the value the task gave mid-way, while the task still runs.
TEST(Handover, TakeReturnsWhatTheTaskGaveWhileItRuns) {
    Handover<int> handover, release;
    WorkerThread worker;
    handover.Expect(1);
    release.Expect(1);
    worker.Start([&] {
        handover.Give(1, 7);
        release.Take();  // the task goes on until the taker has its value
    });
    EXPECT_EQ(handover.Take(), 7);
    release.Give(1, 1);
    worker.Wait();
}

// The first Give wins: a fallback given on the task's way out changes nothing, and stands in
// where the task failed before it gave.
TEST(Handover, TheFirstGiveWinsSoAFallbackServesAFailedTask) {
    Handover<int> handover;
    WorkerThread worker;
    handover.Expect(1);
    worker.Start([&] {
        handover.Give(1, 3);
        handover.Give(1, -1);
    });
    worker.Wait();
    EXPECT_EQ(handover.Take(), 3);

    handover.Expect(2);
    worker.Start([&] {
        struct Fallback {
            Handover<int>& h;
            ~Fallback() { h.Give(2, -1); }
        } fallback{handover};
        throw std::runtime_error("failed before giving");
    });
    EXPECT_EQ(handover.Take(), -1);
    EXPECT_THROW(worker.Wait(), std::runtime_error);
}

// A late Give of an earlier hand-over does not fill the open one.
TEST(Handover, AnEarlierHandOversGiveIsDropped) {
    Handover<int> handover;
    handover.Expect(5);
    handover.Give(4, 40);
    handover.Give(5, 50);
    EXPECT_EQ(handover.Take(), 50);
}

}  // namespace
}  // namespace caustica
