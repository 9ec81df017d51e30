// The small-node split decision: a warp per node on the GPU while the nodes are few or large,
// else (and on the CPU) one thread per node.
#include "kdtree/triangle/bfs_small_split.h"

namespace caustica::bfs {

// Up to this many nodes a GPU warp takes each: with a thread per node the ring's 12 small levels
// took 84 us each, the GPU nearly idle.
constexpr uint32_t kWarpPerNodeMax = 16384;

// A level with more nodes takes a warp a node while they hold about this many triangles on
// average (their batch's references over the level's nodes: the first levels below the small
// roots), where a thread would walk up to 64 triangles' candidates and straddlers alone; later
// levels, of a few triangles a node, fill the GPU with a thread a node. On an H100: 10M triangles
// 79.7 ms with a warp a node up to 2^18 nodes, 87.0 up to 16,384, 111.4 at every level; 200K
// triangles 4.43, 4.30, 4.47 (docs/benchmarks-history.md, run 103).
constexpr uint32_t kWarpPerNodeMinTriangles = 16;

void SplitSmallNodes(const Backend& backend, const SmallSplitPass& pass, uint32_t count, uint32_t batch_entries) {
    if (count <= kWarpPerNodeMax || batch_entries >= uint64_t(kWarpPerNodeMinTriangles) * count)
        ParallelForLanes(backend, "kdtree split small nodes", count, pass);
    else ParallelForOneLane(backend, "kdtree split small nodes", count, pass);
}

}  // namespace caustica::bfs
