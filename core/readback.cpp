#include "core/readback.h"

#include <cstdlib>

#include "core/error.h"

#if CAUSTICA_WITH_CUDA
#include "core/cuda_check.h"
#endif

namespace caustica {

Readback::Readback(MemorySpace space, size_t capacity) : space_(space), capacity_(capacity) {
    CA_CHECK_MSG(capacity > 0, "a read-back needs room for at least one byte");
    if (space == MemorySpace::Host) {
        host_ = AllocateBytes(MemorySpace::Host, capacity);
        return;
    }
#if CAUSTICA_WITH_CUDA
    CA_CUDA_CHECK(cudaMallocHost(&host_, capacity));
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
    CA_CHECK_MSG(bytes <= capacity_, "read-back of ", bytes, " bytes into room for ", capacity_);
    if (space_ == MemorySpace::Host) {
        std::memcpy(host_, src, bytes);
        return;
    }
#if CAUSTICA_WITH_CUDA
    CA_CUDA_CHECK(cudaMemcpyAsync(host_, src, bytes, cudaMemcpyDeviceToHost, cudaStreamPerThread));
    CA_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(event_), cudaStreamPerThread));
#endif
}

const void* Readback::Wait() {
#if CAUSTICA_WITH_CUDA
    if (space_ == MemorySpace::Device) {
        CA_CUDA_CHECK(cudaGetLastError());
        CA_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(event_)));
    }
#endif
    return host_;
}

}  // namespace caustica
