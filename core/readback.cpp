#include "core/readback.h"

#include <atomic>
#include <cstdlib>

#include "core/error.h"

#if CAUSTICA_WITH_CUDA
#include "core/cuda_check.h"
#include "core/readback_cuda.h"
#endif

namespace caustica {
#if CAUSTICA_WITH_CUDA
namespace {

// Where the copy's number lies after the bytes (its own cache line).
size_t NumberOffset(size_t capacity) { return (capacity + 63) / 64 * 64; }

// Copies up to this many bytes (counts and sizes: tens of bytes) go through the number's kernel,
// whose one block writes them over the bus; larger ones go through a copy engine first.
constexpr size_t kKernelCopyBytes = 4096;

}  // namespace
#endif

Readback::Readback(MemorySpace space, size_t capacity) : space_(space), capacity_(capacity) {
    CA_CHECK_MSG(capacity > 0, "a read-back needs room for at least one byte");
    if (space == MemorySpace::Host) {
        host_ = AllocateBytes(MemorySpace::Host, capacity);
        return;
    }
#if CAUSTICA_WITH_CUDA
    const size_t bytes = NumberOffset(capacity) + sizeof(uint32_t);
    CA_CUDA_CHECK(cudaHostAlloc(&host_, bytes, cudaHostAllocMapped | cudaHostAllocPortable));
    std::memset(host_, 0, bytes);
    CA_CUDA_CHECK(cudaHostGetDevicePointer(&device_view_, host_, 0));
    cudaEvent_t event = nullptr;
    CA_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    event_ = event;
#else
    throw RuntimeError("device read-back requested in a build without CUDA");
#endif
}

Readback::~Readback() {
    if (space_ == MemorySpace::Host) {
        FreeBytes(MemorySpace::Host, host_);
        return;
    }
#if CAUSTICA_WITH_CUDA
    cudaEventDestroy(static_cast<cudaEvent_t>(event_));  // never throws: a destructor
    cudaFreeHost(host_);
#endif
}

void Readback::Start(const void* src, size_t bytes) {
    if (space_ == MemorySpace::Host) {
        std::memcpy(NextTarget(bytes).bytes, src, bytes);
        return;
    }
#if CAUSTICA_WITH_CUDA
    const ReadbackTarget target = NextTarget(bytes);
    const bool by_copy_engine = bytes > kKernelCopyBytes;
    if (by_copy_engine) CA_CUDA_CHECK(cudaMemcpyAsync(host_, src, bytes, cudaMemcpyDeviceToHost, ThreadCudaStream()));
    gpu::CopyToHost(target.bytes, src, by_copy_engine ? 0 : bytes, target.number, target.copy);
    PassQueued();
#endif
}

ReadbackTarget Readback::NextTarget(size_t bytes) {
    CA_CHECK_MSG(bytes <= capacity_, "read-back of ", bytes, " bytes into room for ", capacity_);
#if CAUSTICA_WITH_CUDA
    if (space_ == MemorySpace::Device) {
        ++copies_;
        return ReadbackTarget{device_view_,
                              reinterpret_cast<uint32_t*>(static_cast<char*>(device_view_) + NumberOffset(capacity_)),
                              copies_};
    }
#endif
    return ReadbackTarget{host_, nullptr, 0};
}

void Readback::PassQueued() {
#if CAUSTICA_WITH_CUDA
    if (space_ == MemorySpace::Device)
        CA_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(event_), ThreadCudaStream()));
#endif
}

const void* Readback::Wait() {
#if CAUSTICA_WITH_CUDA
    if (space_ == MemorySpace::Device) {
        const volatile uint32_t* number =
            reinterpret_cast<const volatile uint32_t*>(static_cast<const char*>(host_) + NumberOffset(capacity_));
        // Watch the number; now and then ask the event, which reports the GPU's errors (a kernel
        // before the copy that failed would otherwise leave the host watching for ever).
        for (int look = 1; *number != copies_; ++look) {
            if (look % 64 != 0) continue;
            const cudaError_t state = cudaEventQuery(static_cast<cudaEvent_t>(event_));
            if (state == cudaErrorNotReady) continue;
            CA_CUDA_CHECK(state);
            CA_CHECK_MSG(*number == copies_, "read-back ", copies_, " done on the GPU but not in host memory");
        }
        std::atomic_thread_fence(std::memory_order_acquire);  // the bytes after the number
    }
#endif
    return host_;
}

}  // namespace caustica
