// Jobs that run on a few host threads of their own while the caller goes on: a sequence's frames
// are encoded and written while the devices render the next ones (written in turn, a 1080p frame
// took about 0.3 s whatever its samples, a GPU sample about 5 ms: docs/notes/frame-performance.md,
// sequences). The queue is bounded, so that a caller faster than the jobs waits instead of holding
// every finished frame in memory. The first job that throws ends the work: the jobs still waiting
// are dropped, and its error is rethrown to the caller (by the next Add, and by Finish).
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace caustica {

class BackgroundJobs {
public:
    // threads: jobs run at once (at least 1); most_waiting: jobs queued behind them before Add
    // blocks (at least 1).
    BackgroundJobs(int threads, int most_waiting);
    // Runs the jobs still queued to their end (their errors dropped: the caller's came first).
    ~BackgroundJobs();
    BackgroundJobs(const BackgroundJobs&) = delete;
    BackgroundJobs& operator=(const BackgroundJobs&) = delete;

    // Queues job, waiting while most_waiting jobs wait; rethrows a failed job's error instead.
    // Callable from several threads at once.
    void Add(std::function<void()> job);
    // Waits until every queued job has run, then rethrows the first failed job's error.
    void Finish();

private:
    void Loop();
    void RethrowError();  // under mutex_

    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<std::function<void()>> waiting_;
    size_t most_waiting_;
    int running_ = 0;
    bool stopping_ = false;
    std::exception_ptr error_;
    std::vector<std::thread> threads_;
};

}  // namespace caustica
