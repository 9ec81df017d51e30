#include "core/background_jobs.h"

#include <algorithm>
#include <utility>

namespace caustica {

BackgroundJobs::BackgroundJobs(int threads, int most_waiting) : most_waiting_(size_t(std::max(most_waiting, 1))) {
    for (int t = 0; t < std::max(threads, 1); ++t) threads_.emplace_back([this] { Loop(); });
}

BackgroundJobs::~BackgroundJobs() {
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    changed_.notify_all();
    for (std::thread& thread : threads_) thread.join();
}

void BackgroundJobs::RethrowError() {
    if (error_) std::rethrow_exception(error_);
}

void BackgroundJobs::Add(std::function<void()> job) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return error_ || waiting_.size() < most_waiting_; });
    RethrowError();
    waiting_.push_back(std::move(job));
    lock.unlock();
    changed_.notify_all();
}

void BackgroundJobs::Finish() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return waiting_.empty() && running_ == 0; });
    RethrowError();
}

void BackgroundJobs::Loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        changed_.wait(lock, [this] { return !waiting_.empty() || stopping_; });
        if (waiting_.empty()) return;  // stopping, and nothing left to run
        std::function<void()> job = std::move(waiting_.front());
        waiting_.pop_front();
        ++running_;
        lock.unlock();
        changed_.notify_all();  // a slot is free for Add
        std::exception_ptr failed;
        try {
            job();
        } catch (...) {
            failed = std::current_exception();
        }
        job = nullptr;  // what it holds (a frame) goes before the next one comes
        lock.lock();
        --running_;
        if (failed && !error_) {
            error_ = failed;
            waiting_.clear();  // the first error ends the work
        }
        changed_.notify_all();
    }
}

}  // namespace caustica
