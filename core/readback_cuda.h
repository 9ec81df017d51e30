// Readback's copy on the GPU (core/readback_cuda.cu), in a build with CUDA.
#pragma once

#include <cstddef>
#include <cstdint>

namespace caustica::gpu {

// Queues on the calling thread's stream a copy of 'bytes' from src (device memory) to dst and then
// *number = copy, both in mapped page-locked host memory (device addresses). With 0 bytes it
// raises the number alone, behind a copy queued before it.
void CopyToHost(void* dst, const void* src, size_t bytes, uint32_t* number, uint32_t copy);

}  // namespace caustica::gpu
