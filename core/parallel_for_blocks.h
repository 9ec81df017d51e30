// ParallelFor for items that a whole block of lanes shares (core/lanes.h): pass.Run(lanes, scratch,
// i) runs item i with a GPU block of Pass::kThreads threads (BlockLanes, scratch in the block's
// dynamic shared memory) or with a CPU thread (OneLane, scratch on the heap). Suits items whose
// work is many dependent rounds over a few thousand values: the block keeps them in shared memory
// and waits at its own barriers, where a launch per round would wait for the whole GPU and the
// host. Pass::Scratch is the per-item work area, which may be larger than a static shared array
// (48 KB); it is raw memory on the GPU, so the pass must write what it reads (its constructors do
// not run there). A launch unit only, as ParallelFor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "core/lanes.h"
#include "core/parallel_for.h"

namespace caustica {

namespace detail {

#if defined(__CUDACC__)
template <class Pass>
__global__ void __launch_bounds__(Pass::kThreads) BlockPerItemKernel(Pass pass) {
    detail::AfterPreviousKernel();
    extern __shared__ __align__(16) unsigned char shared_scratch[];
    pass.Run(BlockLanes<Pass::kThreads>(), *reinterpret_cast<typename Pass::Scratch*>(shared_scratch), blockIdx.x);
}
#endif

}  // namespace detail

template <class Pass>
void ParallelForBlocks(const Backend& backend, const char* name, size_t n, const Pass& pass) {
    using Scratch = typename Pass::Scratch;
    static_assert(std::is_trivially_destructible<Scratch>::value, "scratch lives in raw shared memory");
    if (n == 0) return;
    CA_CHECK_MSG(n <= size_t(INT_MAX), name, ": ", n, " items");
    if (backend.IsGpu()) {
#if defined(__CUDACC__)
        // Above 48 KB a kernel's dynamic shared memory must be allowed explicitly, once on each
        // device. The split between shared memory and L1 is left to the driver, which gives the
        // blocks the shared memory they need and the rest to L1: with all of it shared, a pass
        // of small scratch had a few KB of L1 for its local memory and its reads (the ring's large
        // levels all in one block: their entries' classification 650 -> 450 us, H100).
        const cudaError_t allowed = detail::OncePerDevice([] {
            return cudaFuncSetAttribute(detail::BlockPerItemKernel<Pass>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        int(sizeof(Scratch)));
        });
        CA_CUDA_CHECK(allowed);
        detail::Launch(backend, name, detail::BlockPerItemKernel<Pass>, unsigned(n), Pass::kThreads, sizeof(Scratch),
                       pass);
#else
        detail::FailHostOnlyLaunch(name);
#endif
        return;
    }
    tbb::parallel_for(tbb::blocked_range<size_t>(0, n, 1), [&pass](const tbb::blocked_range<size_t>& r) {
        const auto scratch = std::make_unique<Scratch>();
        for (size_t i = r.begin(); i != r.end(); ++i) pass.Run(OneLane(), *scratch, uint32_t(i));
    });
}

}  // namespace caustica
