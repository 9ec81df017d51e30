// Wall-clock timing of passes. Stop() first waits for the backend, so GPU work is counted.
#pragma once

#include <chrono>

#include "core/backend.h"

namespace caustica {

class Stopwatch {
public:
    explicit Stopwatch(const Backend& backend) : backend_(backend) { Restart(); }
    void Restart() {
        backend_.Synchronize();
        start_ = std::chrono::steady_clock::now();
    }
    // Milliseconds since the start, after all queued work has finished.
    double ElapsedMs() const {
        backend_.Synchronize();
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
    }

private:
    const Backend& backend_;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace caustica
