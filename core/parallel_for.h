// The dispatch that runs a named per-item functor over n items on the backend's device.
//
//   struct ScalePass { Span<float> v; float s; CA_HD void operator()(int i) const { v[i] *= s; } };
//   ParallelFor(backend, "scale", n, ScalePass{values, 2.0f});
//
// On the CPU the items are split among oneTBB's threads; on the GPU one thread runs each item.
// The GPU branch exists only in launch units (sources that nvcc compiles in a CUDA build, see
// caustica_launch_units in CMakeLists.txt); calling it from plain C++ is an internal error.
#pragma once

#include <climits>
#include <cstddef>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "core/backend.h"
#include "core/error.h"
#include "core/hd.h"

#if defined(__CUDACC__)
#include "core/launch.h"
#endif

namespace caustica {

namespace detail {

[[noreturn]] void FailHostOnlyLaunch(const char* name);

#if defined(__CUDACC__)
template <class F>
__global__ void ParallelForKernel(int n, F f) {
    detail::AfterPreviousKernel();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) f(i);
}
#endif

}  // namespace detail

template <class F>
void ParallelFor(const Backend& backend, const char* name, size_t n, const F& f) {
    if (n == 0) return;
    CA_CHECK_MSG(n <= size_t(INT_MAX), name, ": ", n, " items");
    if (backend.IsGpu()) {
#if defined(__CUDACC__)
        constexpr int kBlock = 256;
        detail::Launch(backend, name, detail::ParallelForKernel<F>, unsigned((n + kBlock - 1) / kBlock), kBlock, 0,
                       int(n), f);
#else
        detail::FailHostOnlyLaunch(name);
#endif
        return;
    }
    tbb::parallel_for(tbb::blocked_range<int>(0, int(n), 1024), [&f](const tbb::blocked_range<int>& r) {
        for (int i = r.begin(); i != r.end(); ++i) f(i);
    });
}

}  // namespace caustica
