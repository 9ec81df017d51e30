// The times of a chain of passes, taken without the host waiting for them: Mark() notes where the
// issuing thread's queue stands (a CUDA event on its stream on the GPU; on the CPU, whose passes
// are done when they return, the host's clock), and Ms() reads the time between two marks once
// the later one is reached. A pass timed by waiting for the GPU left it idle until the host queued
// the next pass (docs/notes/frame-performance.md, what the GPU waits for).
//
// A mark also orders two threads' chains on the GPU: its QueuePoint makes another thread's queue
// wait for it, where the host would wait for the whole chain.
#pragma once

#include <chrono>
#include <vector>

#include "core/backend.h"

namespace caustica {

// A point in one thread's queue (a PassClock's mark) that another thread's queue can wait for.
class QueuePoint {
public:
    // The work the calling thread queues next starts after the point is reached (on the CPU, whose
    // work is done when it returns, it is).
    void WaitHere() const;

private:
    friend class PassClock;
    void* event_ = nullptr;  // a cudaEvent_t; none on the CPU
};

class PassClock {
public:
    explicit PassClock(const Backend& backend);
    ~PassClock();
    PassClock(const PassClock&) = delete;
    PassClock& operator=(const PassClock&) = delete;

    // Forgets the marks; their events serve the next ones.
    void Clear();
    // Notes where the calling thread's queue stands; returns the mark's number.
    int Mark();
    // Milliseconds from mark 'from' to mark 'to' (waits until 'to' is reached).
    double Ms(int from, int to) const;
    // Where the queue stood at 'mark', for another thread's queue to wait for; it holds until the
    // mark is made anew (after Clear).
    QueuePoint Point(int mark) const;

private:
    bool gpu_;
    int marks_ = 0;
    std::vector<void*> events_;  // the GPU's marks (cudaEvent_t)
    std::vector<std::chrono::steady_clock::time_point> times_;  // the CPU's marks
};

}  // namespace caustica
