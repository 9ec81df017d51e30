// ParallelFor for items whose work is a loop of a varying number of steps (a photon's bounces):
//
//   struct Pass {
//       struct State { ... };                          // an item between two steps
//       CA_HD bool Start(uint32_t i, State& s) const;  // begins item i; false: done already
//       CA_HD bool Step(State& s) const;               // one step; false: the item is done
//   };
//   ParallelForPaths(backend, "photon trace", n, pass);
//
// With a GPU thread an item, a warp runs as long as its longest item while the lanes whose items
// ended wait idle: most of a champagne glass's photons end at their first hit and a few stay
// trapped in the glass for eight bounces, which kept 55% of the lanes' steps busy (a CPU count of
// 1M photons). Here the GPU runs as many warps as fit at once on the SMs the thread's stream reaches
// (core/thread_stream.h), and whenever lanes of a warp are idle it hands them the next items of a
// shared counter, so lanes keep stepping until the items run out (Aila and Laine 2009, persistent
// threads with dynamic fetch). An item's work and results do not depend on the lane that runs it.
// The CPU runs each item's loop in turn in a ParallelFor.
// A launch unit only, as ParallelFor.
#pragma once

#include <cstddef>
#include <cstdint>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "core/parallel_for.h"

#if defined(__CUDACC__)
#include "core/memory.h"
#include "core/sm_share.h"
#endif

namespace caustica {

namespace detail {

#if defined(__CUDACC__)
constexpr int kPathsBlock = 128;

template <class Pass>
__global__ void __launch_bounds__(kPathsBlock) PathsKernel(Pass pass, uint32_t n, uint32_t* next_item) {
    detail::AfterPreviousKernel();
    const uint32_t lane = threadIdx.x % 32;
    typename Pass::State state;
    bool busy = false;
    bool items_left = true;  // the same in every lane of the warp
    while (true) {
        const uint32_t idle = __ballot_sync(~0u, !busy);
        const uint32_t idle_count = __popc(idle);
        if (items_left && idle_count > 0) {
            uint32_t first = 0;
            if (lane == 0) first = atomicAdd(next_item, idle_count);
            first = __shfl_sync(~0u, first, 0);
            items_left = first + idle_count < n;
            if (!busy) {
                const uint32_t i = first + __popc(idle & ((1u << lane) - 1u));
                busy = i < n && pass.Start(i, state);
            }
        }
        if (__ballot_sync(~0u, busy) == 0) {
            if (!items_left) return;
            continue;
        }
        if (busy) busy = pass.Step(state);
    }
}

// The warps that fit at once on the SMs the thread's stream runs on (all of the device's, or a
// share's: core/thread_stream.h), or fewer where n items fill fewer. More would wait for the first
// to end, and a grid's blocks are handed out in the order the grids were queued, so the kernels
// queued after it at the same priority would wait for them too.
template <class Pass>
unsigned PathsGrid(size_t n) {
    const unsigned blocks_per_sm = OncePerDevice([] {
        int blocks = 0;
        CA_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, PathsKernel<Pass>, kPathsBlock, 0));
        return unsigned(blocks > 0 ? blocks : 1);
    });
    int device = 0;
    CA_CUDA_CHECK(cudaGetDevice(&device));
    const unsigned resident = unsigned(ThreadStreamSmCount(device)) * blocks_per_sm;
    const size_t needed = (n + kPathsBlock - 1) / kPathsBlock;
    return needed < resident ? unsigned(needed) : resident;
}
#endif

}  // namespace detail

template <class Pass>
void ParallelForPaths(const Backend& backend, const char* name, size_t n, const Pass& pass) {
    if (n == 0) return;
    CA_CHECK_MSG(n <= size_t(INT_MAX), name, ": ", n, " items");
    if (backend.IsGpu()) {
#if defined(__CUDACC__)
        // The shared counter of items handed out, from 0 (queued before the launch).
        auto* next_item = static_cast<uint32_t*>(backend.Scratch(sizeof(uint32_t)));
        FillBytes(MemorySpace::Device, next_item, 0, sizeof(uint32_t));
        detail::Launch(backend, name, detail::PathsKernel<Pass>, detail::PathsGrid<Pass>(n), detail::kPathsBlock, 0,
                       pass, uint32_t(n), next_item);
#else
        detail::FailHostOnlyLaunch(name);
#endif
        return;
    }
    tbb::parallel_for(tbb::blocked_range<uint32_t>(0, uint32_t(n), 256), [&pass](const tbb::blocked_range<uint32_t>& r) {
        for (uint32_t i = r.begin(); i != r.end(); ++i) {
            typename Pass::State state;
            if (pass.Start(i, state))
                while (pass.Step(state)) {
                }
        }
    });
}

}  // namespace caustica
