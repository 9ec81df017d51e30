// The small-node split decision: a warp per node on the GPU while the nodes are few, else (and on
// the CPU) one thread per node.
#include "kdtree/triangle/bfs_small_split.h"

namespace caustica::bfs {

// Up to this many nodes a GPU warp takes each: with a thread per node the ring's 12 small levels
// took 84 us each, the GPU nearly idle. A level with many more nodes fills the GPU with a thread
// each; a warp per node at every level made the 10M-triangle build 4% slower
// (docs/benchmarks-history.md, run 12). The crossover between is not measured.
constexpr uint32_t kWarpPerNodeMax = 16384;

void SplitSmallNodes(const Backend& backend, const SmallSplitPass& pass, uint32_t count) {
    if (count <= kWarpPerNodeMax) ParallelForLanes(backend, "kdtree split small nodes", count, pass);
    else ParallelForOneLane(backend, "kdtree split small nodes", count, pass);
}

}  // namespace caustica::bfs
