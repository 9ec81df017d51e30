// Internal to the BFS builder (kdtree/triangle/bfs_builder.cpp): whole large-node levels in one
// block (LargeLevelsPass), the same passes as a level of launches behind the block's barriers.
#pragma once

#include <cstdint>

#include "core/hd.h"
#include "core/lane_search.h"
#include "core/lanes.h"
#include "core/parallel_for_lanes.h"
#include "core/readback.h"
#include "kdtree/triangle/bfs_large_passes.h"

namespace caustica::bfs {

// Whole large levels of at most large_levels_in_one_block_max entries and child slots run in one
// block, one after another while they fit: the same passes as a level of launches, behind the
// block's barriers, with no read-back between the levels. The last levels of a build are such
// levels (the Cornell box's last twelve of 28 at the default 1,024). The limit is measured: one
// block's levels cost more than launches' once they have a few thousand entries (H200, 2026-11-27,
// docs/notes/triangle-tree-performance.md).

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

}  // namespace caustica::bfs
