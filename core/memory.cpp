#include "core/memory.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "core/error.h"

#if CAUSTICA_WITH_CUDA
#include "core/cuda_check.h"
#endif

namespace caustica {
namespace {

std::atomic<size_t> g_current_device_bytes{0};
std::atomic<size_t> g_peak_device_bytes{0};
// The size of each live device allocation, so that frees can be counted.
std::mutex g_sizes_mutex;
std::unordered_map<void*, size_t> g_device_sizes;

constexpr size_t kHostAlignment = 64;

std::string Megabytes(size_t bytes) { return Concat(bytes / (1024.0 * 1024.0), " MiB"); }

[[maybe_unused]] void CountAllocation(void* pointer, size_t bytes) {
    {
        std::lock_guard<std::mutex> lock(g_sizes_mutex);
        g_device_sizes[pointer] = bytes;
    }
    const size_t now = g_current_device_bytes.fetch_add(bytes) + bytes;
    size_t peak = g_peak_device_bytes.load();
    while (now > peak && !g_peak_device_bytes.compare_exchange_weak(peak, now)) {
    }
}

}  // namespace

#if CAUSTICA_WITH_CUDA
void FailCuda(cudaError_t error, const char* call, const char* file, int line) {
    throw RuntimeError(Concat(file, ":", line, ": CUDA error ", cudaGetErrorName(error), " (",
                              cudaGetErrorString(error), ") in ", call));
}
#endif

void* AllocateBytes(MemorySpace space, size_t bytes) {
    if (bytes == 0) return nullptr;
    if (space == MemorySpace::Host) {
        void* p = std::aligned_alloc(kHostAlignment, (bytes + kHostAlignment - 1) / kHostAlignment * kHostAlignment);
        if (!p) throw RuntimeError(Concat("out of host memory: asked for ", bytes, " bytes (", Megabytes(bytes), ")"));
        return p;
    }
#if CAUSTICA_WITH_CUDA
    void* p = nullptr;
    const cudaError_t error = cudaMalloc(&p, bytes);
    if (error == cudaErrorMemoryAllocation) {
        cudaGetLastError();  // clear the sticky error
        size_t free_bytes = 0, total_bytes = 0;
        cudaMemGetInfo(&free_bytes, &total_bytes);
        throw RuntimeError(Concat("out of GPU memory: asked for ", bytes, " bytes (", Megabytes(bytes),
                                  "), ", free_bytes, " bytes free (", Megabytes(free_bytes), ") of ",
                                  Megabytes(total_bytes)));
    }
    CA_CUDA_CHECK(error);
    CountAllocation(p, bytes);
    return p;
#else
    throw RuntimeError("device memory requested in a build without CUDA");
#endif
}

void FreeBytes(MemorySpace space, void* pointer) {
    if (!pointer) return;
    if (space == MemorySpace::Host) {
        std::free(pointer);
        return;
    }
#if CAUSTICA_WITH_CUDA
    {
        std::lock_guard<std::mutex> lock(g_sizes_mutex);
        auto it = g_device_sizes.find(pointer);
        if (it != g_device_sizes.end()) {
            g_current_device_bytes.fetch_sub(it->second);
            g_device_sizes.erase(it);
        }
    }
    // A list that grows while the thread's queued passes may still read it waits for them here,
    // rather than rely on cudaFree's own wait, which the CUDA documentation does not promise for a
    // green context's streams (core/sm_share.h).
    cudaStreamSynchronize(ThreadCudaStream());
    cudaFree(pointer);  // never throws: called from destructors
#endif
}

void CopyBytes(void* dst, MemorySpace dst_space, const void* src, MemorySpace src_space, size_t bytes) {
    if (bytes == 0) return;
    if (dst_space == MemorySpace::Host && src_space == MemorySpace::Host) {
        std::memcpy(dst, src, bytes);
        return;
    }
#if CAUSTICA_WITH_CUDA
    const cudaStream_t stream = ThreadCudaStream();
    CA_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream));
    CA_CUDA_CHECK(cudaStreamSynchronize(stream));
#else
    throw RuntimeError("device copy requested in a build without CUDA");
#endif
}

void FillBytes(MemorySpace space, void* pointer, int value, size_t bytes) {
    if (bytes == 0) return;
    if (space == MemorySpace::Host) {
        std::memset(pointer, value, bytes);
        return;
    }
#if CAUSTICA_WITH_CUDA
    CA_CUDA_CHECK(cudaMemsetAsync(pointer, value, bytes, ThreadCudaStream()));
#else
    throw RuntimeError("device fill requested in a build without CUDA");
#endif
}

MemoryCounters DeviceMemoryCounters() { return {g_current_device_bytes.load(), g_peak_device_bytes.load()}; }

void ResetPeakDeviceBytes() { g_peak_device_bytes.store(g_current_device_bytes.load()); }

}  // namespace caustica
