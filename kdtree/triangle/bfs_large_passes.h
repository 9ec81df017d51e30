// Internal to the BFS builder (kdtree/triangle/bfs_builder.cpp): the initialization and the passes
// of a large-node level of launches (Zhou et al. 2008, Algorithm 2), each a CA_HD functor that
// ParallelFor and its kin run on either backend.
#pragma once

#include <cstdint>

#include "core/hd.h"
#include "core/lane_search.h"
#include "core/lanes.h"
#include "core/parallel_for_lanes.h"
#include "core/readback.h"
#include "kdtree/triangle/bfs_binned_sah.h"
#include "kdtree/triangle/bfs_build_state.h"
#include "kdtree/triangle/sah_params.h"

namespace caustica::bfs {

CA_HD inline uint64_t LowBits(uint32_t n) { return n >= 64 ? ~uint64_t(0) : ((uint64_t(1) << n) - 1); }

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
    small.first[root] = first;
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

}  // namespace caustica::bfs
