// Bytes read back from a backend's memory while the host goes on queuing work: Start queues the
// copy behind the GPU work this host thread has queued so far and returns at once; Wait returns the
// bytes once they have arrived. A builder that sizes its next step from a count can so queue the
// rest of the current step before it waits, and the GPU does not idle while the host wakes up; a
// renderer can queue its next frame while the last one's image travels. On the GPU the bytes land
// in page-locked memory, and then a one-block kernel writes the copy's number into it (mapped),
// which Wait watches: the host sees them as they land, where a copy engine's copy started about 5
// us after the kernel before it and an event's wait returned about 4 us after the copy
// (docs/notes/frame-performance.md, what the GPU waits for). The few bytes of a count are copied by
// that kernel too; more (an image) by a copy engine, which crosses the bus at its full speed. A
// one-block pass that computes the bytes may write them itself instead (StartFromPass), which saves
// the copy kernel's launch after it. On the CPU backend Start copies at once. One copy at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/memory.h"
#include "core/readback_target.h"

namespace caustica {

class Readback {
public:
    // space: where the bytes to read lie; capacity: the most bytes one copy reads.
    Readback(MemorySpace space, size_t capacity);
    ~Readback();
    Readback(const Readback&) = delete;
    Readback& operator=(const Readback&) = delete;

    size_t capacity() const { return capacity_; }

    void Start(const void* src, size_t bytes);
    // Start for a pass that writes the bytes itself: queue(target) queues that pass, which writes
    // 'bytes' bytes through target (ReadbackTarget::Write) from one thread.
    template <class Queue>
    void StartFromPass(size_t bytes, const Queue& queue) {
        queue(NextTarget(bytes));
        PassQueued();
    }
    // The bytes of the last Start (waits for them and reports GPU errors).
    const void* Wait();

    template <class T>
    T Wait() {
        T value;
        std::memcpy(&value, Wait(), sizeof(T));
        return value;
    }

private:
    ReadbackTarget NextTarget(size_t bytes);
    void PassQueued();

    MemorySpace space_;
    size_t capacity_;
    void* host_ = nullptr;         // the bytes; on the GPU page-locked and mapped
    void* device_view_ = nullptr;  // host_ as the GPU writes it
    uint32_t copies_ = 0;          // the number of the last copy, which the GPU writes after its bytes
    void* event_ = nullptr;        // the GPU copy's completion (a cudaEvent_t), for its errors
};

}  // namespace caustica
