// ParallelFor over the levels of a tree, one level after another: the items of level l are
// [bounds[l], bounds[l + 1]), and each level sees what the levels before it wrote. Levels run
// deepest first (LevelOrder::Up, children before parents) or root first (Down). A launch unit only,
// as ParallelFor.
//
// The tree builders' output passes (Zhou et al. 2008, Algorithm 5) run this over every level of a
// tree. A small tree's levels are a few hundred nodes each, so the GPU runs each run of small levels
// in one block, with a barrier between levels, instead of a launch per level (a large tree's first
// and last levels are such runs): on the ring's frame the up and down passes took 0.31 ms of kernel
// time against 0.46 ms (docs/benchmarks-history.md, runs 15 and 16; the frame time did not show it).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/parallel_for.h"

namespace caustica {

enum class LevelOrder { Up, Down };

namespace detail {

// The one-block path's limits: a run's level bounds travel in the launch's parameters, and a level
// of at most this many items takes a few rounds of the block's threads.
constexpr size_t kOneBlockMaxLevels = 511;
constexpr uint32_t kOneBlockMaxLevelItems = 8192;
constexpr int kOneBlockThreads = 1024;

template <class F>
struct OffsetItems {
    uint32_t first;
    F f;
    CA_HD void operator()(int i) const { f(int(first) + i); }
};

struct LevelBounds {
    uint32_t levels;
    uint32_t bounds[kOneBlockMaxLevels + 1];
};

#if defined(__CUDACC__)
template <class F>
__global__ void __launch_bounds__(kOneBlockThreads) LevelsInOneBlockKernel(LevelBounds b, bool up, F f) {
    detail::AfterPreviousKernel();
    for (uint32_t step = 0; step < b.levels; ++step) {
        const uint32_t l = up ? b.levels - 1 - step : step;
        for (uint32_t i = b.bounds[l] + threadIdx.x; i < b.bounds[l + 1]; i += kOneBlockThreads) f(int(i));
        __syncthreads();  // the level's writes, global ones included, are seen by the next level
    }
}
#endif

}  // namespace detail

template <class F>
void ParallelForLevels(const Backend& backend, const char* name, const std::vector<uint32_t>& bounds,
                       LevelOrder order, const F& f) {
    if (bounds.size() < 2) return;
    const size_t levels = bounds.size() - 1;
    const bool up = order == LevelOrder::Up;
    const auto width = [&](size_t l) { return bounds[l + 1] - bounds[l]; };
    for (size_t step = 0; step < levels;) {
        const size_t l = up ? levels - 1 - step : step;
#if defined(__CUDACC__)
        // A run of small levels, one after another in the order's direction, in one block.
        if (backend.IsGpu() && width(l) <= detail::kOneBlockMaxLevelItems) {
            size_t run = 1;
            while (step + run < levels && run < detail::kOneBlockMaxLevels &&
                   width(up ? l - run : l + run) <= detail::kOneBlockMaxLevelItems)
                ++run;
            const size_t lowest = up ? l + 1 - run : l;  // the run's levels: [lowest, lowest + run)
            detail::LevelBounds b;
            b.levels = uint32_t(run);
            std::copy(bounds.begin() + lowest, bounds.begin() + lowest + run + 1, b.bounds);
            detail::Launch(backend, name, detail::LevelsInOneBlockKernel<F>, 1, detail::kOneBlockThreads, 0, b, up, f);
            step += run;
            continue;
        }
#endif
        const uint32_t first = bounds[l];
        ParallelFor(backend, name, width(l), detail::OffsetItems<F>{first, f});
        ++step;
    }
}

}  // namespace caustica
