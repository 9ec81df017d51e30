#include "core/worker_thread.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

namespace caustica {
namespace {

TEST(WorkerThread, RunsEachTaskOnItsOwnThread) {
    WorkerThread worker;
    std::thread::id ran_on;
    int runs = 0;
    for (int i = 0; i < 3; ++i) {
        worker.Start([&] {
            ran_on = std::this_thread::get_id();
            ++runs;
        });
        worker.Wait();
        EXPECT_NE(ran_on, std::this_thread::get_id());
    }
    EXPECT_EQ(runs, 3);
}

TEST(WorkerThread, RunsBesideTheCaller) {
    WorkerThread worker;
    std::atomic<bool> caller_done{false}, task_saw_caller{false};
    worker.Start([&] {
        while (!caller_done.load()) std::this_thread::yield();
        task_saw_caller = true;
    });
    caller_done = true;  // the task can only finish once the caller got here
    worker.Wait();
    EXPECT_TRUE(task_saw_caller.load());
}

TEST(WorkerThread, WaitRethrowsTheTasksError) {
    WorkerThread worker;
    worker.Start([] { throw std::runtime_error("task failed"); });
    EXPECT_THROW(worker.Wait(), std::runtime_error);
    worker.Start([] {});  // the error was taken: the next task starts clean
    EXPECT_NO_THROW(worker.Wait());
}

TEST(WorkerThread, StartWaitsForATaskNobodyWaitedFor) {
    WorkerThread worker;
    std::atomic<int> finished{0};
    worker.Start([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        finished = 1;
        throw std::runtime_error("dropped");
    });
    worker.Start([&] { finished = finished.load() == 1 ? 2 : -1; });
    worker.Wait();
    EXPECT_EQ(finished.load(), 2);
}

TEST(WorkerThread, DestructorWaitsForTheTask) {
    std::atomic<bool> finished{false};
    {
        WorkerThread worker;
        worker.Start([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            finished = true;
        });
    }
    EXPECT_TRUE(finished.load());
}

}  // namespace
}  // namespace caustica
