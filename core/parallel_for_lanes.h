// ParallelFor for items that a group of lanes shares (core/lanes.h): pass.Run(lanes, scratch, i)
// runs item i with a GPU warp (WarpLanes, scratch in the warp's shared memory), a few of a warp's
// lanes (GroupLanes, ParallelForGroups, no scratch) or a CPU thread (OneLane, scratch on its
// stack). Pass::Scratch is the per-item work area (NoScratch for none).
// Suits items that one thread would walk through in a long chain of dependent steps, while there
// are too few items to hide it. A launch unit only, as ParallelFor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "core/lanes.h"
#include "core/parallel_for.h"

namespace caustica {

struct NoScratch {};

namespace detail {

template <class Pass>
struct ThreadPerItem {
    Pass pass;
    CA_HD void operator()(int i) const {
        typename Pass::Scratch scratch;
        pass.Run(OneLane(), scratch, uint32_t(i));
    }
};

#if defined(__CUDACC__)
constexpr uint32_t kWarpsPerBlock = 4;

template <class Pass>
__global__ void __launch_bounds__(32 * kWarpsPerBlock) WarpPerItemKernel(Pass pass, uint32_t n) {
    detail::AfterPreviousKernel();
    __shared__ typename Pass::Scratch scratch[kWarpsPerBlock];
    const uint32_t warp = threadIdx.x / 32;
    const uint32_t i = blockIdx.x * kWarpsPerBlock + warp;
    if (i >= n) return;  // the whole warp
    pass.Run(WarpLanes(), scratch[warp], i);
}

template <uint32_t kWidth, class Pass>
__global__ void __launch_bounds__(256) GroupPerItemKernel(Pass pass, uint32_t n) {
    detail::AfterPreviousKernel();
    const uint32_t i = (blockIdx.x * blockDim.x + threadIdx.x) / kWidth;
    if (i >= n) return;  // the whole group
    NoScratch none;
    pass.Run(GroupLanes<kWidth>(), none, i);
}
#endif

// The CPU's loop of ParallelForLanes and ParallelForGroups: an item is a few GPU lanes' work for
// one thread, so a few make a task, where ParallelFor's tasks take a thousand light items (a
// level's roots of a small scene would be one task).
template <class Pass>
void ForHeavyItemsOnCpu(size_t n, const Pass& pass) {
    tbb::parallel_for(tbb::blocked_range<uint32_t>(0, uint32_t(n), 16), [&pass](const tbb::blocked_range<uint32_t>& r) {
        for (uint32_t i = r.begin(); i != r.end(); ++i) ThreadPerItem<Pass>{pass}(int(i));
    });
}

}  // namespace detail

// As ParallelForLanes with one lane an item on either backend: for launches of so many items that
// a warp each would leave most of its lanes idle.
template <class Pass>
void ParallelForOneLane(const Backend& backend, const char* name, size_t n, const Pass& pass) {
    ParallelFor(backend, name, n, detail::ThreadPerItem<Pass>{pass});
}

// As ParallelForLanes with kWidth lanes of a warp an item on the GPU (GroupLanes; one lane on the
// CPU), for passes without scratch.
template <uint32_t kWidth, class Pass>
void ParallelForGroups(const Backend& backend, const char* name, size_t n, const Pass& pass) {
    static_assert(std::is_same<typename Pass::Scratch, NoScratch>::value, "a group has no scratch");
    if (n == 0) return;
    CA_CHECK_MSG(n <= size_t(UINT32_MAX) / kWidth, name, ": ", n, " items");
    if (backend.IsGpu()) {
#if defined(__CUDACC__)
        constexpr uint32_t kBlock = 256;
        const uint32_t blocks = uint32_t((n * kWidth + kBlock - 1) / kBlock);
        detail::Launch(backend, name, detail::GroupPerItemKernel<kWidth, Pass>, blocks, kBlock, 0, pass, uint32_t(n));
#else
        detail::FailHostOnlyLaunch(name);
#endif
        return;
    }
    detail::ForHeavyItemsOnCpu(n, pass);
}

template <class Pass>
void ParallelForLanes(const Backend& backend, const char* name, size_t n, const Pass& pass) {
    if (n == 0) return;
    CA_CHECK_MSG(n <= size_t(UINT32_MAX) / 32, name, ": ", n, " items");
    if (backend.IsGpu()) {
#if defined(__CUDACC__)
        const uint32_t blocks = uint32_t((n + detail::kWarpsPerBlock - 1) / detail::kWarpsPerBlock);
        detail::Launch(backend, name, detail::WarpPerItemKernel<Pass>, blocks, 32 * detail::kWarpsPerBlock, 0, pass,
                       uint32_t(n));
#else
        detail::FailHostOnlyLaunch(name);
#endif
        return;
    }
    detail::ForHeavyItemsOnCpu(n, pass);
}

}  // namespace caustica
