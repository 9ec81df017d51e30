// The small-node split decision: a warp per node on the GPU while the nodes are few, else (and on
// the CPU) one thread per node.
#include "kdtree/triangle/bfs_small_split.h"

#include "core/parallel_for.h"

#if defined(__CUDACC__)
#include "core/launch.h"
#endif

namespace caustica::bfs {
namespace {

struct SplitSmallNodesCpu {
    SmallSplitPass pass;
    CA_HD void operator()(int i) const { pass.Decide(uint32_t(i), pass.BestOfShare(uint32_t(i), 0, 1)); }
};

#if defined(__CUDACC__)
constexpr int kSplitBlock = 256;

// Up to this many nodes a warp takes each: with a thread per node the ring's 12 small levels took
// 84 us each, the GPU nearly idle. A level with many more nodes fills the GPU with a thread each;
// a warp per node at every level made the 10M-triangle build 4% slower (docs/benchmarks-history.md,
// run 12). The crossover between is not measured.
constexpr uint32_t kWarpPerNodeMax = 16384;

// The lanes rank their shares, a shuffle reduction takes the best (any order gives the same one),
// and lane 0 records it.
__global__ void __launch_bounds__(kSplitBlock) SplitSmallNodesKernel(SmallSplitPass pass, uint32_t count) {
    detail::AfterPreviousKernel();
    const uint32_t node = (blockIdx.x * kSplitBlock + threadIdx.x) / 32;
    const uint32_t lane = threadIdx.x % 32;
    if (node >= count) return;  // the whole warp: its lanes share the node
    SplitChoice best = pass.BestOfShare(node, lane, 32);
    for (int offset = 16; offset > 0; offset /= 2) {
        SplitChoice other;
        other.cost = __shfl_down_sync(0xffffffffu, best.cost, offset);
        other.axis = __shfl_down_sync(0xffffffffu, best.axis, offset);
        other.position = __shfl_down_sync(0xffffffffu, best.position, offset);
        other.candidate = __shfl_down_sync(0xffffffffu, best.candidate, offset);
        if (other.BetterThan(best)) best = other;
    }
    if (lane == 0) pass.Decide(node, best);
}
#endif

}  // namespace

void SplitSmallNodes(const Backend& backend, const SmallSplitPass& pass, uint32_t count) {
    if (count == 0) return;
    if (backend.IsGpu()) {
#if defined(__CUDACC__)
        if (count <= kWarpPerNodeMax) {
            const uint64_t threads = uint64_t(count) * 32;
            detail::Launch(backend, "kdtree split small nodes", SplitSmallNodesKernel,
                           uint32_t((threads + kSplitBlock - 1) / kSplitBlock), kSplitBlock, 0, pass, count);
            return;
        }
#endif
    }
    ParallelFor(backend, "kdtree split small nodes", count, SplitSmallNodesCpu{pass});
}

}  // namespace caustica::bfs
