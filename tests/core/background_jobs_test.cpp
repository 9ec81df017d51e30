#include "core/background_jobs.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <stdexcept>
#include <thread>

namespace caustica {
namespace {

TEST(BackgroundJobs, RunsEveryJobOnItsOwnThreads) {
    std::atomic<int> runs{0};
    std::mutex mutex;
    std::set<std::thread::id> ran_on;
    BackgroundJobs jobs(3, 2);
    for (int i = 0; i < 50; ++i)
        jobs.Add([&] {
            ++runs;
            const std::lock_guard<std::mutex> lock(mutex);
            ran_on.insert(std::this_thread::get_id());
        });
    jobs.Finish();
    EXPECT_EQ(runs, 50);
    EXPECT_EQ(ran_on.count(std::this_thread::get_id()), 0u);
    EXPECT_LE(ran_on.size(), 3u);
}

// Add waits while most_waiting jobs wait: with one thread held up, the second Add beyond it
// returns only once the held job ends.
TEST(BackgroundJobs, AddWaitsWhileTheQueueIsFull) {
    std::atomic<bool> release{false}, started{false};
    BackgroundJobs jobs(1, 1);
    jobs.Add([&] {
        started = true;
        while (!release) std::this_thread::yield();
    });
    while (!started) std::this_thread::yield();
    jobs.Add([] {});  // waits in the queue's one place
    std::atomic<bool> third_added{false};
    std::thread adder([&] {
        jobs.Add([] {});
        third_added = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(third_added);
    release = true;
    adder.join();
    EXPECT_TRUE(third_added);
    jobs.Finish();
}

TEST(BackgroundJobs, TheFirstErrorIsRethrownAndEndsTheWork) {
    std::atomic<int> later_runs{0};
    std::atomic<bool> release{false};
    BackgroundJobs jobs(1, 4);
    jobs.Add([&] {
        while (!release) std::this_thread::yield();
        throw std::runtime_error("disk full");
    });
    for (int i = 0; i < 3; ++i) jobs.Add([&] { ++later_runs; });
    release = true;
    try {
        jobs.Finish();
        FAIL() << "Finish returned after a job failed";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "disk full");
    }
    EXPECT_EQ(later_runs, 0);  // the jobs that waited were dropped
    EXPECT_THROW(jobs.Add([&] { ++later_runs; }), std::runtime_error);  // and no job is queued
    EXPECT_THROW(jobs.Finish(), std::runtime_error);
    EXPECT_EQ(later_runs, 0);
}

TEST(BackgroundJobs, TheDestructorRunsTheQueuedJobs) {
    std::atomic<int> runs{0};
    {
        BackgroundJobs jobs(2, 8);
        for (int i = 0; i < 8; ++i)
            jobs.Add([&] {
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
                ++runs;
            });
    }
    EXPECT_EQ(runs, 8);
}

}  // namespace
}  // namespace caustica
