// A GPU's SMs in two shares (green contexts, CUDA 12.4 and later), each with a stream: work queued
// on a share's stream runs on its SMs alone. A chain of short launches (a tree build) then keeps
// SMs of its own while a grid that fills the GPU (the caustic search) runs on the rest, where
// without the split every SM would be full of the grid's blocks until its last wave. A thread
// queues its work on a share by entering its stream with a ThreadStreamScope (core/thread_stream.h).
#pragma once

#include <memory>

namespace caustica {

// The SMs of CUDA device 'device' (0 in a build without CUDA).
int SmCount(int device);
// The SMs that the work queued on the calling thread's stream runs on: its share's where the thread
// works in one (ThreadStreamSms, core/thread_stream.h), else all of device's. Grids that are sized
// to what the SMs hold at once are sized to these.
int ThreadStreamSmCount(int device);

class SmShares {
public:
    // The first share gets at least first_sms SMs of CUDA device 'device' (the driver rounds up to
    // its granularity), the second the rest. A RuntimeError says why where the device, the driver
    // or a build without CUDA cannot split.
    SmShares(int device, int first_sms);
    ~SmShares();
    SmShares(const SmShares&) = delete;
    SmShares& operator=(const SmShares&) = delete;

    int FirstSms() const;
    int SecondSms() const;
    void* FirstStream() const;  // cudaStream_t
    void* SecondStream() const;
    // Waits until the work queued on both shares has finished; reports GPU errors.
    void Synchronize() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace caustica
