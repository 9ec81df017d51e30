// Kernel launches at the backend's priority: on the issuing thread's default stream, each launch
// with the priority of the backend that issues it, so that while a background chain of passes
// runs beside the frame's critical path (Backend::Background), its blocks wait for the SMs that
// the critical path's kernels leave free. CUDA code only (nvcc).
#pragma once

#include <cuda_runtime.h>

#include <utility>

#include "core/backend.h"
#include "core/cuda_check.h"

namespace caustica::detail {

template <class... Params, class... Args>
void Launch(const Backend& backend, const char* name, void (*kernel)(Params...), dim3 grid, dim3 block,
            size_t shared_bytes, Args&&... args) {
    cudaLaunchAttribute priority{};
    priority.id = cudaLaunchAttributePriority;
    priority.val.priority = backend.LaunchPriority();
    cudaLaunchConfig_t config{};
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = shared_bytes;
    config.stream = cudaStreamPerThread;
    config.attrs = &priority;
    config.numAttrs = 1;
    // A refused launch is reported by CheckLaunch, which names the pass.
    (void)cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
    CheckLaunch(name);
}

}  // namespace caustica::detail
