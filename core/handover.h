// A value that one thread hands to another mid-task. Each hand-over has a number: Expect(n) opens
// hand-over n before its giving task starts; Give(n, value) fills it, once (so a task may give a
// fallback on its way out, whatever it gave before); a Give for another number, from a task of an
// earlier hand-over still running, is dropped. Take waits until the open hand-over is filled.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace caustica {

template <class T>
class Handover {
public:
    void Expect(uint64_t number) {
        const std::lock_guard<std::mutex> lock(mutex_);
        number_ = number;
        given_ = false;
    }
    void Give(uint64_t number, const T& value) {
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            if (given_ || number != number_) return;
            value_ = value;
            given_ = true;
        }
        changed_.notify_all();
    }
    T Take() {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [this] { return given_; });
        return value_;
    }

private:
    std::mutex mutex_;
    std::condition_variable changed_;
    T value_{};
    uint64_t number_ = 0;
    bool given_ = false;
};

}  // namespace caustica
