#include "kdtree/triangle/bfs_chunk_passes.h"

#include <algorithm>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "core/error.h"

#if defined(__CUDACC__)
#include "core/lanes.h"
#include "core/launch.h"
#include "core/parallel_for.h"
#endif

namespace caustica::bfs {
namespace {

uint32_t ChunkTotal(const LargeLevelView& v) {
    const uint32_t last = v.node_count - 1;
    return v.nodes.chunk_first[last] + v.nodes.chunk_count[last];
}

// The node of each chunk, in scratch memory (CPU only).
uint32_t* ChunkNodes(const Backend& backend, const LargeLevelView& v, uint32_t chunks, size_t extra_bytes) {
    auto* chunk_node = static_cast<uint32_t*>(backend.Scratch(chunks * sizeof(uint32_t) + extra_bytes));
    for (uint32_t i = 0; i < v.node_count; ++i)
        for (uint32_t c = 0; c < v.nodes.chunk_count[i]; ++c) chunk_node[v.nodes.chunk_first[i] + c] = i;
    return chunk_node;
}

template <class F>
void ParallelOverChunks(uint32_t chunks, const F& body) {
    tbb::parallel_for(tbb::blocked_range<uint32_t>(0, chunks, 4), [&](const tbb::blocked_range<uint32_t>& r) {
        for (uint32_t c = r.begin(); c != r.end(); ++c) body(c);
    });
}

// The entries [first, end) of chunk c, relative to its node.
struct ChunkRange {
    uint32_t node, first, end;
};
ChunkRange RangeOf(const LargeLevelView& v, const uint32_t* chunk_node, uint32_t c) {
    const uint32_t node = chunk_node[c];
    const uint32_t first = (c - v.nodes.chunk_first[node]) * v.chunk_size;
    return {node, first, std::min(first + v.chunk_size, v.nodes.count[node])};
}

void ChunkBoundsCpu(const Backend& backend, const LargeLevelView& v) {
    const uint32_t chunks = ChunkTotal(v);
    const uint32_t* chunk_node = ChunkNodes(backend, v, chunks, 0);
    ParallelOverChunks(chunks, [&](uint32_t c) {
        const ChunkRange r = RangeOf(v, chunk_node, c);
        BoxKeys keys;
        for (uint32_t local = r.first; local < r.end; ++local) keys.Add(v.cur.Box(v.nodes.begin[r.node] + local));
        keys.MergeInto(v.nodes.key, r.node);
    });
}

// The CPU twin of the classify kernel: the same per-entry rule, with the chunks' places in each
// child found by a scan over the chunks in order (so the CPU order is deterministic). With
// write = false it only counts.
void ChunkClassifyCpu(const Backend& backend, const LargeLevelView& v, bool write) {
    const uint32_t chunks = ChunkTotal(v);
    uint32_t* chunk_node = ChunkNodes(backend, v, chunks, size_t(chunks) * 2 * sizeof(uint32_t));
    uint32_t* chunk_base = chunk_node + chunks;  // left and right base per chunk
    ParallelOverChunks(chunks, [&](uint32_t c) {
        const ChunkRange r = RangeOf(v, chunk_node, c);
        uint32_t n[2] = {0, 0};
        for (uint32_t local = r.first; local < r.end; ++local) {
            bool left, right;
            ClassifyEntry(v, r.node, local, &left, &right);
            n[0] += left;
            n[1] += right;
        }
        chunk_base[2 * size_t(c)] = n[0];
        chunk_base[2 * size_t(c) + 1] = n[1];
    });
    for (uint32_t c = 0; c < chunks; ++c) {
        const uint32_t node = chunk_node[c];
        for (int side = 0; side < 2; ++side) {
            const uint32_t n = chunk_base[2 * size_t(c) + side];
            chunk_base[2 * size_t(c) + side] = v.child_count[2 * node + side];
            v.child_count[2 * node + side] += n;
        }
    }
    if (!write) return;
    ParallelOverChunks(chunks, [&](uint32_t c) {
        const ChunkRange r = RangeOf(v, chunk_node, c);
        uint32_t next[2] = {chunk_base[2 * size_t(c)], chunk_base[2 * size_t(c) + 1]};
        BoxKeys keys[2];
        for (uint32_t local = r.first; local < r.end; ++local) {
            bool left, right;
            ClassifyEntry(v, r.node, local, &left, &right);
            if (left) WriteEntry(v, r.node, local, 0, next[0]++, keys[0]);
            if (right) WriteEntry(v, r.node, local, 1, next[1]++, keys[1]);
        }
        if (v.child_key[0] && v.nodes.split_axis[r.node] >= 0)
            for (int side = 0; side < 2; ++side) keys[side].MergeInto(v.child_key, 2 * r.node + uint32_t(side));
    });
}

#if defined(__CUDACC__)

// The node of chunk c: the last node whose first chunk is at or before c, found by a whole warp:
// its lanes read 32 places of the range at once and keep the part after the last place at or below
// c, so that a level of 56 nodes takes one read where a binary search took six in a row, and one of
// 4,096 three where it took twelve (a 1M build's chunk kernels 2,912 -> 2,711 us, Nsight Compute,
// H100). Not PartitionPoint (core/lane_search.h): every warp of every chunk's block searches, and
// its four probes a lane and their sum across the warp took the 10M build's large-node stage from
// 25.1 to 31.2 ms (run 346). Every lane of the warp calls it.
__device__ uint32_t ChunkNode(const LargeLevelView& v, uint32_t c) {
    const uint32_t lane = threadIdx.x & 31u;
    uint32_t lo = 0, hi = v.node_count;  // the node is in [lo, hi)
    while (hi - lo > 1) {
        const uint32_t step = (hi - lo + 31) / 32;
        const uint32_t at = lo + lane * step;
        const uint32_t below = __ballot_sync(0xffffffffu, at < hi && v.nodes.chunk_first[at] <= c);
        lo += (31u - __clz(below)) * step;  // lane 0's place, lo, is always at or below c
        hi = min(hi, lo + step);
    }
    return lo;
}

// The block's keys by warp shuffles, then one atomic min or max per corner into item i of keys
// (Chang et al. 2013, section 13.2.2). Every thread of the block calls it; warp_keys is shared.
__device__ __forceinline__ void MergeBlockKeys(BoxKeys mine, uint32_t (&warp_keys)[6][32], uint32_t* const (&keys)[6], uint32_t i) {
    const WarpLanes lanes;
    const uint32_t lane = threadIdx.x & 31u, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    mine.Reduce(lanes);
    if (lane == 0)
        for (int a = 0; a < 6; ++a) warp_keys[a][warp] = mine.k[a];
    __syncthreads();
    if (warp != 0) return;
    BoxKeys block;
    if (lane < warps)
        for (int a = 0; a < 6; ++a) block.k[a] = warp_keys[a][lane];
    block.Reduce(lanes);
    if (lane == 0) block.MergeInto(keys, i);
}

// One block per chunk, one thread per entry (blockDim = chunk size, a multiple of 32): the
// chunk's box into its node's keys.
__global__ void ChunkBoundsKernel(LargeLevelView v) {
    detail::AfterPreviousKernel();
    __shared__ uint32_t warp_keys[6][32];
    const uint32_t last = v.node_count - 1;
    if (blockIdx.x >= v.nodes.chunk_first[last] + v.nodes.chunk_count[last]) return;
    const uint32_t node = ChunkNode(v, blockIdx.x);
    const uint32_t local = (blockIdx.x - v.nodes.chunk_first[node]) * blockDim.x + threadIdx.x;
    BoxKeys keys;
    if (local < v.nodes.count[node]) keys.Add(v.cur.Box(v.nodes.begin[node] + local));
    MergeBlockKeys(keys, warp_keys, v.nodes.key, node);
}

// One block per chunk: classification, an intra-warp scan by ballot/popc, an inter-warp scan by
// one warp's shuffles (WarpLanes), two atomic adds per chunk for its places in the children, then
// the writes (Chang et al. 2013, section 13.2.1.2 and their appendix kernel). Without kWrite it
// only counts; with kWrite but not kGather, dynamic shared memory holds kClipQueueWordsPerEntry
// words an entry; with kGather it also gathers the children's boxes (LargeLevelView::child_key).
// A chunk of SahParams' largest size (1,024 entries) runs as one block: 64 registers a thread.
//
// An entry whose triangle crosses the plane has its box clipped to each child's cell, and a warp
// that held any such entry waited for its clips, one side after the other, whatever its other
// lanes held. Those writes are queued in shared memory and done after the others by the block's
// first threads, 32 clips to a warp: the 10M build 56.1 -> 52.7 ms (its large-node stage 25.2 ->
// 21.8), 1M 7.0 -> 6.8 (run 350, H200). Not where the level gathers the children's boxes (up to
// kGatherChildBoxesEntriesMax entries): their keys held beside the queued clips spilled, and the
// 200K build went 2.6 -> 2.7 ms, the bunny's 1.67 -> 1.70-1.76 (run 349), so those levels clip in
// place.
constexpr uint32_t kClipQueueWordsPerEntry = 4;  // two queued writes an entry at most, two words each

template <bool kWrite, bool kGather>
__global__ void __launch_bounds__(1024) ChunkClassifyKernel(LargeLevelView v) {
    detail::AfterPreviousKernel();
    __shared__ uint32_t warp_offset[2][32];
    __shared__ uint32_t chunk_base[2];
    __shared__ uint32_t clip_count;  // writes queued for the clip
    const uint32_t last = v.node_count - 1;
    if (blockIdx.x >= v.nodes.chunk_first[last] + v.nodes.chunk_count[last]) return;
    const uint32_t node = ChunkNode(v, blockIdx.x);
    const uint32_t chunk_local = (blockIdx.x - v.nodes.chunk_first[node]) * blockDim.x;
    const uint32_t local = chunk_local + threadIdx.x;
    bool left = false, right = false;
    if (local < v.nodes.count[node]) ClassifyEntry(v, node, local, &left, &right);
    const uint32_t lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const uint32_t warps = blockDim.x >> 5;
    const uint32_t left_mask = __ballot_sync(0xffffffffu, left);
    const uint32_t right_mask = __ballot_sync(0xffffffffu, right);
    const uint32_t lanes_below = (1u << lane) - 1u;
    const uint32_t left_rank = __popc(left_mask & lanes_below);
    const uint32_t right_rank = __popc(right_mask & lanes_below);
    if (lane == 0) {
        warp_offset[0][warp] = __popc(left_mask);
        warp_offset[1][warp] = __popc(right_mask);
    }
    if (threadIdx.x == 0) clip_count = 0;
    __syncthreads();
    if (warp == 0) {
        const WarpLanes lanes;
        uint32_t total_l, total_r;
        const uint32_t before_l = lanes.ExclusiveScan(lane < warps ? warp_offset[0][lane] : 0u, 0u, Plus{}, total_l);
        const uint32_t before_r = lanes.ExclusiveScan(lane < warps ? warp_offset[1][lane] : 0u, 0u, Plus{}, total_r);
        if (lane < warps) {
            warp_offset[0][lane] = before_l;
            warp_offset[1][lane] = before_r;
        }
        if (lane == 0) {
            chunk_base[0] = total_l ? atomicAdd(&v.child_count[2 * node], total_l) : 0u;
            chunk_base[1] = total_r ? atomicAdd(&v.child_count[2 * node + 1], total_r) : 0u;
        }
    }
    if (!kWrite) return;
    __syncthreads();
    const uint32_t left_place = chunk_base[0] + warp_offset[0][warp] + left_rank;
    const uint32_t right_place = chunk_base[1] + warp_offset[1][warp] + right_rank;
    const int axis = v.nodes.split_axis[node];
    BoxKeys keys;
    // A leaf's entries go to the leaf store; the levels that gather the children's boxes clip in
    // place (above). The queued writes follow.
    if (kGather || axis < 0) {
        if (left) WriteEntry(v, node, local, 0, left_place, keys);
        // Without kGather only a leaf gets here; testing kGather too lets the compiler drop the
        // gathering below from that kernel.
        if (!kGather || axis < 0) return;
        // The children's boxes: one side after the other, so that a thread holds one box's keys
        // beside the clip's registers.
        __shared__ uint32_t warp_keys[2][6][32];
        MergeBlockKeys(keys, warp_keys[0], v.child_key, 2 * node);
        keys = BoxKeys();
        if (right) WriteEntry(v, node, local, 1, right_place, keys);
        MergeBlockKeys(keys, warp_keys[1], v.child_key, 2 * node + 1);
        return;
    }
    // Queued writes, two words each: the entry's thread with the side in bit 31, then its place.
    extern __shared__ uint32_t clip_queue[];
    const uint32_t first = v.nodes.begin[node] + chunk_local;  // the chunk's first entry
    if (left || right) {
        const uint32_t tri = v.cur.tri[first + threadIdx.x];
        const Aabb box = v.cur.Box(first + threadIdx.x);
        const auto write_or_queue = [&](int side, uint32_t place) {
            const uint32_t dst = v.child_first[2 * node + uint32_t(side)] + place;
            if (!LeavesChildCell(box, v.nodes.ChildCell(node, side), axis)) {
                v.next.Set(dst, tri, box);
                return;
            }
            const uint32_t q = atomicAdd(&clip_count, 1u);
            clip_queue[2 * q] = threadIdx.x | uint32_t(side) << 31;
            clip_queue[2 * q + 1] = dst;
        };
        if (left) write_or_queue(0, left_place);
        if (right) write_or_queue(1, right_place);
    }
    __syncthreads();
    for (uint32_t q = threadIdx.x; q < clip_count; q += blockDim.x) {
        const int side = int(clip_queue[2 * q] >> 31);
        const uint32_t e = first + (clip_queue[2 * q] & 0x7fffffffu), tri = v.cur.tri[e];
        const Aabb box = ClippedEntryBox(v.triangles[tri], v.cur.Box(e), v.nodes.ChildCell(node, side));
        v.next.Set(clip_queue[2 * q + 1], tri, box);
    }
}

#endif

}  // namespace

void ChunkBounds(const Backend& backend, const LargeLevelView& level, uint32_t chunk_bound) {
    if (level.node_count == 0 || chunk_bound == 0) return;
    if (backend.IsGpu()) {
#if defined(__CUDACC__)
        detail::Launch(backend, "kdtree chunk bounds", ChunkBoundsKernel, chunk_bound, level.chunk_size, 0, level);
        return;
#endif
    }
    (void)chunk_bound;  // the CPU walks the chunks it finds
    CA_CHECK(!backend.IsGpu());
    ChunkBoundsCpu(backend, level);
}

namespace {

void RunChunkClassify(const Backend& backend, const LargeLevelView& level, uint32_t chunk_bound, bool write) {
    if (level.node_count == 0 || chunk_bound == 0) return;
    if (backend.IsGpu()) {
#if defined(__CUDACC__)
        const auto kernel = !write               ? ChunkClassifyKernel<false, false>
                            : level.child_key[0] ? ChunkClassifyKernel<true, true>
                                                 : ChunkClassifyKernel<true, false>;
        const bool queues = write && !level.child_key[0];  // the clip queue (ChunkClassifyKernel)
        const size_t queue_bytes = queues ? kClipQueueWordsPerEntry * sizeof(uint32_t) * level.chunk_size : 0;
        detail::Launch(backend, write ? "kdtree chunk classify" : "kdtree chunk count", kernel, chunk_bound,
                       level.chunk_size, queue_bytes, level);
        return;
#endif
    }
    CA_CHECK(!backend.IsGpu());
    ChunkClassifyCpu(backend, level, write);
}

}  // namespace

void ChunkCount(const Backend& backend, const LargeLevelView& level, uint32_t chunk_bound) {
    RunChunkClassify(backend, level, chunk_bound, false);
}

void ChunkClassify(const Backend& backend, const LargeLevelView& level, uint32_t chunk_bound) {
    RunChunkClassify(backend, level, chunk_bound, true);
}

}  // namespace caustica::bfs
