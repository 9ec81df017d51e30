// The run-time choice of where per-item work runs: the CPU (oneTBB) or a CUDA GPU.
//
// A Backend is chosen once from --device auto|cpu|cuda and passed to every pass. It owns the
// scratch memory that the parallel primitives need (grown by doubling, reused). GPU work is queued
// on the issuing host thread's stream (core/thread_stream.h: its default stream, as a CUDA build
// compiles everything with per-thread default streams, or the stream of a share of the SMs it
// works in), so the passes one thread issues run in its order, and the passes of two threads may
// overlap (core/worker_thread.h). A GPU backend serves one device, the issuing
// thread's current one: several GPUs take one host thread each, each with its own backend (Gpu).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace caustica {

enum class DeviceKind { Cpu, Cuda };

class Backend {
public:
    // choice: "auto" (CUDA when a device is present), "cpu" or "cuda". Asking for "cuda" where
    // there is none (no device, or a build without CUDA) is an InputError.
    static Backend Create(const std::string& choice);
    static Backend Cpu();
    // CUDA device number 'device' (0 to CudaDeviceCount() - 1, as CUDA numbers the visible
    // ones), made the calling thread's current device: the thread that makes it issues its work.
    // A number out of range, or a build without CUDA, is an InputError naming --gpus.
    static Backend Gpu(int device);

    Backend(Backend&&) noexcept;
    Backend& operator=(Backend&&) noexcept;
    ~Backend();

    DeviceKind kind() const { return kind_; }
    bool IsGpu() const { return kind_ == DeviceKind::Cuda; }
    // "cpu" or "cuda", as on the command line.
    const char* Name() const { return IsGpu() ? "cuda" : "cpu"; }
    // A human description: the GPU's name and compute capability, or the CPU thread count.
    std::string Describe() const;
    // The CUDA device number of a GPU backend; -1 on the CPU.
    int device() const { return device_; }

    // Another backend on the same device with its own scratch, for a chain of passes that a
    // second host thread issues while this one's run (core/worker_thread.h). Its GPU launches
    // take the lowest priority, this one's the highest, so the background chain fills the SMs
    // that this one leaves idle rather than slowing it down.
    Backend Background() const;
    // Another backend on the same device with its own scratch and this one's launch priority, for
    // a chain that a third host thread issues (the next frame's geometry, renderer/frame_renderer.h).
    Backend Sibling() const;
    // The priority of this backend's kernel launches (core/launch.h; lower numbers go first).
    int LaunchPriority() const { return launch_priority_; }
    // Whether it is a Background() backend.
    bool IsBackground() const { return background_; }

    // Waits until the GPU work this host thread queued has finished (no-op on the CPU) and reports
    // launch errors.
    void Synchronize() const;

    // Temporary memory on this backend's device, valid until the next call. Grows by doubling.
    void* Scratch(size_t bytes) const;

    // Status words for one GPU pass whose tiles take their prefix from their predecessors
    // (core/parallel_for_ranked.h): word 0 hands out tile numbers, and tile t's status is word
    // 1 + t. Each use gets a new tag and the first tile number it will be handed; words carry the
    // tag of the use that wrote them, so no use needs to clear them first.
    struct LookbackStatus {
        unsigned long long* words;
        uint32_t tag;
        unsigned long long first_tile;
    };
    LookbackStatus Lookback(size_t tiles) const;

private:
    enum class Priority { Highest, Lowest };
    Backend(DeviceKind kind, Priority priority, int device);
    struct ScratchMemory;

    DeviceKind kind_;
    int device_ = -1;
    int launch_priority_ = 0;
    bool background_ = false;
    std::unique_ptr<ScratchMemory> scratch_;
};

// True when this build has the CUDA backend and a CUDA device can be used.
bool CudaDeviceAvailable();
// The stream priorities of the calling thread's current CUDA device (lower numbers go first): the
// range of launch priorities (core/launch.h) and of streams. Both 0 in a build without CUDA.
struct StreamPriorities {
    int lowest = 0, highest = 0;
};
StreamPriorities CurrentDeviceStreamPriorities();
// The CUDA devices this process can use (0 without the CUDA backend or a device).
int CudaDeviceCount();
// CUDA device number 'device' as Backend::Describe says it: its name, compute capability, SMs and
// memory.
std::string DescribeCudaDevice(int device);

}  // namespace caustica
