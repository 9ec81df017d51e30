#include "core/worker_thread.h"

#include <utility>

namespace caustica {

WorkerThread::WorkerThread() : thread_([this] { Loop(); }) {}

WorkerThread::~WorkerThread() {
    {
        std::unique_lock<std::mutex> lock(mutex_);
        WaitIdle(lock);
        stopping_ = true;
    }
    changed_.notify_all();
    thread_.join();
}

void WorkerThread::WaitIdle(std::unique_lock<std::mutex>& lock) {
    changed_.wait(lock, [this] { return !busy_; });
}

void WorkerThread::Start(std::function<void()> task) {
    {
        std::unique_lock<std::mutex> lock(mutex_);
        WaitIdle(lock);
        task_ = std::move(task);
        error_ = nullptr;
        busy_ = true;
    }
    changed_.notify_all();
}

void WorkerThread::Wait() {
    std::exception_ptr error;
    {
        std::unique_lock<std::mutex> lock(mutex_);
        WaitIdle(lock);
        std::swap(error, error_);
    }
    if (error) std::rethrow_exception(error);
}

void WorkerThread::Loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        changed_.wait(lock, [this] { return busy_ || stopping_; });
        if (!busy_) return;  // stopping, and nothing left to run
        std::function<void()> task = std::move(task_);
        lock.unlock();
        std::exception_ptr error;
        try {
            task();
        } catch (...) {
            error = std::current_exception();
        }
        lock.lock();
        error_ = error;
        busy_ = false;
        changed_.notify_all();
    }
}

}  // namespace caustica
