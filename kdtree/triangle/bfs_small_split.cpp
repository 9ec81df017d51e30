// The small-node split decision: a warp per node on the GPU while the nodes are few or large, else
// a warp's references spread over its lanes; one thread a node on the CPU.
#include "kdtree/triangle/bfs_small_split.h"

#if defined(__CUDACC__)
#include "core/lanes.h"
#include "core/launch.h"
#endif

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

// From this many nodes on, the levels that four lanes a node would take spread a warp's 32 nodes'
// references over its lanes (SpreadSplitKernel), which keeps more lanes busy but puts a quarter of
// the warps in flight. On an H200, the small-node stage in ms (two rounds; four lanes at every
// level, then the spread from 16,384, 65,536, 131,072 and 262,144 nodes on): 10M triangles 25.51 /
// 25.50, 22.87 / 23.33, 23.07 / 22.83, 23.18 / 23.16, 23.07 / 22.99; 1M 2.72 / 2.77, 2.57 / 2.54,
// 2.52 / 2.53, 2.58 / 2.57, 2.54 / 2.52; 200K 0.84 / 0.87, 0.93 / 0.93, 0.87 / 0.85, 0.88 / 0.89,
// 0.88 / 0.90; the bunny 0.60 / 0.59, 0.66 / 0.69, 0.63 / 0.64, 0.63 / 0.59, 0.64 / 0.82.
constexpr uint32_t kSpreadMinNodes = 65536;

#if defined(__CUDACC__)
namespace {

constexpr uint32_t kAllLanes = 0xffffffffu;
constexpr uint32_t kSpreadBlock = 256;

// The position of the k-th set bit of m (k from 0, below m's set bits).
__device__ uint32_t NthSetBit(uint64_t m, uint32_t k) {
    const uint32_t low = uint32_t(m), in_low = uint32_t(__popc(low));
    if (k < in_low) return uint32_t(__fns(low, 0, int(k) + 1));
    return 32u + uint32_t(__fns(uint32_t(m >> 32), 0, int(k - in_low) + 1));
}

// A warp's node as its lanes read it: in shared memory, where registers would hold it through the
// whole loop.
struct SpreadNode {
    uint64_t mask;
    float cell[6];
    uint32_t first;
};

// The split decisions of a warp's 32 nodes, their references spread over its lanes: the warp
// weighs 32 references at a time, the nodes' references one after another, so that no lane waits
// for a node's last few while there are others (with four lanes a node, of the 5-15 triangles a
// node of the levels that take them, 11.5 of a warp's 32 lanes were busy in Nsight Compute;
// docs/notes/triangle-tree-performance.md). The lanes of each node in a round combine their
// candidates toward the first of them, which the node's own lane takes, and then each lane
// finishes its node alone.
__global__ void __launch_bounds__(kSpreadBlock) SpreadSplitKernel(SmallSplitPass pass, uint32_t n) {
    detail::AfterPreviousKernel();
    __shared__ SpreadNode spread[kSpreadBlock];
    const uint32_t lane = threadIdx.x % 32, i = blockIdx.x * kSpreadBlock + threadIdx.x;
    if (i - lane >= n) return;  // the whole warp
    SpreadNode& own = spread[threadIdx.x];
    const SpreadNode* warp_nodes = spread + (threadIdx.x - lane);
    uint32_t weighed = 0;  // the node's references to weigh
    if (i < n) {
        const Aabb cell = pass.nodes.Region(i);
        own.mask = pass.nodes.mask[i];
        for (int a = 0; a < 3; ++a) {
            own.cell[a] = cell.lo[a];
            own.cell[3 + a] = cell.hi[a];
        }
        own.first = pass.nodes.first[i];
        weighed = pass.Weighs(i, cell, own.mask) ? PopCount(own.mask) : 0;
    }
    __syncwarp();
    uint32_t total;
    const uint32_t start = WarpLanes().ExclusiveScan(weighed, 0u, Plus(), total);
    const uint32_t end = start + weighed;
    SplitChoice best;
    for (uint32_t base = 0; base < total; base += 32) {
        const uint32_t f = base + lane;  // the lane's reference in the warp's list
        // Its node: the last whose references start at or before it (an empty one starts where the
        // next does).
        uint32_t owner = 0;
        for (uint32_t step = 16; step > 0; step /= 2)
            if (__shfl_sync(kAllLanes, start, owner + step) <= f) owner += step;
        const uint32_t owner_start = __shfl_sync(kAllLanes, start, owner);
        const uint32_t owner_end = __shfl_sync(kAllLanes, end, owner);
        SplitChoice choice;
        if (f < total) {
            const SpreadNode& o = warp_nodes[owner];
            const NodeToWeigh node(Aabb(Vec3(o.cell[0], o.cell[1], o.cell[2]), Vec3(o.cell[3], o.cell[4], o.cell[5])),
                                   o.mask);
            pass.WeighEntry(node, o.first + NthSetBit(o.mask, f - owner_start), choice);
        }
        // The lanes of a node are consecutive: each combines those after it up to the node's last
        // in this round, so that the first holds them all.
        const uint32_t segment_end = f < total ? min(owner_end - base, 32u) : 0u;
        for (uint32_t offset = 1; offset < 32; offset *= 2) {
            const SplitChoice other =
                detail::ShuffleWords(choice, [&](uint32_t w) { return __shfl_down_sync(kAllLanes, w, offset); });
            if (lane + offset < segment_end) choice = BetterSplit()(choice, other);
        }
        const bool in_round = start < end && start < base + 32 && end > base;
        const uint32_t first_lane = (max(start, base) - base) % 32;
        const SplitChoice mine =
            detail::ShuffleWords(choice, [&](uint32_t w) { return __shfl_sync(kAllLanes, w, first_lane); });
        if (in_round) best = BetterSplit()(best, mine);
    }
    if (i < n) pass.Finish(OneLane(), i, best);
}

}  // namespace
#endif

void SplitSmallNodes(const Backend& backend, const SmallSplitPass& pass, uint32_t count, uint32_t before,
                     uint32_t batch_entries) {
    // The batch's references over the level's nodes say how large the nodes are while the levels
    // grow; once they shrink, the nodes left are the last few triangles of their subtrees (1M
    // triangles, on the CPU: levels of 100,742 and 45,892 nodes of 2.7 and 2.6 references each,
    // where the ratio says 16 and 36). On an H200 (three rounds) the small-node stage of 10M
    // triangles took 26.51 / 26.73 / 26.65 -> 26.29 / 26.07 / 25.92 ms this way.
    const bool growing = count >= before;
    if (count <= kWarpPerNodeMax || (growing && batch_entries >= uint64_t(kWarpPerNodeMinTriangles) * count)) {
        ParallelForLanes(backend, "kdtree split small nodes", count, pass);
        return;
    }
    if (backend.IsGpu() && count >= kSpreadMinNodes) {
#if defined(__CUDACC__)
        const uint32_t blocks = (count + kSpreadBlock - 1) / kSpreadBlock;
        detail::Launch(backend, "kdtree split small nodes", SpreadSplitKernel, blocks, kSpreadBlock, 0, pass, count);
#else
        detail::FailHostOnlyLaunch("kdtree split small nodes");
#endif
        return;
    }
    ParallelForGroups<kLanesPerNode>(backend, "kdtree split small nodes", count, pass);
}

}  // namespace caustica::bfs
