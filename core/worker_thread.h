// One background host thread that runs one task at a time, so that two chains of passes can be
// issued at once. Each host thread queues its GPU work on its own default stream (the build uses
// per-thread default streams, core/backend.h), so the GPU overlaps the two chains where either
// leaves it idle. A task must use its own Backend: a backend's scratch serves one chain. Its tasks
// run on the CUDA device that was current on the thread that made it, so that a renderer made on
// one GPU's host thread keeps its second chain on that GPU (core/backend.h, Backend::Gpu).
//
// Either side spins (yielding the core) for up to kSpin before it sleeps on a hand-over, so that a
// frame hands its eye passes over and takes them back within microseconds: a sleeping thread took
// 40-90 us to wake while the GPU waited (docs/notes/frame-performance.md, what the GPU waits for).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace caustica {

class WorkerThread {
public:
    // Longer than a frame's hand-overs are apart at a benchmark's frame rates; an idle viewer sleeps.
    static constexpr std::chrono::milliseconds kSpin{10};

    WorkerThread();
    ~WorkerThread();  // waits for the running task
    WorkerThread(const WorkerThread&) = delete;
    WorkerThread& operator=(const WorkerThread&) = delete;

    // Starts task on the thread. A task still running (one whose Wait() was skipped because the
    // caller failed) is waited for first, and its error dropped: the caller's came first.
    void Start(std::function<void()> task);
    // Waits for the task and rethrows what it threw.
    void Wait();

private:
    void Loop();
    void WaitIdle(std::unique_lock<std::mutex>& lock);

    std::mutex mutex_;
    std::condition_variable changed_;
    std::function<void()> task_;
    // Written under mutex_ (so that a sleeper misses no change), read without it while spinning.
    std::atomic<bool> busy_{false}, stopping_{false};
    std::exception_ptr error_;
    int cuda_device_ = -1;  // the maker's current CUDA device; -1 where there is none
    std::thread thread_;
};

}  // namespace caustica
