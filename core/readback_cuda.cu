// The GPU side of Readback (core/readback.h): one block copies the bytes into page-locked host
// memory the GPU writes through (mapped), then raises the copy's number there, so the host sees
// the bytes as soon as they are written rather than after a copy engine's copy and an event. The
// kernel goes at the device's highest priority and may start early (core/launch.h): it is one
// block that a waiting host needs, where at the stream's own priority it waited behind the blocks
// of other streams' passes (docs/notes/frame-performance.md, read-backs without a copy kernel).
#include <cstdint>

#include "core/cuda_check.h"
#include "core/launch.h"
#include "core/readback_cuda.h"

namespace caustica::gpu {
namespace {

constexpr int kCopyThreads = 256;

__global__ void CopyToHostKernel(uint8_t* dst, const uint8_t* src, size_t bytes, uint32_t* number, uint32_t copy) {
    detail::AfterPreviousKernel();
    const bool words = bytes % 4 == 0 && reinterpret_cast<uintptr_t>(dst) % 4 == 0 &&
                       reinterpret_cast<uintptr_t>(src) % 4 == 0;
    if (words) {
        for (size_t i = threadIdx.x; i < bytes / 4; i += blockDim.x)
            reinterpret_cast<uint32_t*>(dst)[i] = reinterpret_cast<const uint32_t*>(src)[i];
    } else {
        for (size_t i = threadIdx.x; i < bytes; i += blockDim.x) dst[i] = src[i];
    }
    __threadfence_system();  // every thread's bytes reach the host before the number does
    __syncthreads();
    if (threadIdx.x == 0) *reinterpret_cast<volatile uint32_t*>(number) = copy;
}

}  // namespace

void CopyToHost(void* dst, const void* src, size_t bytes, uint32_t* number, uint32_t copy) {
    detail::LaunchAt(detail::HighestLaunchPriority(), true, "read-back", CopyToHostKernel, 1, kCopyThreads, 0,
                     static_cast<uint8_t*>(dst), static_cast<const uint8_t*>(src), bytes, number, copy);
}

}  // namespace caustica::gpu
