// The CUDA stream a host thread queues its GPU work on: the thread's own default stream (a CUDA
// build compiles with per-thread default streams, core/backend.h), unless the thread works in a
// share of the GPU's SMs (core/sm_share.h), whose stream it queues on instead: a green context has
// no per-thread default stream. Every launch, copy, fill, CUB call and event of core takes its
// stream from here. As void* (cudaStream_t), so that host-only code needs no CUDA headers.
#pragma once

namespace caustica {

void* ThreadStream();
// The SMs that the work queued on ThreadStream() may run on where that is a share's stream
// (core/sm_share.h); 0 where it may run on every SM of the device.
int ThreadStreamSms();

// A share's stream and the SMs that work queued on it runs on, named while the share lives
// (SmShares names its own), so that a ThreadStreamScope on that stream knows its SMs.
void NameShareStream(void* stream, int sms);
void ForgetShareStream(void* stream);

// A stream of its own, of the highest priority of the calling thread's current device, for a chain
// of passes that others run beside: the project's kernels take their backend's priority at each
// launch (core/launch.h), but CUB's kernels and the fills take their stream's, which on a thread's
// default stream is the lowest, so they queued behind the blocks of a lower chain's kernels
// launched before them (docs/notes/frame-performance.md, the photon chain's stream). get() is null
// in a build without CUDA or where gpu is false.
class PriorityStream {
public:
    explicit PriorityStream(bool gpu);
    ~PriorityStream();
    PriorityStream(const PriorityStream&) = delete;
    PriorityStream& operator=(const PriorityStream&) = delete;

    void* get() const { return stream_; }

private:
    void* stream_ = nullptr;
};

// Makes stream the calling thread's until the scope ends, then restores the one before; with it the
// SMs of its share where it is a named share's stream (NameShareStream), for the grids sized to what
// the SMs hold at once (ParallelForPaths), else every SM of the device.
class ThreadStreamScope {
public:
    explicit ThreadStreamScope(void* stream);
    ~ThreadStreamScope();
    ThreadStreamScope(const ThreadStreamScope&) = delete;
    ThreadStreamScope& operator=(const ThreadStreamScope&) = delete;

private:
    void* previous_;
    int previous_sms_;
};

}  // namespace caustica
