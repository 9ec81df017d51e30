// PassClock on the CPU: marks are the host's clock (the CPU's passes are done when they return).
#include "core/pass_clock.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "core/error.h"

namespace caustica {
namespace {

TEST(PassClock, MeasuresBetweenMarks) {
    PassClock clock(Backend::Cpu());
    for (int round = 0; round < 2; ++round) {  // the second round reuses the first's marks
        clock.Clear();
        const int a = clock.Mark();
        std::this_thread::sleep_for(std::chrono::milliseconds(3));
        const int b = clock.Mark();
        const int c = clock.Mark();
        EXPECT_EQ(a, 0);
        EXPECT_GE(clock.Ms(a, b), 3.0) << "round " << round;
        EXPECT_LT(clock.Ms(b, c), 3.0) << "round " << round;
        EXPECT_EQ(clock.Ms(a, a), 0.0);
        clock.Point(c).WaitHere();  // the CPU's work is done: nothing to wait for
    }
}

TEST(PassClock, RefusesMarksItHasNot) {
    PassClock clock(Backend::Cpu());
    const int a = clock.Mark();
    const int b = clock.Mark();
    EXPECT_THROW(clock.Ms(b, a), RuntimeError);
    EXPECT_THROW(clock.Ms(a, b + 1), RuntimeError);
    EXPECT_THROW(clock.Point(-1), RuntimeError);
    clock.Clear();
    EXPECT_THROW(clock.Ms(a, a), RuntimeError);
}

}  // namespace
}  // namespace caustica
