// The CUDA stream a host thread queues its GPU work on: the thread's own default stream (a CUDA
// build compiles with per-thread default streams, core/backend.h), unless the thread works in a
// share of the GPU's SMs (core/sm_share.h), whose stream it queues on instead: a green context has
// no per-thread default stream. Every launch, copy, fill, CUB call and event of core takes its
// stream from here. As void* (cudaStream_t), so that host-only code needs no CUDA headers.
#pragma once

namespace caustica {

void* ThreadStream();

// Makes stream the calling thread's until the scope ends, then restores the one before.
class ThreadStreamScope {
public:
    explicit ThreadStreamScope(void* stream);
    ~ThreadStreamScope();
    ThreadStreamScope(const ThreadStreamScope&) = delete;
    ThreadStreamScope& operator=(const ThreadStreamScope&) = delete;

private:
    void* previous_;
};

}  // namespace caustica
