// The BFS SAH kd-tree builder: Zhou et al. 2008, Algorithm 1 (initialization, large-node stage,
// small-node stage, output stage), with the per-chunk atomics and warp scans of Chang et al. 2013.
//
// Host code orders the passes and owns the work lists; every per-item pass is a CA_HD functor run
// by ParallelFor on either backend, except the two passes over chunks of triangles and the
// small-node split, which use warp intrinsics on the GPU (kdtree/triangle/bfs_chunk_passes.cpp and
// kdtree/triangle/bfs_small_split.cpp, with CPU twins). Each large level of launches reads back
// one small struct of sizes (LevelTotals), and a level of millions of entries also its children's
// count before it places them (kChildEntriesWithoutReadBack); large levels of few entries run in
// one block, many in a row with one read-back (SahParams' limits of work in one block); small-node
// levels of up to a few thousand nodes are queued behind each other, their sizes on the device, with
// one read-back for a run of them (kQueuedSmallLevels); the output stage reads back once.
#include "kdtree/triangle/bfs_builder.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "core/buffer.h"
#include "core/error.h"
#include "core/memory.h"
#include "core/lane_search.h"
#include "core/lanes.h"
#include "core/parallel_for.h"
#include "core/parallel_for_blocks.h"
#include "core/parallel_for_lanes.h"
#include "core/parallel_for_levels.h"
#include "core/primitives.h"
#include "core/readback.h"
#include "core/stage_area.h"
#include "kdtree/triangle/bfs_binned_sah.h"
#include "kdtree/triangle/bfs_build_state.h"
#include "kdtree/triangle/bfs_chunk_passes.h"
#include "kdtree/triangle/bfs_small_split.h"

namespace caustica {
namespace bfs {
namespace {

CA_HD inline uint64_t LowBits(uint32_t n) { return n >= 64 ? ~uint64_t(0) : ((uint64_t(1) << n) - 1); }

// ---- Initialization ----------------------------------------------------------------------------

struct InitEntries {
    const Triangle* triangles;
    EntriesView entries;
    CA_HD void operator()(int i) const { entries.Set(uint32_t(i), uint32_t(i), TriangleBox(triangles[i])); }
};

// The root as the only active large node.
struct InitRoot {
    LargeNodesView nodes;
    RecordsView records;
    LevelTotals* totals;
    uint32_t count;
    CA_HD void operator()(int) const {
        nodes.record[0] = 0;
        nodes.begin[0] = 0;
        nodes.count[0] = count;
        nodes.depth[0] = 0;
        nodes.useless_run[0] = 0;
        nodes.SetRegion(0, Aabb(Vec3(0.0f), Vec3(0.0f)));  // replaced by the root's box
        for (int a = 0; a < 3; ++a) {
            nodes.key[a][0] = kKeyMinIdentity;
            nodes.key[3 + a][0] = kKeyMaxIdentity;
        }
        records.SetHead(0, kUndecided, 0, 0);
        *totals = LevelTotals{};
    }
};

// Makes a node with n entries at begin in its list the small node 'root' of the first small level,
// with its entries to come at first in the root store (CopySmallRootEntries puts them there).
CA_HD inline void EmitSmallRoot(uint32_t begin, uint32_t n, uint32_t root, uint32_t first, uint32_t record,
                                int32_t depth, const Aabb& cell, const SmallRootsView& roots,
                                const SmallNodesView& small) {
    roots.first[root] = first;
    roots.count[root] = n;
    roots.source[root] = begin;
    small.record[root] = record;
    small.root[root] = root;
    small.mask[root] = LowBits(n);
    small.depth[root] = depth;
    small.SetRegion(root, cell);
}

// Copies the triangles of a level's new small roots (root_count of them from first_root, owning the
// root-store entries from first_entry on) into the store, sorted by index, so that the masks, the
// candidate order and the leaves' index order do not depend on the order in which the GPU's atomics
// laid the entries out. One item per entry: it finds its root among the new ones (their first
// entries increase), and the root's j-th source entry goes to its rank (at most 64 comparisons),
// where one thread sorting a root's entries kept the GPU waiting on it
// (docs/benchmarks-history.md, run 13).
struct CopySmallRootEntries {
    const uint32_t* src_tri;
    SmallRootsView roots;
    uint32_t first_entry, first_root, root_count;
    CA_HD void operator()(int i) const {
        const uint32_t e = first_entry + uint32_t(i);
        const uint32_t root = first_root + LastAtOrBelow(roots.first + first_root, root_count, e);
        const uint32_t first = roots.first[root], n = roots.count[root], begin = roots.source[root];
        const uint32_t j = e - first;
        const uint32_t t = src_tri[begin + j];
        uint32_t rank = 0;
        for (uint32_t k = 0; k < n; ++k) {
            const uint32_t other = src_tri[begin + k];
            rank += other < t || (other == t && k < j);
        }
        roots.tri[first + rank] = t;
    }
};

// A scene of at most T triangles starts in the small-node stage: its root is the only small root.
struct InitSmallRoot {
    EntriesView entries;
    uint32_t count;
    RecordsView records;
    SmallRootsView roots;
    SmallNodesView small;
    LevelTotals* totals;
    CA_HD void operator()(int) const {
        Aabb box;
        for (uint32_t i = 0; i < count; ++i) box = BoxUnion(box, entries.Box(i));
        *totals = LevelTotals{};
        for (int a = 0; a < 3; ++a) {
            totals->root_box[a] = box.lo[a];
            totals->root_box[3 + a] = box.hi[a];
        }
        records.SetHead(0, kUndecided, 0, 0);
        EmitSmallRoot(0, count, 0, 0, 0, 0, box, roots, small);
    }
};

// ---- Large-node stage (Zhou et al. 2008, Algorithm 2) ------------------------------------------

struct CountChunks {
    LargeNodesView nodes;
    uint32_t chunk_size;
    CA_HD void operator()(int i) const { nodes.chunk_count[i] = (nodes.count[i] + chunk_size - 1) / chunk_size; }
};

// Makes large node i a leaf whose triangles the classify pass copies into the leaf store.
CA_HD inline void MakeStoreLeaf(const LargeLevelView& level, LevelTotals* totals, uint32_t i) {
    const uint32_t rec = level.nodes.record[i];
    level.nodes.split_axis[i] = -1;
    level.records.SetHead(rec, kStoreLeaf, level.records.Depth(rec), 0);
    level.records.left[rec] = AtomicAdd(&totals->leaf_store_size, level.nodes.count[i]);
    level.records.right[rec] = level.nodes.count[i];
    AtomicAdd(&totals->large_leaves, 1);
}

// A split is useless when it separates little: it keeps nearly every triangle on both sides (more
// than 90% of them straddle the plane); or one child keeps every triangle and at least half of them
// go to both; or by the SAH it costs no less than a leaf (the children's areas weighted by their
// counts add up to the node's area times its count or more). Where many triangles share their
// bounds (copies of one mesh in one place) the counts never fall to the small-node stage, and
// without these rules each level halves the cell towards a point where copies only touch it (a
// quad's diagonal through a cell's corner): one child keeps all the copies, the other half of
// them, down to the depth bound, every level as long as the last. A few useless splits in a row
// are allowed, since the next median may fall on another axis (long thin triangles) or cut off
// more; after kMaxUselessRun the node becomes a leaf, which may then hold many triangles. A split
// that separates nothing (every triangle on both sides) makes a leaf at once. Cutting off empty
// space or a small share of the triangles is not useless (a sphere's cell above a floor).
constexpr uint32_t kMaxUselessRun = 3;
constexpr uint64_t kMaxLevelEntriesPerTriangle = 16;
CA_HD inline bool UselessSplit(const LargeLevelView& v, uint32_t i, float cost_traversal, float cost_intersection) {
    const uint32_t count = v.nodes.count[i], left = v.child_count[2 * i], right = v.child_count[2 * i + 1];
    if (10 * (uint64_t(left) + right) > 19 * uint64_t(count)) return true;
    if ((left == count || right == count) && 2 * (uint64_t(left) + right) >= 3 * uint64_t(count)) return true;
    const Aabb cell = v.nodes.Region(i);
    const int axis = v.nodes.split_axis[i];
    const float p = v.nodes.split_pos[i];
    const float area = cell.SurfaceArea();
    const float split = cost_traversal * area +
                        cost_intersection * (cell.Half(axis, p, 0).SurfaceArea() * float(left) +
                                             cell.Half(axis, p, 1).SurfaceArea() * float(right));
    return !(split < cost_intersection * float(count) * area);
}

// Levels of up to this many large nodes take the median-or-SAH choice (SahParams::
// median_or_sah_max_entries), whose bins for all of them the GPU holds at once (3 MB); larger
// levels split such nodes at the median. The choice's gain is in the first five levels (CPU, the
// champagne and the sky; docs/notes/triangle-tree-performance.md, objects on a floor).
constexpr uint32_t kMedianOrSahLevelNodesMax = 2048;

// A large node's cell with empty space cut off on each side where the cut takes more than
// SahParams::empty_space_area_ratio of the cell's surface area (Zhou et al. 2008, section 3.1, Fig.
// 2, by a share of the extent instead): the planes of the cuts and their chain
// (RecordsView::SetHead).
struct EmptySpaceCuts {
    Aabb tight, cut;
    float planes[6];
    int count = 0;
    uint32_t chain = 0;
};

// Chooses each node's split: empty space cut off (EmptySpaceCuts), then, for a node of at most
// binned_sah_max_entries entries, the SAH's choice among its box faces (bfs_binned_sah.h); for a
// larger one of at most median_or_sah_max_entries, the spatial median of the longest axis (Zhou et
// al. 2008) unless a box face costs less than median_weight times the median; larger ones, the
// median. Or a leaf at the depth bound or for a box without extent. A warp (or one CPU thread) a
// node: every lane works out the node's cell, lane 0 writes.
struct SplitLargeNodes {
    using Scratch = SahBins;
    LargeLevelView level;
    LevelTotals* totals;
    float empty_space_area_ratio;
    int max_depth;
    uint32_t binned_sah_max_entries, median_or_sah_max_entries;
    float median_weight;
    float cost_traversal, cost_intersection;
    // The median-or-SAH nodes' bins, which BinMedianOrSahChunks gathered (a NodeSahBins a node),
    // or null, where each such node bins its own entries.
    NodeSahBins* gathered = nullptr;
    // At the entry bound every node becomes a leaf (LargeStage).
    CA_HD static SplitLargeNodes Of(const LargeLevelView& level, LevelTotals* totals, const SahParams& p,
                                    bool entry_bound) {
        const bool median_or_sah = level.node_count <= kMedianOrSahLevelNodesMax;
        return {level,
                totals,
                p.empty_space_area_ratio,
                entry_bound ? 0 : p.max_depth,
                uint32_t(p.binned_sah_max_entries),
                median_or_sah ? uint32_t(p.median_or_sah_max_entries) : 0u,
                p.median_weight,
                p.cost_traversal,
                p.cost_intersection};
    }
    // Node i's tight box (its entries' box, from ChunkBounds) and its cell after the cuts.
    CA_HD EmptySpaceCuts CutsOf(uint32_t i) const {
        const LargeNodesView& nodes = level.nodes;
        EmptySpaceCuts c;
        for (int a = 0; a < 3; ++a) {
            c.tight.lo[a] = KeyFloat(nodes.key[a][i]);
            c.tight.hi[a] = KeyFloat(nodes.key[3 + a][i]);
        }
        const Aabb cell = nodes.record[i] == 0 ? c.tight : nodes.Region(i);  // the root's cell is its box
        c.cut = cell;
        // Cut chains stop where the split would pass the depth bound.
        const int budget = max_depth - 1 - nodes.depth[i];
        const Vec3 extent = cell.Extent();
        const float limit = empty_space_area_ratio * cell.SurfaceArea();
        for (int a = 0; a < 3; ++a) {
            // A cut of depth d on axis a takes 2 d (the other two extents) of the cell's area.
            const float rim = 2.0f * (extent[(a + 1) % 3] + extent[(a + 2) % 3]);
            if (c.count < budget && (c.tight.lo[a] - cell.lo[a]) * rim > limit) {
                c.planes[c.count] = c.tight.lo[a];
                c.chain |= uint32_t(a) << (3 + 3 * c.count);
                c.cut.lo[a] = c.tight.lo[a];
                ++c.count;
            }
            if (c.count < budget && (cell.hi[a] - c.tight.hi[a]) * rim > limit) {
                c.planes[c.count] = c.tight.hi[a];
                c.chain |= (uint32_t(a) | 4u) << (3 + 3 * c.count);
                c.cut.hi[a] = c.tight.hi[a];
                ++c.count;
            }
        }
        return c;
    }
    CA_HD bool IsLeaf(uint32_t i, const EmptySpaceCuts& c) const {
        return level.nodes.depth[i] >= max_depth || MaxComponent(c.tight.Extent()) <= 0.0f;
    }
    // Whether any node of a level of this many entries may weigh the median against its box faces.
    bool AnyMedianOrSah(uint32_t entry_count) const {
        return max_depth > 0 && median_or_sah_max_entries > binned_sah_max_entries &&
               entry_count > binned_sah_max_entries;
    }
    // Whether node i, which splits, weighs the median against its box faces.
    CA_HD bool MedianOrSah(uint32_t i) const {
        const uint32_t count = level.nodes.count[i];
        return count > binned_sah_max_entries && count <= median_or_sah_max_entries;
    }
    template <class Lanes>
    CA_HD void Run(const Lanes& lanes, SahBins& bins, uint32_t i) const {
        const LargeNodesView& nodes = level.nodes;
        const RecordsView& records = level.records;
        const bool writer = lanes.Lane() == 0;
        const uint32_t rec = nodes.record[i];
        const int32_t depth = nodes.depth[i];
        const EmptySpaceCuts c = CutsOf(i);
        if (writer) {
            if (rec == 0)
                for (int a = 0; a < 3; ++a) {
                    totals->root_box[a] = c.tight.lo[a];
                    totals->root_box[3 + a] = c.tight.hi[a];
                }
            level.child_count[2 * i] = 0;
            level.child_count[2 * i + 1] = 0;
            if (level.child_key[0]) {
                BoxKeys().StoreAt(level.child_key, 2 * i);
                BoxKeys().StoreAt(level.child_key, 2 * i + 1);
            }
            records.SetHead(rec, kUndecided, uint32_t(depth), 0);
        }
        if (IsLeaf(i, c)) {
            if (writer) MakeStoreLeaf(level, totals, i);
            return;
        }
        int axis = c.cut.LongestAxis();
        float split = 0.5f * (c.cut.lo[axis] + c.cut.hi[axis]);
        int planar_side = -1;  // the median: triangles lying in its plane go to both sides
        const uint32_t count = nodes.count[i];
        if (count <= binned_sah_max_entries) {
            ChooseBinnedSahSplit(lanes, bins, nullptr, level.cur, nodes.begin[i], count, c.cut, cost_traversal,
                                 cost_intersection, MedianCandidate{}, &axis, &split, &planar_side);
        } else if (MedianOrSah(i)) {
            ChooseBinnedSahSplit(lanes, bins, gathered ? gathered + i : nullptr, level.cur, nodes.begin[i], count,
                                 c.cut, cost_traversal, cost_intersection, MedianCandidate{axis, median_weight}, &axis,
                                 &split, &planar_side);
        }
        if (!writer) return;
        for (int k = 0; k < c.count; ++k) records.cuts[6 * size_t(rec) + k] = c.planes[k];
        records.SetHead(rec, uint32_t(axis), uint32_t(depth), c.chain | uint32_t(c.count));
        records.SetSplit(rec, split);
        nodes.SetRegion(i, c.cut);
        nodes.split_axis[i] = axis;
        nodes.split_pos[i] = split;
        nodes.planar_side[i] = planar_side;
    }
};

// Empties the median-or-SAH bins, a bin of an axis of a node an item, so that a warp's stores to
// one list of an axis's bins lie side by side. With an axis an item (each thread's stores 528 bytes
// from its neighbour's) the pass took 40 us in Nsight Compute's replay of a teapot build
// (docs/notes/triangle-tree-performance.md).
struct ClearNodeSahBins {
    NodeSahBins* bins;
    CA_HD void operator()(int i) const {
        const uint32_t axis = uint32_t(i) / kSahBins;
        ClearSahBin(bins[axis / 3].axis[axis % 3], uint32_t(i) % kSahBins);
    }
};

// The median-or-SAH nodes' bins (SplitLargeNodes::gathered) over the level's chunks, a GPU block
// (or a CPU thread) a run of kChunks chunks, each node's part of the run binned in the block's
// scratch and merged into the node's bins with atomics. A block or a warp walking a node of tens
// of thousands of entries three times cost 10M triangles' build 55.7 -> 59.8 ms; this pass, 56.6
// -> 57.4 (H200, docs/notes/triangle-tree-performance.md, objects on a floor). The bins start
// empty; the split pass empties them again as it reads them.
struct BinMedianOrSahChunks {
    static constexpr uint32_t kThreads = 256;
    static constexpr uint32_t kChunks = 4;
    using Scratch = NodeSahBins;
    SplitLargeNodes split;
    static uint32_t Runs(uint32_t chunk_bound) { return (chunk_bound + kChunks - 1) / kChunks; }
    template <class Block>
    CA_HD void Run(const Block& block, NodeSahBins& bins, uint32_t run) const {
        const LargeLevelView& v = split.level;
        const uint32_t last = v.node_count - 1;
        const uint32_t chunks = v.nodes.chunk_first[last] + v.nodes.chunk_count[last];
        uint32_t node = ~0u;
        bool binning = false;  // whether the bins hold node's part
        EmptySpaceCuts cuts;
        for (uint32_t c = run * kChunks; c < (run + 1) * kChunks && c < chunks; ++c) {
            const uint32_t at = LastAtOrBelow(v.nodes.chunk_first, v.node_count, c);
            if (at != node) {
                if (binning) Merge(block, bins, node, cuts.cut);
                node = at;
                cuts = split.CutsOf(node);
                binning = split.MedianOrSah(node) && !split.IsLeaf(node, cuts);
                if (binning) {
                    for (int a = 0; a < 3; ++a) ClearSahBins(block, bins.axis[a]);
                    block.Sync();
                }
            }
            if (!binning) continue;
            const uint32_t first = (c - v.nodes.chunk_first[node]) * v.chunk_size;
            const uint32_t end = first + v.chunk_size < v.nodes.count[node] ? first + v.chunk_size : v.nodes.count[node];
            for (int a = 0; a < 3; ++a)
                if (cuts.cut.hi[a] > cuts.cut.lo[a])
                    BinEntries(block, bins.axis[a], v.cur, v.nodes.begin[node] + first, end - first, cuts.cut, a);
        }
        if (binning) Merge(block, bins, node, cuts.cut);
    }
    template <class Block>
    CA_HD void Merge(const Block& block, NodeSahBins& bins, uint32_t node, const Aabb& cell) const {
        block.Sync();
        for (int a = 0; a < 3; ++a)
            if (cell.hi[a] > cell.lo[a]) MergeSahBins(block, bins.axis[a], split.gathered[node].axis[a]);
        block.Sync();  // before the bins serve the next node
    }
};

// SplitLargeNodes with a GPU block a node (one CPU thread, as before): on a level of a few nodes of
// about a thousand entries each, a warp a node walked its entries' bins 30 times in a row, 41 us a
// level of the ring's 3,074 triangles with 4 to 8 nodes; a block a node took the ring's ten levels
// of launches from 224 to 97 us of kernel time (Nsight Compute, H100). Up to 2,048 nodes, where
// the limit was 256: 200K triangles 3.59 -> 3.45 / 3.36 ms, 1M 9.67 -> 9.58 / 9.50; at every
// level the 10M build took 81.2 ms against 79.4 (H100).
constexpr uint32_t kBlockPerLargeNodeMax = 2048;  // levels of up to this many nodes

struct SplitLargeNodesByBlock {
    static constexpr uint32_t kThreads = 256;
    using Scratch = SahBins;
    SplitLargeNodes split;
    template <class Block>
    CA_HD void Run(const Block& block, SahBins& bins, uint32_t i) const {
        split.Run(block, bins, i);
    }
};

// After the count pass: turns nodes whose split would be useless once too often into leaves,
// counts the cuts that stay, gives the children their places in the next list (child_first), and
// clears the counters for the classify pass. The places are the parent's count apart, as Zhou et
// al. 2008 have them, or, with compact, the children's counts, which a scan then turns into places
// one after another (kChildEntriesWithoutReadBack).
struct JudgeSplits {
    LargeLevelView level;
    LevelTotals* totals;
    float cost_traversal, cost_intersection;
    bool compact;
    CA_HD void operator()(int ii) const {
        const uint32_t i = uint32_t(ii);
        const uint32_t left = level.child_count[2 * i], right = level.child_count[2 * i + 1];
        const uint32_t count = level.nodes.count[i];
        const bool leaf = level.nodes.split_axis[i] >= 0 && UselessSplit(level, i, cost_traversal, cost_intersection) &&
                          (level.nodes.useless_run[i] >= kMaxUselessRun || (left == count && right == count));
        level.child_count[2 * i] = 0;
        level.child_count[2 * i + 1] = 0;
        const bool splits = level.nodes.split_axis[i] >= 0 && !leaf;
        if (compact) {
            level.child_first[2 * i] = splits ? left : 0;
            level.child_first[2 * i + 1] = splits ? right : 0;
        } else {
            level.child_first[2 * i] = 2 * level.nodes.count_scan[i];
            level.child_first[2 * i + 1] = 2 * level.nodes.count_scan[i] + count;
        }
        if (level.nodes.split_axis[i] < 0) return;
        if (leaf) {
            MakeStoreLeaf(level, totals, i);
            return;
        }
        const uint32_t cuts = level.records.Chain(level.nodes.record[i]) & 7u;
        if (cuts > 0) AtomicAdd(&totals->empty_space_cuts, cuts);
    }
};

enum SlotKind : uint32_t { kDead = 0, kActive = 1, kSmall = 2 };

// What each child (two slots per node) becomes: a next active node, a small root, or nothing
// (the children of leaves).
CA_HD inline SlotKind ClassifySlot(const LargeLevelView& v, uint32_t s, uint32_t small_threshold) {
    if (v.nodes.split_axis[s >> 1] < 0) return kDead;
    return v.child_count[s] <= small_threshold ? kSmall : kActive;
}

struct FlagSlots {
    LargeLevelView level;
    uint32_t small_threshold;
    uint32_t *active, *small, *active_count, *small_count;
    CA_HD void operator()(int ss) const {
        const uint32_t s = uint32_t(ss);
        const SlotKind kind = ClassifySlot(level, s, small_threshold);
        const uint32_t n = level.child_count[s];
        active[s] = kind == kActive;
        small[s] = kind == kSmall;
        active_count[s] = kind == kActive ? n : 0;
        small_count[s] = kind == kSmall ? n : 0;
    }
};

// Writes the children: next active nodes and small roots (whose records follow the active ones).
struct EmitLargeChildren {
    LargeLevelView level;
    LargeNodesView next_nodes;
    SmallRootsView roots;
    SmallNodesView small;
    uint32_t small_threshold;
    uint32_t slot_count;
    const uint32_t *active, *active_scan, *small_scan, *small_count_scan;
    uint32_t record_base, root_base, root_entry_base;
    float cost_traversal, cost_intersection;
    CA_HD void operator()(int ss) const {
        const uint32_t s = uint32_t(ss);
        const SlotKind kind = ClassifySlot(level, s, small_threshold);
        if (kind == kDead) return;
        const LargeNodesView& nodes = level.nodes;
        const RecordsView& records = level.records;
        const uint32_t i = s >> 1;
        const int side = int(s & 1);
        const uint32_t parent = nodes.record[i];
        const int32_t depth = nodes.depth[i] + int32_t(records.Chain(parent) & 7u) + 1;
        const Aabb cell = nodes.ChildCell(i, side);
        const uint32_t begin = level.child_first[s];
        const uint32_t n = level.child_count[s];
        const uint32_t active_total = active_scan[slot_count - 1] + active[slot_count - 1];
        uint32_t rec;
        if (kind == kActive) {
            const uint32_t j = active_scan[s];
            rec = record_base + j;
            next_nodes.begin[j] = begin;
            next_nodes.count[j] = n;
            next_nodes.SetRegion(j, cell);
            (level.child_key[0] ? BoxKeys::At(level.child_key, s) : BoxKeys()).StoreAt(next_nodes.key, j);
            next_nodes.record[j] = rec;
            next_nodes.depth[j] = depth;
            const bool useless = UselessSplit(level, i, cost_traversal, cost_intersection);
            next_nodes.useless_run[j] = useless ? nodes.useless_run[i] + 1 : 0;
        } else {
            const uint32_t j = small_scan[s];
            rec = record_base + active_total + j;
            EmitSmallRoot(begin, n, root_base + j, root_entry_base + small_count_scan[s], rec, depth, cell, roots,
                          small);
        }
        records.SetHead(rec, kUndecided, uint32_t(depth), 0);  // until its level decides
        (side == 0 ? records.left : records.right)[parent] = rec;
    }
};

struct LargeLevelTotals {
    LevelTotals* totals;
    uint32_t last;
    const uint32_t *active, *active_scan, *small, *small_scan, *active_count, *active_count_scan, *small_count,
        *small_count_scan;
    ReadbackTarget to_host;  // the totals, for the host
    CA_HD void operator()(int) const {
        totals->next_nodes = active_scan[last] + active[last];
        totals->new_small_roots = small_scan[last] + small[last];
        totals->new_small_entries = small_count_scan[last] + small_count[last];
        totals->next_entries = active_count_scan[last] + active_count[last];
        to_host.Write(*totals);
    }
};

// Up to SahParams::children_in_one_block_max items (child slots of a large level, nodes of a small
// one), the passes of a level that follow its split decisions run in one block, one after another
// behind the block's barriers, where each would be a launch of its own: a level of a small scene is
// a few hundred nodes, and the launches, not the work, are its time.
constexpr uint32_t kLevelBlockThreads = 1024;

// Zhou et al. 2008 leave room in the next list for both children of a large node to hold all of
// its entries, twice the level's entries in all. Levels of launches whose children may have more
// than this many entries place them one after another instead, each child its count apart
// (JudgeSplits' compact places), and read their count back first, so that the list holds them and
// an eighth more; smaller levels (every level of a generated scene of 1.5M triangles, whose largest
// has 1.77M entries), and larger ones where the list already has the room, keep the places and need
// neither the read-back nor the scan.
constexpr size_t kChildEntriesWithoutReadBack = size_t(1) << 22;

// Levels of launches of up to this many entries gather their children's boxes as they write the
// children's entries (LargeLevelView::child_key), so that the next level needs no chunk bounds
// launch, which in a small scene costs more than its work: the ring's build 0.91 -> 0.84 ms, the
// teapot's 1.08 -> 1.01 (H100, docs/benchmarks-history.md run 147). Larger levels keep the bounds
// pass: the reductions added to every chunk of the classification cost more than the pass's reads
// (gathering at every level, run 145: a 1M build's classification 1.57 -> 1.88 ms against the
// pass's 0.39; the 10M build 60.40 -> 61.39 ms).
constexpr uint32_t kGatherChildBoxesEntriesMax = uint32_t(1) << 19;

// Up to this many new small-root entries, the block of LargeChildrenPass also copies them.
constexpr uint32_t kSmallRootEntriesInOneBlockMax = 8192;

// The children of a large level in one block: the flags and scans of the child slots, the
// children, the level's totals, the new small roots' entries (up to the bound above), and the
// next level's chunk counts and their scans (the first passes of the next level, which the host
// then leaves out).
struct LargeChildrenPass {
    static constexpr uint32_t kThreads = kLevelBlockThreads;
    using Scratch = NoScratch;
    FlagSlots flags;               // writes slots[0, 4)
    EmitLargeChildren children;    // reads slots[0] and the scans slots[4], slots[5], slots[7]
    CopySmallRootEntries copy;     // its root_count: the level's new small roots (slots' sums[1])
    uint32_t* slots[8];            // as the host's slot buffers: four flag lists, then their scans
    LevelTotals* totals;
    uint32_t chunk_size;
    uint32_t copy_max;             // the most new small-root entries the block copies
    ReadbackTarget to_host = {};   // the totals, for the host, as soon as they are known
    template <class Block>
    CA_HD void Run(const Block& block, NoScratch&, uint32_t) const {
        const uint32_t slot_count = children.slot_count;
        for (uint32_t s = block.Lane(); s < slot_count; s += Block::kCount) flags(int(s));
        block.Sync();
        uint32_t sums[4];
        for (int k = 0; k < 4; ++k) sums[k] = ExclusiveScanInRounds(block, slots[k], slots[4 + k], slot_count);
        block.Sync();
        for (uint32_t s = block.Lane(); s < slot_count; s += Block::kCount) children(int(s));
        if (block.Lane() == 0) {  // as LargeLevelTotals
            totals->next_nodes = sums[0];
            totals->new_small_roots = sums[1];
            totals->next_entries = sums[2];
            totals->new_small_entries = sums[3];
            to_host.Write(*totals);
        }
        block.Sync();
        if (sums[3] <= copy_max) {
            CopySmallRootEntries level_copy = copy;
            level_copy.root_count = sums[1];
            for (uint32_t j = block.Lane(); j < sums[3]; j += Block::kCount) level_copy(int(j));
        }
        const LargeNodesView& next = children.next_nodes;
        const CountChunks count_chunks{next, chunk_size};
        for (uint32_t j = block.Lane(); j < sums[0]; j += Block::kCount) count_chunks(int(j));
        block.Sync();
        ExclusiveScanInRounds(block, next.count, next.count_scan, sums[0]);
        ExclusiveScanInRounds(block, next.chunk_count, next.chunk_first, sums[0]);
    }
};

// ---- Whole large levels in one block ------------------------------------------------------------

// Whole large levels of at most large_levels_in_one_block_max entries and child slots run in one
// block, one after another while they fit: the same passes as a level of launches, behind the
// block's barriers, with no read-back between the levels. The last levels of a build are such
// levels (the Cornell box's last twelve of 28 at the default 1,024). The limit is measured: one
// block's levels cost more than launches' once they have a few thousand entries (H200, 2026-11-27,
// docs/notes/triangle-tree-performance.md).
constexpr uint32_t kMaxRunLevels = 256;  // a level is at least one deeper than the one before

// The host's loop variables, which a run starts from and ends with, and what it adds to the stats.
struct LargeRunState {
    uint32_t active = 1, entry_count = 0, rec_count = 1, s_roots = 0, s_entries = 0, cur = 0;
    uint32_t leaf_store_size = 0;
    uint32_t chunks_counted = 0;  // the current level's chunk counts and their scans are made
    uint32_t bounds_known = 0;    // its nodes' tight boxes are made (the level before gathered them)
    uint32_t levels = 0;          // levels run
    uint32_t entry_bound_leaves = 0;
    uint64_t large_nodes = 0, large_entries = 0, peak_active_nodes = 0, peak_entries = 0;
    // On to the next level from this one's totals; next_chunks_counted: its chunk counts and their
    // scans are made (LargeChildrenPass); next_bounds_known: its nodes' boxes (child_key).
    CA_HD void Advance(const LevelTotals& t, bool next_chunks_counted, bool next_bounds_known) {
        rec_count += t.next_nodes + t.new_small_roots;
        s_roots += t.new_small_roots;
        s_entries += t.new_small_entries;
        leaf_store_size = t.leaf_store_size;
        active = t.next_nodes;
        entry_count = t.next_entries;
        cur = 1 - cur;
        chunks_counted = uint32_t(next_chunks_counted);
        bounds_known = uint32_t(next_bounds_known);
    }
};
struct LargeRun {
    LargeRunState state;
    uint32_t level_ends[kMaxRunLevels];  // the record count after each level run
};

// The items the run's buffers hold, as the host reserved them.
struct LargeRunRoom {
    uint32_t entries;       // each entry list
    uint32_t nodes;         // each large-node list, the slot lists, child_count, child_first
    uint32_t items;         // the prefix list of a level's entries
    uint32_t records, small_roots, root_entries, leaf_store;
};

// Whether the level that s stands at runs in one block: small enough, and its outputs fit the room.
CA_HD inline bool LevelFitsRun(const LargeRunState& s, const LargeRunRoom& room, uint32_t limit) {
    const uint64_t slots = 2 * uint64_t(s.active), entries = s.entry_count;
    return s.active > 0 && s.levels < kMaxRunLevels && slots <= limit && entries <= limit && entries < (1u << 16) &&
           slots <= room.nodes && 2 * entries <= room.entries && entries + 1 <= room.items &&
           s.rec_count + slots <= room.records && s.s_roots + slots <= room.small_roots &&
           s.s_entries + 2 * entries <= room.root_entries && s.leaf_store_size + entries <= room.leaf_store;
}

// In LargeLevelsPass, a node of more than kWarpSplitEntriesMax entries chooses its split with a
// part of the block (its entries' bins shared by 8 warps, as SplitLargeNodesByBlock's), the others
// with a warp each: a warp alone walked a node of a thousand entries 30 rounds an axis.
constexpr uint32_t kSplitPartThreads = 256;
constexpr uint32_t kWarpSplitEntriesMax = 256;

struct LargeLevelsPass {
    static constexpr uint32_t kThreads = kLevelBlockThreads;
    struct Scratch {
        SahBins bins[kLevelBlockThreads / 32];  // a warp's or a part's split choice (SplitLargeNodes)
    };
    EntriesView entries[2];
    LargeNodesView nodes[2];
    const Triangle* triangles;
    uint32_t triangle_count;
    RecordsView records;
    SmallRootsView roots;
    SmallNodesView small;
    uint32_t* child_count;
    uint32_t* child_first;
    uint32_t* leaf_store;
    uint32_t* slots[8];
    uint32_t* item_scan;  // the prefix list of a level's entries' sides (room.items)
    LevelTotals* totals;
    LargeRunState start;  // the host's loop variables, with the counts of the run at zero
    ReadbackTarget run;   // the run's end (a LargeRun), which lane 0 writes to the host as it goes
    LargeRunRoom room;
    SahParams params;

    // ChunkBounds: a warp per chunk, one atomic min or max per chunk and corner.
    template <class Block>
    CA_HD void Bounds(const Block& block, const LargeLevelView& v) const {
        using Warp = decltype(block.Warp());
        const Warp warp = block.Warp();
        const uint32_t last = v.node_count - 1;
        const uint32_t chunks = v.nodes.chunk_first[last] + v.nodes.chunk_count[last];
        for (uint32_t c = block.WarpIndex(); c < chunks; c += Block::kWarps) {
            const uint32_t node = LastAtOrBelow(v.nodes.chunk_first, v.node_count, c);
            const uint32_t first = (c - v.nodes.chunk_first[node]) * v.chunk_size;
            const uint32_t end = first + v.chunk_size < v.nodes.count[node] ? first + v.chunk_size : v.nodes.count[node];
            BoxKeys keys;
            for (uint32_t local = first + warp.Lane(); local < end; local += Warp::kCount)
                keys.Add(v.cur.Box(v.nodes.begin[node] + local));
            keys.Reduce(warp);
            if (warp.Lane() == 0) keys.MergeInto(v.nodes.key, node);
        }
    }

    // ChunkCount (write = false) or ChunkClassify: each entry's place in its children by one scan
    // over the level's entries in order, so the children list their entries as the CPU's chunks
    // do. An entry's sides are packed into one word, left in the low half (a run's levels have
    // fewer than 2^16 entries).
    template <class Block>
    CA_HD void Classify(const Block& block, const LargeLevelView& v, uint32_t item_count, bool write) const {
        uint32_t* sides = item_scan;
        const uint32_t* first_item = v.nodes.count_scan;
        for (uint32_t k = block.Lane(); k < item_count; k += Block::kCount) {
            const uint32_t node = LastAtOrBelow(first_item, v.node_count, k);
            bool l, r;
            ClassifyEntry(v, node, k - first_item[node], &l, &r);
            sides[k] = uint32_t(l) | uint32_t(r) << 16;
        }
        block.Sync();
        const uint32_t total = ExclusiveScanInRounds(block, sides, sides, item_count);
        if (block.Lane() == 0) sides[item_count] = total;
        block.Sync();
        for (uint32_t i = block.Lane(); i < v.node_count; i += Block::kCount) {
            const uint32_t first = first_item[i], end = first + v.nodes.count[i];
            const uint32_t n = sides[end] - sides[first];
            v.child_count[2 * i] = n & 0xffffu;
            v.child_count[2 * i + 1] = n >> 16;
        }
        if (!write) return;
        for (uint32_t k = block.Lane(); k < item_count; k += Block::kCount) {
            const uint32_t node = LastAtOrBelow(first_item, v.node_count, k);
            const uint32_t local = k - first_item[node];
            const uint32_t here = sides[k + 1] - sides[k], before = sides[k] - sides[first_item[node]];
            BoxKeys none;  // the run's levels find their nodes' boxes themselves (Bounds)
            if (here & 0xffffu) WriteEntry(v, node, local, 0, before & 0xffffu, none);
            if (here >> 16) WriteEntry(v, node, local, 1, before >> 16, none);
        }
    }

    template <class Block>
    CA_HD void Run(const Block& block, Scratch& scratch, uint32_t) const {
        NoScratch none;
        const uint32_t chunk = uint32_t(params.chunk_size);
        const uint32_t threshold = uint32_t(params.small_node_threshold);
        const uint32_t limit = uint32_t(params.large_levels_in_one_block_max);
        LargeRunState s = start;  // every lane keeps the same copy
        while (LevelFitsRun(s, room, limit)) {
            const uint32_t nxt = 1 - s.cur, active = s.active, slot_count = 2 * active;
            s.levels++;
            s.large_nodes += active;
            s.large_entries += s.entry_count;
            s.peak_active_nodes = s.peak_active_nodes > active ? s.peak_active_nodes : active;
            s.peak_entries = s.peak_entries > s.entry_count ? s.peak_entries : s.entry_count;
            const LargeNodesView& cur = nodes[s.cur];
            if (!s.chunks_counted) {
                const CountChunks count_chunks{cur, chunk};
                for (uint32_t i = block.Lane(); i < active; i += Block::kCount) count_chunks(int(i));
                block.Sync();
                ExclusiveScanInRounds(block, cur.count, cur.count_scan, active);
                ExclusiveScanInRounds(block, cur.chunk_count, cur.chunk_first, active);
                block.Sync();
            }
            const bool entry_bound = uint64_t(s.entry_count) > kMaxLevelEntriesPerTriangle * uint64_t(triangle_count);
            s.entry_bound_leaves |= uint32_t(entry_bound);
            const LargeLevelView level{cur,       active,  chunk,       entries[s.cur], entries[nxt],
                                       triangles, records, child_count, child_first,    leaf_store};
            if (!s.bounds_known) Bounds(block, level);
            block.Sync();
            const SplitLargeNodes split = SplitLargeNodes::Of(level, totals, params, entry_bound);
            constexpr uint32_t kPart = kSplitPartThreads;
            const uint32_t part = block.template PartIndex<kPart>();
            for (uint32_t i = part; i < active; i += Block::template Parts<kPart>())
                if (cur.count[i] > kWarpSplitEntriesMax) split.Run(block.template Part<kPart>(), scratch.bins[part], i);
            block.Sync();  // the parts' bins serve the first warps
            for (uint32_t i = block.WarpIndex(); i < active; i += Block::kWarps)
                if (cur.count[i] <= kWarpSplitEntriesMax) split.Run(block.Warp(), scratch.bins[block.WarpIndex()], i);
            block.Sync();
            Classify(block, level, s.entry_count, false);
            block.Sync();
            const JudgeSplits judge{level, totals, params.cost_traversal, params.cost_intersection, false};
            for (uint32_t i = block.Lane(); i < active; i += Block::kCount) judge(int(i));
            block.Sync();
            Classify(block, level, s.entry_count, true);
            block.Sync();
            const FlagSlots flags{level, threshold, slots[0], slots[1], slots[2], slots[3]};
            const EmitLargeChildren children{level,     nodes[nxt], roots,     small,      threshold,
                                             slot_count, slots[0],  slots[4],  slots[5],   slots[7],
                                             s.rec_count, s.s_roots, s.s_entries, params.cost_traversal,
                                             params.cost_intersection};
            const CopySmallRootEntries copy{entries[nxt].tri, roots, s.s_entries, s.s_roots, 0};
            LargeChildrenPass{flags, children, copy, {slots[0], slots[1], slots[2], slots[3], slots[4], slots[5], slots[6], slots[7]},
                              totals, chunk, ~0u}
                .Run(block, none, 0);
            block.Sync();
            s.Advance(*totals, true, false);
            if (block.Lane() == 0) run.Place<LargeRun>()->level_ends[s.levels - 1] = s.rec_count;
        }
        if (block.Lane() == 0) {
            run.Place<LargeRun>()->state = s;
            run.Done();
        }
    }
};

// ---- Small-node stage (Zhou et al. 2008, Algorithm 4; Chang et al. 2013, section 13.3) ---------

// The roots of a batch's entries: a thread a root.
struct BatchEntryRoots {
    SmallRootsView roots;
    uint32_t first_root;
    CA_HD void operator()(int i) const {
        const uint32_t root = first_root + uint32_t(i), first = roots.first[root], n = roots.count[root];
        for (uint32_t j = 0; j < n; ++j) roots.EntryRoot(first + j) = root;
    }
};

// The boxes of a batch's entries (RootEntryBox): a thread an entry.
struct BatchEntryBoxes {
    SmallRootsView roots;
    SmallNodesView root_nodes;  // the small roots' cells
    const Triangle* triangles;
    CA_HD void operator()(int i) const {
        const uint32_t e = roots.batch_first + uint32_t(i);
        const Aabb box = RootEntryBox(triangles[roots.tri[e]], root_nodes.Region(roots.EntryRoot(e)));
        for (int a = 0; a < 3; ++a) {
            roots.BoxBound(a, e) = box.lo[a];
            roots.BoxBound(3 + a, e) = box.hi[a];
        }
    }
};

// PreprocessSmallNodes: the candidates are the faces of the small root's triangles' boxes, each
// with the masks of the root's triangles on its left and right, computed once. Triangles lying in
// a candidate's plane go to one side only, as in Wald and Havran 2006: to the left for a box's
// lower face, to the right for its upper face. Such a triangle's own two faces are one plane, so
// both choices are candidates and the SAH picks the cheaper; putting them on both sides, as the
// large-node stage does, counted every flat face of a machined part twice.
//
// A thread takes both faces of an entry's box on one axis, whose planes it compares with the same
// bounds of the root's entries, 32 of them at a time with constant shifts: the masks' bits are
// set by predicated ors, where a shift by the entry's number cost more than the comparisons.
struct PreprocessSmallNodes {
    SmallRootsView roots;  // the batch's candidates: those of its entries, from batch_first on
    // Item i: the batch's entry i / 3, axis i % 3.
    CA_HD void operator()(int ii) const {
        const uint32_t i = uint32_t(ii), e = roots.batch_first + i / 3, axis = i % 3;
        const float* lo = SelectAt(roots.batch_box, int(axis));  // the batch's entries' bounds on the axis
        const float* hi = SelectAt(roots.batch_box, int(3 + axis));
        const float p[2] = {lo[e - roots.batch_first], hi[e - roots.batch_first]};
        const uint32_t root = roots.EntryRoot(e);
        const uint32_t first = roots.first[root] - roots.batch_first, n = roots.count[root];
        uint64_t left[2] = {0, 0}, right[2] = {0, 0};  // of the lower face, then of the upper
        for (uint32_t base = 0; base < n; base += 32) {
            uint32_t l0 = 0, r0 = 0, l1 = 0, r1 = 0;
#pragma unroll
            for (uint32_t b = 0; b < 32; ++b) {
                if (base + b >= n) break;
                const float a = lo[first + base + b], z = hi[first + base + b];
                bool l, r;
                ClassifyExtent(a, z, p[0], 0, &l, &r);
                l0 |= l ? 1u << b : 0u;
                r0 |= r ? 1u << b : 0u;
                ClassifyExtent(a, z, p[1], 1, &l, &r);
                l1 |= l ? 1u << b : 0u;
                r1 |= r ? 1u << b : 0u;
            }
            left[0] |= uint64_t(l0) << base;
            right[0] |= uint64_t(r0) << base;
            left[1] |= uint64_t(l1) << base;
            right[1] |= uint64_t(r1) << base;
        }
        const uint32_t c = 6 * e + 2 * axis;
        roots.CandLeft(c) = left[0];
        roots.CandRight(c) = right[0];
        roots.CandLeft(c + 1) = left[1];
        roots.CandRight(c + 1) = right[1];
    }
};

// Puts a batch's small roots, from first on, at the start of the first small-node list.
struct CopySmallNodes {
    SmallNodesView from, to;
    uint32_t first;
    CA_HD void operator()(int ii) const {
        const uint32_t i = uint32_t(ii), j = first + i;
        to.record[i] = from.record[j];
        to.root[i] = from.root[j];
        to.mask[i] = from.mask[j];
        to.depth[i] = from.depth[j];
        to.SetRegion(i, from.Region(j));
    }
};

// Writes the children of the nodes that split (SmallSplitPass gave their triangles).
struct EmitSmallChildren {
    SmallNodesView nodes, next;
    RecordsView records;
    const uint64_t* child_masks;
    uint32_t record_base;
    CA_HD void operator()(int ii) const {
        const uint32_t i = uint32_t(ii);
        if (!nodes.split[i]) return;
        const uint32_t parent = nodes.record[i];
        const int axis = int(records.Kind(parent));
        const float p = records.Split(parent);
        const Aabb cell = nodes.Region(i);
        for (int side = 0; side < 2; ++side) {
            const uint32_t j = 2 * nodes.split_scan[i] + uint32_t(side);
            const uint32_t rec = record_base + j;
            next.record[j] = rec;
            next.root[j] = nodes.root[i];
            next.mask[j] = child_masks[2 * i + uint32_t(side)];
            next.depth[j] = nodes.depth[i] + 1;
            next.SetRegion(j, cell.Half(axis, p, side));
            records.SetHead(rec, kUndecided, uint32_t(nodes.depth[i] + 1), 0);
            (side == 0 ? records.left : records.right)[parent] = rec;
        }
    }
};

struct SmallLevelTotals {
    LevelTotals* totals;
    const uint32_t *split, *split_scan;
    uint32_t last;
    ReadbackTarget to_host;  // the totals, for the host
    CA_HD void operator()(int) const {
        totals->next_nodes = 2 * (split_scan[last] + split[last]);
        to_host.Write(*totals);
    }
};

// The rest of a small level in one block: the scan of its split flags, the children and the next
// level's size. A part of the one-block passes below, never launched alone.
struct SmallChildrenPass {
    EmitSmallChildren children;
    LevelTotals* totals;
    uint32_t count;
    template <class Block>
    CA_HD void Run(const Block& block, NoScratch&, uint32_t) const {
        const uint32_t splits = ExclusiveScanInRounds(block, children.nodes.split, children.nodes.split_scan, count);
        block.Sync();
        for (uint32_t i = block.Lane(); i < count; i += Block::kCount) children(int(i));
        if (block.Lane() == 0) totals->next_nodes = 2 * splits;  // as SmallLevelTotals
    }
};

// Small levels of at most small_levels_in_one_block_max nodes run in one block, one after another
// while they fit, as large ones do (LargeLevelsPass): a warp decides each node, 32 at a time, where
// a level of launches spreads them over the GPU; so only the first and last levels, with a few
// dozen nodes, gain.
struct SmallRunState {
    uint32_t active = 0, rec_count = 0, cur = 0;
    uint32_t before = 0;  // the nodes of the level before the current one; 0: none in this batch
    uint32_t levels = 0;  // levels run
    uint64_t small_nodes = 0, peak_active_nodes = 0;
    // Counts the current level as run.
    CA_HD void Count() {
        levels++;
        small_nodes += active;
        peak_active_nodes = peak_active_nodes > active ? peak_active_nodes : active;
    }
    // On to the next level, of next nodes (the children of this one's).
    CA_HD void Advance(uint32_t next) {
        rec_count += next;
        before = active;
        active = next;
        cur = 1 - cur;
    }
};
struct SmallRun {
    SmallRunState state;
    uint32_t level_ends[kMaxRunLevels];  // the record count after each level run
};

// The items the run's buffers hold, as the host reserved them.
struct SmallRunRoom {
    uint32_t nodes;        // each small-node list
    uint32_t split_nodes;  // the nodes child_masks has room for
    uint32_t records;
};

CA_HD inline bool SmallLevelFitsRun(const SmallRunState& s, const SmallRunRoom& room, uint32_t node_limit) {
    const uint64_t children = 2 * uint64_t(s.active);
    return s.active > 0 && s.levels < kMaxRunLevels && s.active <= node_limit && s.active <= room.split_nodes &&
           children <= room.nodes && s.rec_count + children <= room.records;
}

// What every small level's passes share: the two node lists, the current one of which the run's
// state names, and what the split decisions read.
struct SmallLevelLists {
    SmallNodesView nodes[2];
    SmallRootsView roots;
    RecordsView records;
    uint64_t* child_masks;
    const Triangle* triangles;
    LevelTotals* totals;
    SahParams params;

    CA_HD SmallSplitPass Split(const SmallRunState& s) const {
        return SmallSplitPass{nodes[s.cur], roots, records, triangles, child_masks, params.cost_traversal,
                              params.cost_intersection, params.max_depth, params.test_small_stage_straddlers};
    }
    // The rest of s's level in one block (SmallChildrenPass); then s counts it and stands at the
    // next one, and lane 0 records its end in run.
    template <class Block>
    CA_HD void Children(const Block& block, SmallRunState& s, SmallRun* run) const {
        NoScratch none;
        const EmitSmallChildren children{nodes[s.cur], nodes[1 - s.cur], records, child_masks, s.rec_count};
        SmallChildrenPass{children, totals, s.active}.Run(block, none, 0);
        block.Sync();
        s.Count();
        s.Advance(totals->next_nodes);
        if (block.Lane() == 0) run->level_ends[s.levels - 1] = s.rec_count;
        block.Sync();  // every lane has read the totals before the next level writes them
    }
};

struct SmallLevelsPass {
    static constexpr uint32_t kThreads = kLevelBlockThreads;
    using Scratch = NoScratch;
    SmallLevelLists lists;
    SmallRunState start;  // the host's loop variables, with the counts of the run at zero
    bool resume;          // start from run's state instead: queued levels (below) ran before
    SmallRun* run;        // the run's end
    SmallRunRoom room;
    uint32_t node_limit;
    ReadbackTarget to_host = {};  // the run's end for the host (a SmallRun), from the run's last launch

    template <class Block>
    CA_HD void Run(const Block& block, NoScratch& none, uint32_t) const {
        SmallRunState s = resume ? run->state : start;  // every lane keeps the same copy
        block.Sync();  // every lane has read run's state before lane 0 writes it
        while (SmallLevelFitsRun(s, room, node_limit)) {
            const SmallSplitPass split = lists.Split(s);
            for (uint32_t i = block.WarpIndex(); i < s.active; i += Block::kWarps) split.Run(block.Warp(), none, i);
            block.Sync();
            lists.Children(block, s, run);
        }
        if (block.Lane() != 0) return;
        run->state = s;
        if (!to_host) return;
        SmallRun* const host = to_host.Place<SmallRun>();
        host->state = s;
        for (uint32_t l = 0; l < s.levels; ++l) host->level_ends[l] = run->level_ends[l];
        to_host.Done();
    }
};

// ---- Small levels queued without read-backs --------------------------------------------------

// Small levels too large for one block's split decisions but whose rest still runs in one block
// (more than small_levels_in_one_block_max nodes, at most children_in_one_block_max) run as two
// launches each: the decisions a warp a node over the GPU (QueuedSmallSplit), then the rest in one
// block (QueuedSmallChildren). Both take the level from the run's state on the device, so the host
// queues kQueuedSmallLevels of them between two SmallLevelsPass launches and reads the run back once,
// where it read back each level's size before it could launch the next. A level that does not fit
// leaves the state as it is, so the levels queued after it do nothing either, and the host goes on
// from the state it reads back. The queued levels past the stage's end cost their launches only
// (about 9 us a level where nothing else runs, H200), so a run queues as many as the growth or the
// shrinking of the levels before says will fit (QueuedSmallLevelsFor), up to kQueuedSmallLevels.
constexpr uint32_t kQueuedSmallLevels = 10;

// The levels to queue from a level of s.active nodes: while the nodes grow or shrink by the ratio of
// the last two levels, the levels until one has at most 'above' or more than 'limit' nodes, and one
// more for the estimate's error; kQueuedSmallLevels without a level before in the batch. One level
// too few costs a read-back and a run more.
inline uint32_t QueuedSmallLevelsFor(const SmallRunState& s, uint32_t above, uint32_t limit) {
    if (s.before == 0 || s.active == s.before || s.active <= above || s.active > limit) return kQueuedSmallLevels;
    const double ratio = double(s.active) / double(s.before);
    const double bound = ratio < 1.0 ? double(above) : double(limit) + 1.0;
    const double levels = std::ceil(std::log(bound / double(s.active)) / std::log(ratio)) + 1.0;
    return uint32_t(std::clamp(levels, 1.0, double(kQueuedSmallLevels)));
}

CA_HD inline bool QueuedSmallLevelFits(const SmallRunState& s, const SmallRunRoom& room, uint32_t above,
                                       uint32_t node_limit) {
    return s.active > above && SmallLevelFitsRun(s, room, node_limit);
}

struct QueuedSmallSplit {
    using Scratch = NoScratch;
    SmallLevelLists lists;
    const SmallRun* run;
    SmallRunRoom room;
    uint32_t above, node_limit;  // the level's nodes: more than above, at most node_limit
    template <class Lanes>
    CA_HD void Run(const Lanes& lanes, NoScratch& none, uint32_t i) const {
        const SmallRunState s = run->state;
        if (i < s.active && QueuedSmallLevelFits(s, room, above, node_limit)) lists.Split(s).Run(lanes, none, i);
    }
};

struct QueuedSmallChildren {
    static constexpr uint32_t kThreads = kLevelBlockThreads;
    using Scratch = NoScratch;
    SmallLevelLists lists;
    SmallRun* run;
    SmallRunRoom room;
    uint32_t above, node_limit;
    template <class Block>
    CA_HD void Run(const Block& block, NoScratch&, uint32_t) const {
        SmallRunState s = run->state;
        if (!QueuedSmallLevelFits(s, room, above, node_limit)) return;  // the whole block
        lists.Children(block, s, run);  // its barriers order the reads of run before lane 0's write
        if (block.Lane() == 0) run->state = s;
    }
};

// ---- Output stage (Zhou et al. 2008, Algorithm 5) ----------------------------------------------

// UpPass: subtree sizes in nodes and index-list items, children before parents. Each record's
// depth, needed no more, becomes its subtree's height, so that the root's is the tree's depth.
struct UpPass {
    RecordsView records;
    CA_HD void operator()(int i) const {
        const uint32_t r = uint32_t(i);
        const uint32_t kind = records.Kind(r), chain = records.Chain(r);
        if (kind <= kSplitZ) {
            const uint32_t cuts = chain & 7u;
            const uint32_t l = records.left[r], rr = records.right[r];
            records.size[r] = 2 * cuts + 1 + records.size[l] + records.size[rr];
            records.items[r] = records.items[l] + records.items[rr];
            const uint32_t hl = records.Depth(l), hr = records.Depth(rr);
            records.SetHead(r, kind, cuts + 1 + (hl > hr ? hl : hr), chain);
        } else {
            records.size[r] = 1;
            records.items[r] = kind == kMaskLeaf ? uint32_t(PopCount(records.LeafMask(r)))
                                                 : (kind == kStoreLeaf ? records.right[r] : 0u);
            records.SetHead(r, kind, 0, chain);
        }
    }
};

// After the up pass: the root's address, and the tree's size and depth for the host to read.
struct TreeTotals {
    RecordsView records;
    LevelTotals* totals;
    ReadbackTarget to_host;  // the totals, for the host
    CA_HD void operator()(int) const {
        totals->tree_nodes = records.size[0];
        totals->tree_items = records.items[0];
        totals->tree_depth = int32_t(records.Depth(0));
        records.address[0] = 0;
        records.offset[0] = 0;  // after the items, whose column this is
        to_host.Write(*totals);
    }
};

// DownPass: each record writes its nodes (cut chain, split, or leaf and its indices) at its address
// and gives its children theirs, parents before children. The large-stage leaves' indices are
// CopyStoreLeaves' work.
struct DownPass {
    RecordsView records;
    SmallRootsView roots;
    KdNode* out_nodes;
    uint32_t* out_indices;
    CA_HD void operator()(int i) const {
        const uint32_t r = uint32_t(i);
        const uint32_t kind = records.Kind(r);
        uint32_t a = records.address[r];
        const uint32_t offset = records.offset[r];
        if (kind == kMaskLeaf) {
            const uint64_t mask = records.LeafMask(r);
            const uint32_t first = roots.first[records.left[r]];
            uint32_t n = 0;  // a step a triangle, where a step a bit kept the block's levels waiting
            for (uint64_t m = mask; m != 0; m &= m - 1) out_indices[offset + n++] = roots.tri[first + LowestBit(m)];
            out_nodes[a] = KdNode::Leaf(offset, n);
            return;
        }
        if (kind == kStoreLeaf) {  // its indices: CopyStoreLeaves
            out_nodes[a] = KdNode::Leaf(offset, records.right[r]);
            return;
        }
        const uint32_t chain = records.Chain(r);
        const uint32_t cuts = chain & 7u;
        uint32_t rest = records.size[r];  // nodes from the current chain node on
        for (uint32_t c = 0; c < cuts; ++c) {
            const uint32_t bits = chain >> (3 + 3 * c);
            const int axis = int(bits & 3u);
            const float pos = records.cuts[6 * size_t(r) + c];
            if (bits & 4u) {  // the upper side is empty: the rest is the left child
                out_nodes[a] = KdNode::Interior(axis, pos, a + 1 + (rest - 2));
                out_nodes[a + 1 + (rest - 2)] = KdNode::Leaf(offset, 0);
                a += 1;
            } else {
                out_nodes[a] = KdNode::Interior(axis, pos, a + 2);
                out_nodes[a + 1] = KdNode::Leaf(offset, 0);
                a += 2;
            }
            rest -= 2;
        }
        const uint32_t l = records.left[r], rr = records.right[r];
        const uint32_t left_items = records.items[l];  // before offset[l] takes its column
        out_nodes[a] = KdNode::Interior(int(kind), records.Split(r), a + 1 + records.size[l]);
        records.address[l] = a + 1;
        records.address[rr] = a + 1 + records.size[l];
        records.offset[l] = offset;
        records.offset[rr] = offset + left_items;
    }
};

// After the down pass: the indices of each large-stage leaf, with a warp (a lane on the CPU). A leaf
// of coincident triangles may hold a million, which one thread of the down pass copied alone
// (1M copies of a box: 399 of 421 ms of the build, H200).
struct CopyStoreLeaves {
    using Scratch = NoScratch;
    RecordsView records;
    const uint32_t* leaf_store;
    uint32_t* out_indices;
    template <class Lanes>
    CA_HD void Run(const Lanes& lanes, NoScratch&, uint32_t r) const {
        if (records.Kind(r) != kStoreLeaf) return;
        const uint32_t first = records.left[r], n = records.right[r], offset = records.offset[r];
        for (uint32_t j = lanes.Lane(); j < n; j += Lanes::kCount) out_indices[offset + j] = leaf_store[first + j];
    }
};

// ---- Work-list storage -------------------------------------------------------------------------

// Grows b to n items. Past its capacity it takes an eighth more than n, as the stage area's lists
// do, not the double that Buffer::Resize takes (docs/notes/triangle-tree-performance.md, the
// build's memory).
template <class T>
void Grow(Buffer<T>& b, size_t n, bool keep) {
    if (b.size() >= n) return;
    if (b.capacity() < n) b.Reserve(WithAnEighthMore(n), keep);
    b.Resize(n, keep);
}

// The memory a buffer holds.
template <class T>
size_t Bytes(const Buffer<T>& b) {
    return b.capacity() * sizeof(T);
}
template <class T>
size_t Bytes(const std::vector<Buffer<T>>& v) {
    size_t bytes = 0;
    for (const Buffer<T>& b : v) bytes += Bytes(b);
    return bytes;
}

// The lists' columns, each in a StageArea: those of one stage (the large-node stage's entry and
// node lists; the small-node stage's node lists, its batch's roots, boxes and masks; the output
// stage's subtree sizes) share one allocation, which the next stage takes over
// (docs/notes/triangle-tree-performance.md, the build's memory).
std::vector<size_t> Widths(size_t n, size_t bytes) { return std::vector<size_t>(n, bytes); }

// Triangle references: tri, box[6].
struct EntryList : AreaList {
    EntryList() : AreaList(Widths(7, 4)) {}
    EntriesView View() const {
        EntriesView v;
        v.tri = Column<uint32_t>(0);
        for (int a = 0; a < 6; ++a) v.box[a] = Column<float>(1 + a);
        return v;
    }
};

// record, begin, count, useless_run, chunk_count, chunk_first, count_scan, key[6], depth,
// split_axis, planar_side, region[6], split_pos.
struct LargeNodeList : AreaList {
    LargeNodeList() : AreaList(Widths(23, 4)) {}
    LargeNodesView View() const {
        LargeNodesView v;
        v.record = Column<uint32_t>(0);
        v.begin = Column<uint32_t>(1);
        v.count = Column<uint32_t>(2);
        v.useless_run = Column<uint32_t>(3);
        v.chunk_count = Column<uint32_t>(4);
        v.chunk_first = Column<uint32_t>(5);
        v.count_scan = Column<uint32_t>(6);
        for (int a = 0; a < 6; ++a) v.key[a] = Column<uint32_t>(7 + a);
        v.depth = Column<int32_t>(13);
        v.split_axis = Column<int32_t>(14);
        v.planar_side = Column<int32_t>(15);
        for (int a = 0; a < 6; ++a) v.region[a] = Column<float>(16 + a);
        v.split_pos = Column<float>(22);
        return v;
    }
};

// record, root, split, split_scan, depth, region[6] (4 bytes each), mask (8 bytes).
struct SmallNodeList : AreaList {
    SmallNodeList() : AreaList({4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 8}) {}
    SmallNodesView View() const {
        SmallNodesView v;
        v.record = Column<uint32_t>(0);
        v.root = Column<uint32_t>(1);
        v.split = Column<uint32_t>(2);
        v.split_scan = Column<uint32_t>(3);
        v.depth = Column<int32_t>(4);
        for (int a = 0; a < 6; ++a) v.region[a] = Column<float>(5 + a);
        v.mask = Column<uint64_t>(11);
        return v;
    }
};

template <class T>
std::vector<Buffer<T>> MakeBuffers(MemorySpace s, int n) {
    std::vector<Buffer<T>> v;
    for (int i = 0; i < n; ++i) v.emplace_back(s);
    return v;
}

// The records' columns for the whole build. The output stage's subtree sizes are in the stage
// area (OutputColumns) instead: they have no use before it.
struct RecordBuffers {
    std::vector<Buffer<uint32_t>> u;  // head, split, left, right
    Buffer<float> cuts;
    explicit RecordBuffers(MemorySpace sp) : u(MakeBuffers<uint32_t>(sp, 4)), cuts(sp) {}
    // Only large-stage records have cut chains: small-stage levels pass with_cuts = false.
    void Reserve(size_t n, bool with_cuts) {
        for (auto& b : u) Grow(b, n, true);
        if (with_cuts) Grow(cuts, 6 * n, true);
    }
    size_t Bytes() const { return bfs::Bytes(u) + bfs::Bytes(cuts); }
    // The output stage's columns are null until it adds them (OutputColumns).
    RecordsView View() {
        RecordsView v{};
        v.head = u[0].data();
        v.split = u[1].data();
        v.left = u[2].data();
        v.right = u[3].data();
        v.cuts = cuts.data();
        return v;
    }
};

// The output stage's columns of the records: size, items (then offset), address.
struct OutputColumns : AreaList {
    OutputColumns() : AreaList(Widths(3, 4)) {}
    void AddTo(RecordsView& v) const {
        v.size = Column<uint32_t>(0);
        v.items = v.offset = Column<uint32_t>(1);
        v.address = Column<uint32_t>(2);
    }
};

// The small-node stage's lists for one batch of roots, whose sizes are known before they are filled:
// its entries' roots and boxes (root, box[6]), and its split candidates' masks (left, right).
struct BatchEntryList : AreaList {
    BatchEntryList() : AreaList(Widths(7, 4), Growth::Exact) {}
};
struct CandidateMasks : AreaList {
    CandidateMasks() : AreaList(Widths(2, 8), Growth::Exact) {}
};

// A batch of the small-node stage: the small roots [first_root, first_root + roots) and their
// store entries [first_entry, first_entry + entries).
struct RootBatch {
    uint32_t first_root, roots, first_entry, entries;
};

// The batches one read-back brings (RootBatchesPass); more take another.
constexpr uint32_t kRootBatchesPerReadBack = 256;
struct RootBatchList {
    uint32_t count;
    RootBatch batch[kRootBatchesPerReadBack];
};

// Cuts the small roots from root 'from' on into batches of at most 'budget' store entries
// (SahParams::small_stage_batch_entries), as many as a read-back holds: a batch ends at the last
// root that starts within the budget of its first entry, and takes at least one root (a root holds
// at most 64 entries). The lanes find each end (core/lane_search.h), so that the host reads back
// the batches alone, where it read every root's first entry (1.4 MB in a build of 10M triangles,
// through pageable memory).
struct RootBatchesPass {
    using Scratch = NoScratch;
    const uint32_t* first;  // each small root's first store entry
    uint32_t root_count, root_entries, budget, from;
    ReadbackTarget to_host;

    CA_HD uint32_t FirstEntry(uint32_t r) const { return r < root_count ? first[r] : root_entries; }

    template <class Lanes>
    CA_HD void Run(const Lanes& lanes, NoScratch&, uint32_t) const {
        RootBatchList* const list = to_host.Place<RootBatchList>();
        uint32_t count = 0;
        for (uint32_t r = from; r < root_count && count < kRootBatchesPerReadBack; ++count) {
            const uint32_t begin = FirstEntry(r);
            const uint64_t limit = uint64_t(begin) + budget;
            const uint32_t end =
                PartitionPoint(lanes, r, root_count + 1, [&](uint32_t k) { return FirstEntry(k) <= limit; }) - 1;
            const uint32_t next = end > r ? end : r + 1;
            if (lanes.Lane() == 0) list->batch[count] = RootBatch{r, next - r, begin, FirstEntry(next) - begin};
            r = next;
        }
        if (lanes.Lane() != 0) return;
        list->count = count;
        to_host.Done();
    }
};

struct SmallRootBuffers {
    Buffer<uint32_t> first, count, source;
    AreaList store{{4}};  // each entry's triangle
    BatchEntryList batch;
    CandidateMasks cand;
    uint32_t batch_first = 0;  // the batch's first entry
    explicit SmallRootBuffers(MemorySpace sp) : first(sp), count(sp), source(sp) {}
    size_t Bytes() const { return bfs::Bytes(first) + bfs::Bytes(count) + bfs::Bytes(source); }
    SmallRootsView View() {
        SmallRootsView v;
        v.first = first.data();
        v.count = count.data();
        v.source = source.data();
        v.tri = store.Column<uint32_t>(0);
        v.batch_first = batch_first;
        v.batch_root = batch.Column<uint32_t>(0);
        for (int k = 0; k < 6; ++k) v.batch_box[k] = batch.Column<float>(1 + size_t(k));
        v.cand_left = cand.Column<uint64_t>(0);
        v.cand_right = cand.Column<uint64_t>(1);
        return v;
    }
};

}  // namespace
}  // namespace bfs

using namespace bfs;

struct BfsSahBuilder::Impl {
    const Backend& backend;
    SahParams params;
    BfsBuildStats stats;
    MemorySpace space;
    // The lists of one stage share stage_area (Build begins each stage); the small roots and their
    // store live through the large-node and small-node stages, each list in an area of its own.
    StageArea stage_area, root_area, store_area;
    EntryList entries[2];
    LargeNodeList large[2];
    SmallNodeList small[2];
    SmallNodeList root_nodes;  // the small roots as the large-node stage makes them
    AreaList child_masks{{8}};  // a small level's children's triangles (SmallSplitPass)
    OutputColumns subtree;
    RecordBuffers records;
    SmallRootBuffers roots;
    Buffer<uint32_t> child_count, child_first, leaf_store;
    Buffer<uint32_t> item_scan;   // LargeLevelsPass's prefix lists
    Buffer<SmallRun> small_run;   // SmallLevelsPass's state, which the queued small levels take
    std::vector<Buffer<uint32_t>> slots;  // active, small, active_count, small_count and their scans
    std::vector<Buffer<uint32_t>> child_keys;  // six per child slot (LargeLevelView::child_key)
    Buffer<NodeSahBins> median_or_sah_bins;  // a large level's (SplitLargeNodes::gathered)
    Buffer<LevelTotals> totals;
    Readback counts;  // the totals and the runs' states, through page-locked memory (core/readback.h)
    std::vector<uint32_t> level_bounds;  // level l's records: [level_bounds[l], level_bounds[l + 1])

    Impl(const Backend& b, const SahParams& p)
        : backend(b),
          params(p),
          space(SpaceOf(b)),
          stage_area(space),
          root_area(space),
          store_area(space),
          records(space),
          roots(space),
          child_count(space),
          child_first(space),
          leaf_store(space),
          item_scan(space),
          small_run(space),
          slots(MakeBuffers<uint32_t>(space, 8)),
          child_keys(MakeBuffers<uint32_t>(space, 6)),
          median_or_sah_bins(space),
          totals(space),
          counts(space, std::max({sizeof(LevelTotals), sizeof(LargeRun), sizeof(SmallRun), sizeof(RootBatchList)})) {
        totals.Resize(1);
        small_run.Resize(1);
        level_bounds.reserve(2 * size_t(p.max_depth) + 5);  // an entry per level of either stage
        root_area.BeginStage({&root_nodes});
        store_area.BeginStage({&roots.store});
    }

    // A T that the pass queue(target) queues writes to the host itself (ReadbackTarget), where a
    // copy kernel after it would cost a launch; the host waits for it (stats.read_backs).
    template <class T, class Queue>
    T ReadBack(const Queue& queue) {
        counts.StartFromPass(sizeof(T), queue);
        stats.read_backs++;
        return counts.Wait<T>();
    }

    void Build(Span<const Triangle> triangles, SahTree& out);
    size_t WorkBytes() const {
        return stage_area.Bytes() + root_area.Bytes() + store_area.Bytes() + records.Bytes() + roots.Bytes() +
               Bytes(child_count) + Bytes(child_first) + Bytes(leaf_store) + Bytes(item_scan) + Bytes(slots) +
               Bytes(child_keys) + Bytes(median_or_sah_bins);
    }
    bool UsesMedianOrSah() const { return params.median_or_sah_max_entries > params.binned_sah_max_entries; }
    // Returns the small roots and their store entries.
    void LargeStage(const Triangle* triangles, uint32_t n, uint32_t* record_count, uint32_t* root_count,
                    uint32_t* root_entries);
    // The small-node lists as they lie now (a list that grows may move the stage's others).
    SmallLevelLists SmallLists(const Triangle* triangles) {
        return SmallLevelLists{{small[0].View(), small[1].View()}, roots.View(), records.View(),
                               child_masks.Column<uint64_t>(0), triangles, totals.data(), params};
    }
    // Runs large levels in one block from s on while they fit (LargeLevelsPass); false if s's
    // level does not.
    bool RunLargeLevels(const Triangle* triangles, uint32_t n, LargeRunState& s);
    // The same for small levels (SmallLevelsPass).
    bool RunSmallLevels(const Triangle* triangles, SmallRunState& s);
    // Runs the small-node stage over the roots in batches (SahParams::small_stage_batch_entries).
    void SmallStage(const Triangle* triangles, uint32_t root_count, uint32_t root_entries, uint32_t* record_count);
    // Consecutive roots with at most SahParams::small_stage_batch_entries entries a batch.
    std::vector<RootBatch> RootBatches(uint32_t root_count, uint32_t root_entries);
    // large_records: the records of the large-node stage (the first ones), where store leaves are.
    void Output(uint32_t record_count, uint32_t large_records, SahTree& out);
};

bool BfsSahBuilder::Impl::RunLargeLevels(const Triangle* triangles, uint32_t n, LargeRunState& s) {
    const uint32_t limit = uint32_t(params.large_levels_in_one_block_max);
    if (2 * uint64_t(s.active) > limit || s.entry_count > limit) return false;
    // Room for the run: lists for levels of up to four times this one's entries (as far as the
    // limit allows), and records, roots and leaf items for a few levels of that size. The run ends
    // before a level that would not fit, and the host's levels go on from there.
    const size_t most_entries = std::min(size_t(limit), 4 * std::max<size_t>(s.entry_count, 2 * size_t(s.active)));
    const size_t most_slots = most_entries, more = 2 * most_entries;
    const int nxt = 1 - int(s.cur);
    entries[s.cur].Reserve(2 * most_entries, true);
    entries[nxt].Reserve(2 * most_entries, false);
    large[s.cur].Reserve(most_slots, true);
    large[nxt].Reserve(most_slots, false);
    Grow(child_count, 2 * most_slots, false);
    Grow(child_first, 2 * most_slots, false);
    for (auto& b : slots) Grow(b, most_slots, false);
    Grow(item_scan, most_entries + 1, false);
    records.Reserve(s.rec_count + more, true);
    root_nodes.Reserve(s.s_roots + more, true);
    for (Buffer<uint32_t>* b : {&roots.first, &roots.count, &roots.source}) Grow(*b, s.s_roots + more, true);
    roots.store.Reserve(s.s_entries + 2 * more, true);
    Grow(leaf_store, s.leaf_store_size + more, true);
    LargeRunRoom room;
    room.entries = uint32_t(std::min(entries[0].size(), entries[1].size()));
    room.nodes = uint32_t(std::min(
        {large[0].size(), large[1].size(), child_count.size() / 2, child_first.size() / 2, slots[0].size()}));
    room.items = uint32_t(item_scan.size());
    room.records = uint32_t(records.u[0].size());
    room.small_roots = uint32_t(std::min(root_nodes.size(), roots.first.size()));
    room.root_entries = uint32_t(roots.store.size());
    room.leaf_store = uint32_t(leaf_store.size());
    LargeRunState start = s;
    start.levels = 0;
    start.entry_bound_leaves = 0;
    start.large_nodes = start.large_entries = start.peak_active_nodes = start.peak_entries = 0;
    if (!LevelFitsRun(start, room, limit)) return false;
    LargeLevelsPass pass{{entries[0].View(), entries[1].View()},
                         {large[0].View(), large[1].View()},
                         triangles,
                         n,
                         records.View(),
                         roots.View(),
                         root_nodes.View(),
                         child_count.data(),
                         child_first.data(),
                         leaf_store.data(),
                         {},
                         item_scan.data(),
                         totals.data(),
                         start,
                         {},
                         room,
                         params};
    for (int k = 0; k < 8; ++k) pass.slots[k] = slots[k].data();
    const LargeRun run = ReadBack<LargeRun>([&](const ReadbackTarget& to_host) {
        pass.run = to_host;
        ParallelForBlocks(backend, "kdtree large levels", 1, pass);
    });
    const LargeRunState& end = run.state;
    CA_CHECK_MSG(end.levels >= 1, "a run of large levels ran none");
    stats.large_levels += int(end.levels);
    stats.large_nodes += end.large_nodes;
    stats.large_entries += end.large_entries;
    stats.peak_active_nodes = std::max(stats.peak_active_nodes, end.peak_active_nodes);
    stats.peak_entries = std::max(stats.peak_entries, end.peak_entries);
    stats.entry_bound_leaves |= end.entry_bound_leaves != 0;
    level_bounds.insert(level_bounds.end(), run.level_ends, run.level_ends + end.levels);
    s = end;
    return true;
}

void BfsSahBuilder::Impl::LargeStage(const Triangle* triangles, uint32_t n, uint32_t* record_count,
                                     uint32_t* root_count, uint32_t* root_entries) {
    const uint32_t chunk = uint32_t(params.chunk_size);
    const uint32_t threshold = uint32_t(params.small_node_threshold);
    LargeRunState s;  // the loop's variables: the root is the only active node
    s.entry_count = n;
    records.Reserve(1, true);
    large[0].Reserve(1, false);
    entries[0].Reserve(n, false);
    ParallelFor(backend, "kdtree init entries", n, InitEntries{triangles, entries[0].View()});
    ParallelFor(backend, "kdtree init root", 1, InitRoot{large[0].View(), records.View(), totals.data(), n});
    if (UsesMedianOrSah()) {  // empty bins, whatever an earlier build left
        Grow(median_or_sah_bins, kMedianOrSahLevelNodesMax, false);
        ParallelFor(backend, "kdtree clear median-or-SAH bins", 3 * kSahBins * kMedianOrSahLevelNodesMax,
                    ClearNodeSahBins{median_or_sah_bins.data()});
    }
    level_bounds.assign({0u, 1u});
    while (s.active > 0) {
        if (RunLargeLevels(triangles, n, s)) continue;
        const uint32_t active = s.active, entry_count = s.entry_count, rec_count = s.rec_count;
        const uint32_t s_roots = s.s_roots, s_entries = s.s_entries;
        const int cur = int(s.cur), nxt = 1 - cur;
        const uint32_t slot_count = 2 * active;
        stats.large_levels++;
        stats.large_nodes += active;
        stats.peak_active_nodes = std::max<uint64_t>(stats.peak_active_nodes, active);
        stats.peak_entries = std::max<uint64_t>(stats.peak_entries, entry_count);
        stats.large_entries += entry_count;
        // Room for this level's outputs, all bounded by twice its inputs. The children's entries
        // take that room without a read-back while it is small or already there; else the level
        // reads their count back first (kChildEntriesWithoutReadBack).
        const bool child_entries_bounded = entries[nxt].capacity() >= 2 * size_t(entry_count) ||
                                           2 * size_t(entry_count) <= kChildEntriesWithoutReadBack;
        if (child_entries_bounded) entries[nxt].Reserve(2 * size_t(entry_count), false);
        large[nxt].Reserve(slot_count, false);
        Grow(child_count, slot_count, false);
        Grow(child_first, slot_count + 1, false);  // the total of a scan after the slots
        for (auto& b : slots) Grow(b, slot_count, false);
        const bool gather_boxes = entry_count <= kGatherChildBoxesEntriesMax;
        if (gather_boxes)
            for (auto& b : child_keys) Grow(b, slot_count, false);
        Grow(leaf_store, size_t(s.leaf_store_size) + entry_count, true);
        records.Reserve(size_t(rec_count) + slot_count, true);
        root_nodes.Reserve(size_t(s_roots) + slot_count, true);
        Grow(roots.first, size_t(s_roots) + slot_count, true);
        Grow(roots.count, size_t(s_roots) + slot_count, true);
        Grow(roots.source, size_t(s_roots) + slot_count, true);
        const bool in_one_block = slot_count <= uint32_t(params.children_in_one_block_max);
        // The new small roots' store entries: room for those the one-block pass may copy now; the
        // others are copied once the level's totals have counted them.
        const size_t copied_in_block =
            in_one_block ? std::min<size_t>(2 * size_t(entry_count), kSmallRootEntriesInOneBlockMax) : 0;
        roots.store.Reserve(size_t(s_entries) + copied_in_block, true);

        const LargeNodesView nodes = large[cur].View();
        if (!s.chunks_counted) {
            ParallelFor(backend, "kdtree count chunks", active, CountChunks{nodes, chunk});
            ExclusiveScan<uint32_t>(backend, Span<const uint32_t>(nodes.count, active),
                                    Span<uint32_t>(nodes.count_scan, active));
            ExclusiveScan<uint32_t>(backend, Span<const uint32_t>(nodes.chunk_count, active),
                                    Span<uint32_t>(nodes.chunk_first, active));
        }
        const auto level_view = [&] {
            LargeLevelView v{large[cur].View(),   active,    chunk,          entries[cur].View(),
                             entries[nxt].View(), triangles, records.View(), child_count.data(),
                             child_first.data(),  leaf_store.data()};
            for (int a = 0; a < 6 && gather_boxes; ++a) v.child_key[a] = child_keys[size_t(a)].data();
            return v;
        };
        LargeLevelView level = level_view();
        const uint32_t chunk_bound = entry_count / chunk + active;
        if (!s.bounds_known) ChunkBounds(backend, level, chunk_bound);
        // Triangles that straddle most planes (long ones filling a volume) keep most of a node's
        // count on both sides of each median split while the SAH still favours it, and the work
        // lists double level after level: past kMaxLevelEntriesPerTriangle the level's nodes are
        // leaves, so that the build's memory stays bounded. Ordinary meshes stay far below it.
        const bool entry_bound = uint64_t(entry_count) > kMaxLevelEntriesPerTriangle * uint64_t(n);
        stats.entry_bound_leaves |= entry_bound;
        SplitLargeNodes split = SplitLargeNodes::Of(level, totals.data(), params, entry_bound);
        if (split.AnyMedianOrSah(entry_count)) {
            split.gathered = median_or_sah_bins.data();
            ParallelForBlocks(backend, "kdtree median-or-SAH bins", BinMedianOrSahChunks::Runs(chunk_bound),
                              BinMedianOrSahChunks{split});
        }
        if (active <= kBlockPerLargeNodeMax)
            ParallelForBlocks(backend, "kdtree split large nodes", active, SplitLargeNodesByBlock{split});
        else ParallelForLanes(backend, "kdtree split large nodes", active, split);
        ChunkCount(backend, level, chunk_bound);
        ParallelFor(backend, "kdtree judge splits", active,
                    JudgeSplits{level, totals.data(), params.cost_traversal, params.cost_intersection,
                                !child_entries_bounded});
        if (!child_entries_bounded) {
            const Span<uint32_t> firsts(child_first.data(), slot_count + 1);
            entries[nxt].Reserve(ExclusiveScanTotal(backend, firsts, counts), false);
            stats.read_backs++;
            level = level_view();  // the stage area's lists may have moved
        }
        ChunkClassify(backend, level, chunk_bound);

        uint32_t* u[8];
        for (int k = 0; k < 8; ++k) u[k] = slots[k].data();
        const FlagSlots flags{level, threshold, u[0], u[1], u[2], u[3]};
        const CopySmallRootEntries copy{entries[nxt].View().tri, roots.View(), s_entries, s_roots, 0};
        const EmitLargeChildren children{level, large[nxt].View(), roots.View(), root_nodes.View(), threshold, slot_count,
                                         u[0], u[4], u[5], u[7], rec_count, s_roots, s_entries, params.cost_traversal,
                                         params.cost_intersection};
        const LevelTotals t = ReadBack<LevelTotals>([&](const ReadbackTarget& to_host) {
            if (in_one_block) {
                ParallelForBlocks(backend, "kdtree large children", 1,
                                  LargeChildrenPass{flags, children, copy, {u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7]},
                                                    totals.data(), chunk, kSmallRootEntriesInOneBlockMax, to_host});
                return;
            }
            ParallelFor(backend, "kdtree flag children", slot_count, flags);
            for (int k = 0; k < 4; ++k)
                ExclusiveScan<uint32_t>(backend, Span<const uint32_t>(u[k], slot_count),
                                        Span<uint32_t>(u[4 + k], slot_count));
            ParallelFor(backend, "kdtree emit children", slot_count, children);
            ParallelFor(backend, "kdtree level totals", 1,
                        LargeLevelTotals{totals.data(), slot_count - 1, u[0], u[4], u[1], u[5], u[2], u[6], u[3], u[7],
                                         to_host});
        });
        if (!in_one_block || t.new_small_entries > kSmallRootEntriesInOneBlockMax) {
            roots.store.Reserve(size_t(s_entries) + t.new_small_entries, true);
            ParallelFor(backend, "kdtree copy small-root entries", t.new_small_entries,
                        CopySmallRootEntries{entries[nxt].View().tri, roots.View(), s_entries, s_roots,
                                             t.new_small_roots});
        }
        s.Advance(t, in_one_block, gather_boxes);
        level_bounds.push_back(s.rec_count);
    }
    stats.large_leaf_items = s.leaf_store_size;
    *record_count = s.rec_count;
    *root_count = s.s_roots;
    *root_entries = s.s_entries;
}

void BfsSahBuilder::Impl::SmallStage(const Triangle* triangles, uint32_t root_count, uint32_t root_entries,
                                     uint32_t* record_count) {
    stats.small_roots = root_count;
    if (root_count == 0) return;
    stage_area.BeginStage({&roots.batch, &roots.cand, &small[0], &small[1], &child_masks});
    const std::vector<RootBatch> batches = RootBatches(root_count, root_entries);
    stats.small_batches = int(batches.size());
    SmallRunState s;  // the loop's variables
    s.rec_count = *record_count;
    for (const RootBatch& batch : batches) {
        roots.batch.Reserve(batch.entries, false);
        roots.cand.Reserve(6 * size_t(batch.entries), false);
        roots.batch_first = batch.first_entry;
        ParallelFor(backend, "kdtree batch's entry roots", batch.roots,
                    BatchEntryRoots{roots.View(), batch.first_root});
        ParallelFor(backend, "kdtree batch's entry boxes", batch.entries,
                    BatchEntryBoxes{roots.View(), root_nodes.View(), triangles});
        ParallelFor(backend, "kdtree preprocess small nodes", 3 * size_t(batch.entries), PreprocessSmallNodes{roots.View()});
        small[0].Reserve(batch.roots, false);
        ParallelFor(backend, "kdtree batch's small roots", batch.roots,
                    CopySmallNodes{root_nodes.View(), small[0].View(), batch.first_root});
        s.active = batch.roots;
        s.before = 0;
        s.cur = 0;
        while (s.active > 0) {
            if (RunSmallLevels(triangles, s)) continue;
            const uint32_t active = s.active, rec_count = s.rec_count;
            const int cur = int(s.cur), nxt = 1 - cur;
            stats.small_levels++;
            stats.small_nodes += active;
            stats.peak_active_nodes = std::max<uint64_t>(stats.peak_active_nodes, active);
            small[nxt].Reserve(2 * size_t(active), false);
            child_masks.Reserve(2 * size_t(active), false);
            records.Reserve(size_t(rec_count) + 2 * size_t(active), false);
            // A level too large for the runs' block (RunSmallLevels takes every other): launches.
            const SmallLevelLists lists = SmallLists(triangles);
            const SmallNodesView& nodes = lists.nodes[cur];
            SplitSmallNodes(backend, lists.Split(s), active, batch.entries);
            ExclusiveScan<uint32_t>(backend, Span<const uint32_t>(nodes.split, active),
                                    Span<uint32_t>(nodes.split_scan, active));
            ParallelFor(backend, "kdtree emit small children", active,
                        EmitSmallChildren{nodes, lists.nodes[nxt], lists.records, lists.child_masks, rec_count});
            const uint32_t next = ReadBack<LevelTotals>([&](const ReadbackTarget& to_host) {
                                      ParallelFor(backend, "kdtree small level totals", 1,
                                                  SmallLevelTotals{totals.data(), nodes.split, nodes.split_scan,
                                                                   active - 1, to_host});
                                  }).next_nodes;
            s.Advance(next);
            if (next > 0) level_bounds.push_back(s.rec_count);
        }
    }
    *record_count = s.rec_count;
}

std::vector<RootBatch> BfsSahBuilder::Impl::RootBatches(uint32_t root_count, uint32_t root_entries) {
    const uint32_t budget = uint32_t(params.small_stage_batch_entries);
    if (root_entries <= budget) return {RootBatch{0, root_count, 0, root_entries}};  // nothing to read back
    std::vector<RootBatch> batches;
    for (uint32_t from = 0; from < root_count;) {
        const RootBatchList list = ReadBack<RootBatchList>([&](const ReadbackTarget& to_host) {
            ParallelForLanes(backend, "kdtree small-root batches", 1,
                             RootBatchesPass{roots.first.data(), root_count, root_entries, budget, from, to_host});
        });
        CA_CHECK_MSG(list.count > 0, "no small-root batch from root ", from, " of ", root_count);
        batches.insert(batches.end(), list.batch, list.batch + list.count);
        from = batches.back().first_root + batches.back().roots;
    }
    return batches;
}

bool BfsSahBuilder::Impl::RunSmallLevels(const Triangle* triangles, SmallRunState& s) {
    const uint32_t block_limit = uint32_t(params.small_levels_in_one_block_max);
    const uint32_t queued_limit = std::max(block_limit, uint32_t(params.children_in_one_block_max));
    if (s.active > queued_limit) return false;
    // Room for levels of up to four times this one's nodes (as far as the limit allows), and their
    // records for a few levels; the run ends before a level that would not fit.
    const size_t most = std::min<size_t>(queued_limit, 4 * size_t(s.active));
    small[s.cur].Reserve(2 * most, true);
    small[1 - s.cur].Reserve(2 * most, false);
    child_masks.Reserve(2 * most, false);
    records.Reserve(s.rec_count + 8 * most, false);
    SmallRunRoom room;
    room.nodes = uint32_t(std::min(small[0].size(), small[1].size()));
    room.split_nodes = uint32_t(child_masks.size() / 2);
    room.records = uint32_t(records.u[0].size());
    SmallRunState start = s;
    start.levels = 0;
    start.small_nodes = start.peak_active_nodes = 0;
    const bool queue = queued_limit > block_limit;
    const uint32_t queued_nodes = std::min(queued_limit, room.split_nodes);  // each queued split launch's
    if (!SmallLevelFitsRun(start, room, block_limit) &&
        !(queue && QueuedSmallLevelFits(start, room, block_limit, queued_nodes)))
        return false;
    const SmallLevelLists lists = SmallLists(triangles);
    SmallRun* const run_state = small_run.data();
    // The first launch writes the run's state, which the others take; the last sends it to the host.
    const SmallRun run = ReadBack<SmallRun>([&](const ReadbackTarget& to_host) {
        ParallelForBlocks(backend, "kdtree small levels", 1,
                          SmallLevelsPass{lists, start, false, run_state, room, block_limit,
                                          queue ? ReadbackTarget{} : to_host});
        if (!queue) return;
        const uint32_t queued = QueuedSmallLevelsFor(start, block_limit, queued_nodes);
        for (uint32_t l = 0; l < queued; ++l) {
            ParallelForLanes(backend, "kdtree queued small split", queued_nodes,
                             QueuedSmallSplit{lists, run_state, room, block_limit, queued_nodes});
            ParallelForBlocks(backend, "kdtree queued small children", 1,
                              QueuedSmallChildren{lists, run_state, room, block_limit, queued_nodes});
        }
        ParallelForBlocks(backend, "kdtree small levels", 1,
                          SmallLevelsPass{lists, start, true, run_state, room, block_limit, to_host});
    });
    const SmallRunState& end = run.state;
    CA_CHECK_MSG(end.levels >= 1, "a run of small levels ran none");
    stats.small_levels += int(end.levels);
    stats.small_nodes += end.small_nodes;
    stats.peak_active_nodes = std::max(stats.peak_active_nodes, end.peak_active_nodes);
    for (uint32_t l = 0; l < end.levels; ++l)
        if (run.level_ends[l] != level_bounds.back()) level_bounds.push_back(run.level_ends[l]);  // a level with children
    s = end;
    return true;
}

void BfsSahBuilder::Impl::Output(uint32_t record_count, uint32_t large_records, SahTree& out) {
    stage_area.BeginStage({&subtree});
    subtree.Reserve(record_count, false);
    RecordsView rv = records.View();
    subtree.AddTo(rv);
    ParallelForLevels(backend, "kdtree up pass", level_bounds, LevelOrder::Up, UpPass{rv});
    const LevelTotals t = ReadBack<LevelTotals>([&](const ReadbackTarget& to_host) {
        ParallelFor(backend, "kdtree tree totals", 1, TreeTotals{rv, totals.data(), to_host});
    });
    out.nodes.Resize(t.tree_nodes, false);
    out.indices.Resize(t.tree_items, false);
    ParallelForLevels(backend, "kdtree down pass", level_bounds, LevelOrder::Down,
                      DownPass{rv, roots.View(), out.nodes.data(), out.indices.data()});
    ParallelForLanes(backend, "kdtree store leaves", large_records,
                     CopyStoreLeaves{rv, leaf_store.data(), out.indices.data()});
    // The tree is complete when Build returns: passes on other host threads may read it at once.
    backend.Synchronize();
    out.max_depth = t.tree_depth;
    out.bounds = Aabb(Vec3(t.root_box[0], t.root_box[1], t.root_box[2]), Vec3(t.root_box[3], t.root_box[4], t.root_box[5]));
    stats.large_leaves = t.large_leaves;
    stats.empty_space_cuts = t.empty_space_cuts;
    stats.records = record_count;
    stats.nodes = t.tree_nodes;
    stats.leaves = (t.tree_nodes + 1) / 2;
    stats.index_count = t.tree_items;
    stats.max_depth = out.max_depth;
}

void BfsSahBuilder::Impl::Build(Span<const Triangle> triangles, SahTree& out) {
    CA_CHECK_MSG(out.nodes.space() == space && out.indices.space() == space,
                 "the output tree must be in the builder's backend memory");
    CA_CHECK_MSG(triangles.size() < (size_t(1) << 30), triangles.size(), " triangles (at most 2^30)");
    stats = BfsBuildStats{};
    level_bounds.clear();
    const uint32_t n = uint32_t(triangles.size());
    if (n == 0) {
        const KdNode leaf = KdNode::Leaf(0, 0);
        out.nodes.Upload(Span<const KdNode>(&leaf, 1));
        out.indices.Resize(0);
        out.bounds = Aabb();
        out.max_depth = 0;
        stats.records = stats.nodes = stats.leaves = 1;
        return;
    }
    using Clock = std::chrono::steady_clock;
    const auto since = [](Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); };
    Clock::time_point start = Clock::now();
    uint32_t record_count = 1, root_count = 0, root_entries = 0;
    stage_area.BeginStage({&entries[0], &entries[1], &large[0], &large[1]});
    if (n <= uint32_t(params.small_node_threshold)) {
        // Too few triangles for the large-node stage: the root is the only small root.
        records.Reserve(1, true);
        entries[0].Reserve(n, false);
        root_nodes.Reserve(1, false);
        Grow(roots.first, 1, false);
        Grow(roots.count, 1, false);
        Grow(roots.source, 1, false);
        roots.store.Reserve(n, false);
        ParallelFor(backend, "kdtree init entries", n, InitEntries{triangles.data(), entries[0].View()});
        ParallelFor(backend, "kdtree init small root", 1,
                    InitSmallRoot{entries[0].View(), n, records.View(), roots.View(), root_nodes.View(), totals.data()});
        ParallelFor(backend, "kdtree copy small-root entries", n,
                    CopySmallRootEntries{entries[0].View().tri, roots.View(), 0, 0, 1});
        level_bounds.assign({0u, 1u});
        root_count = 1;
        root_entries = n;
    } else {
        LargeStage(triangles.data(), n, &record_count, &root_count, &root_entries);
    }
    stats.large_stage_ms = since(start);
    start = Clock::now();
    const uint32_t large_records = record_count;
    SmallStage(triangles.data(), root_count, root_entries, &record_count);
    stats.small_stage_ms = since(start);
    start = Clock::now();
    Output(record_count, large_records, out);
    stats.output_ms = since(start);
    stats.work_bytes = WorkBytes();
}

BfsSahBuilder::BfsSahBuilder(const Backend& backend, SahParams params) {
    const std::string problem = SahParamsProblem(params);
    CA_CHECK_MSG(problem.empty(), problem);
    impl_ = std::make_unique<Impl>(backend, params);
}

BfsSahBuilder::~BfsSahBuilder() = default;

void BfsSahBuilder::Build(Span<const Triangle> triangles, SahTree& out) { impl_->Build(triangles, out); }

const SahParams& BfsSahBuilder::params() const { return impl_->params; }

const BfsBuildStats& BfsSahBuilder::stats() const { return impl_->stats; }

}  // namespace caustica
