// Checking of CUDA runtime calls; include only where CUDA is compiled in.
#pragma once

#include <cuda_runtime.h>

#include "core/thread_stream.h"

namespace caustica {

// Throws RuntimeError naming the call, the CUDA error and file:line.
[[noreturn]] void FailCuda(cudaError_t error, const char* call, const char* file, int line);

// The calling thread's stream (core/thread_stream.h).
inline cudaStream_t ThreadCudaStream() { return static_cast<cudaStream_t>(ThreadStream()); }

namespace detail {
// After each launch a debug build waits and checks, so a failing kernel is named at once.
void CheckLaunch(const char* name);
}  // namespace detail

}  // namespace caustica

#define CA_CUDA_CHECK(call)                                                   \
    do {                                                                      \
        const cudaError_t ca_error_ = (call);                                 \
        if (ca_error_ != cudaSuccess) ::caustica::FailCuda(ca_error_, #call, __FILE__, __LINE__); \
    } while (0)
