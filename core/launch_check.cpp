#include "core/error.h"

#if CAUSTICA_WITH_CUDA
#include "core/cuda_check.h"
#endif

namespace caustica::detail {

void FailHostOnlyLaunch(const char* name) {
    throw RuntimeError(Concat("pass \"", name,
                              "\" was launched on the GPU from a source that is not a CUDA launch unit "
                              "(add it to caustica_launch_units in its CMakeLists.txt)"));
}

#if CAUSTICA_WITH_CUDA
void CheckLaunch(const char* name) {
    const cudaError_t error = cudaGetLastError();
    if (error != cudaSuccess)
        throw RuntimeError(Concat("launch of GPU pass \"", name, "\" failed: ", cudaGetErrorString(error)));
#ifndef NDEBUG
    const cudaError_t run = cudaStreamSynchronize(ThreadCudaStream());
    if (run != cudaSuccess)
        throw RuntimeError(Concat("GPU pass \"", name, "\" failed: ", cudaGetErrorString(run)));
#endif
}
#endif

}  // namespace caustica::detail
