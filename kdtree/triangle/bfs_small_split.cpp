// The small-node split decision: a warp per node on the GPU while the nodes are few or large,
// else four lanes a node; one thread a node on the CPU.
#include "kdtree/triangle/bfs_small_split.h"

namespace caustica::bfs {

// Up to this many nodes a GPU warp takes each: with a thread per node the ring's 12 small levels
// took 84 us each, the GPU nearly idle.
constexpr uint32_t kWarpPerNodeMax = 16384;

// A level with more nodes takes a warp a node while they hold about this many triangles on
// average (their batch's references over the level's nodes: the first levels below the small
// roots); later levels, of a few triangles a node, fill the GPU with fewer lanes a node. On an H100,
// with a thread a node below: 10M triangles 79.7 ms with a warp a node up to 2^18 nodes, 87.0 up
// to 16,384, 111.4 at every level; 200K triangles 4.43, 4.30, 4.47 (docs/benchmarks-history.md,
// run 103).
constexpr uint32_t kWarpPerNodeMinTriangles = 16;

// The lanes a node of the other levels, where a thread walked a node's candidates and straddlers
// alone, the slowest node of a level holding up its launch. On an H100 (two rounds; a thread, then
// groups of 4, 8 and 16): 1M triangles 10.17 / 10.25, 9.66 / 9.77, 10.30 / 10.19, 11.66 / 11.45 ms;
// 200K 4.12 / 4.08, 3.72 / 3.60, 3.56 / 3.78, 3.93 / 3.91; 10M 84.1, 79.7, 86.6, 99.0.
constexpr uint32_t kLanesPerNode = 4;

void SplitSmallNodes(const Backend& backend, const SmallSplitPass& pass, uint32_t count, uint32_t before,
                     uint32_t batch_entries) {
    // The batch's references over the level's nodes say how large the nodes are while the levels
    // grow; once they shrink, the nodes left are the last few triangles of their subtrees (1M
    // triangles, on the CPU: levels of 100,742 and 45,892 nodes of 2.7 and 2.6 references each,
    // where the ratio says 16 and 36). On an H200 (three rounds) the small-node stage of 10M
    // triangles took 26.51 / 26.73 / 26.65 -> 26.29 / 26.07 / 25.92 ms this way.
    const bool growing = count >= before;
    if (count <= kWarpPerNodeMax || (growing && batch_entries >= uint64_t(kWarpPerNodeMinTriangles) * count))
        ParallelForLanes(backend, "kdtree split small nodes", count, pass);
    else ParallelForGroups<kLanesPerNode>(backend, "kdtree split small nodes", count, pass);
}

}  // namespace caustica::bfs
