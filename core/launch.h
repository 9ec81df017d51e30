// Kernel launches at the backend's priority: on the issuing thread's stream (core/thread_stream.h), each launch
// with the priority of the backend that issues it, so that while a background chain of passes
// runs beside the frame's critical path (Backend::Background), its blocks wait for the SMs that
// the critical path's kernels leave free; and on sm_90, as programmatic dependent launches
// (AfterPreviousKernel). CUDA code only (nvcc).
#pragma once

#include <cuda_runtime.h>

#include <utility>

#include "core/backend.h"
#include "core/cuda_check.h"
#include "core/once_per_device.h"

namespace caustica::detail {

// Every kernel that Launch starts calls this first. Launch lets a kernel's blocks start while the
// kernel before it in the stream still runs (programmatic dependent launch, sm_90): they wait here
// until that one has finished and its writes are visible, so a pass sees what every earlier pass
// wrote, as without it; then they let the next kernel start the same way. What it saves is the
// gap between two kernels, a few microseconds each, where a build is dozens of short passes.
__device__ inline void AfterPreviousKernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cudaGridDependencySynchronize();
    cudaTriggerProgrammaticLaunchCompletion();
#endif
}

// compute(), once for each CUDA device, on the first call whose thread has that device current:
// a kernel's attributes belong to the device they were set or read on, and the GPUs of a host each
// have their own host thread (core/backend.h). One cache for each type of compute (each lambda).
template <class Compute>
auto OncePerDevice(const Compute& compute) {
    int device = 0;
    CA_CUDA_CHECK(cudaGetDevice(&device));
    return OnceForDevice(device, compute);
}

// Whether the kernels wait in AfterPreviousKernel: the code the GPU runs comes from compute_90 PTX
// or later (code from older PTX, compiled for the GPU when it loads, does not wait, and must not
// start early). The project's kernels are all compiled for the same architectures, so the first
// one launched answers for all.
inline bool KernelsWaitForPrevious(const void* kernel) {
    return OncePerDevice([kernel] {
        cudaFuncAttributes attributes{};
        CA_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
        return attributes.ptxVersion >= 90;
    });
}

// The highest launch priority of the current device, asked once (a read-back's copy takes it).
inline int HighestLaunchPriority() {
    return OncePerDevice([] { return CurrentDeviceStreamPriorities().highest; });
}

// Launches kernel on the thread's stream at 'priority'; with may_start_early (and kernels that wait
// in AfterPreviousKernel) as a programmatic dependent launch.
template <class... Params, class... Args>
void LaunchAt(int priority, bool may_start_early, const char* name, void (*kernel)(Params...), dim3 grid, dim3 block,
              size_t shared_bytes, Args&&... args) {
    cudaLaunchAttribute attributes[2]{};
    attributes[0].id = cudaLaunchAttributePriority;
    attributes[0].val.priority = priority;
    attributes[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attributes[1].val.programmaticStreamSerializationAllowed =
        may_start_early && KernelsWaitForPrevious(reinterpret_cast<const void*>(kernel)) ? 1 : 0;
    cudaLaunchConfig_t config{};
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = shared_bytes;
    config.stream = ThreadCudaStream();
    config.attrs = attributes;
    config.numAttrs = 2;
    // A refused launch is reported by CheckLaunch, which names the pass.
    (void)cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
    CheckLaunch(name);
}

// A pass of 'backend': at its priority; a background chain's kernels start as before, as their
// blocks would hold SMs while they wait, which the critical path's kernels beside them could use.
template <class... Params, class... Args>
void Launch(const Backend& backend, const char* name, void (*kernel)(Params...), dim3 grid, dim3 block,
            size_t shared_bytes, Args&&... args) {
    LaunchAt(backend.LaunchPriority(), !backend.IsBackground(), name, kernel, grid, block, shared_bytes,
             std::forward<Args>(args)...);
}

}  // namespace caustica::detail
