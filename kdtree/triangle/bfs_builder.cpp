// The BFS SAH kd-tree builder: Zhou et al. 2008, Algorithm 1 (initialization, large-node stage,
// small-node stage, output stage), with the per-chunk atomics and warp scans of Chang et al. 2013.
//
// This file is the host's part: it orders the passes and owns the work lists (bfs_work_lists.h).
// Every per-item pass is a CA_HD functor run by ParallelFor and its kin on either backend: the
// large-node stage's (bfs_large_passes.h, and its runs of levels in one block in bfs_large_run.h),
// the small-node stage's (bfs_small_passes.h) and the output stage's (bfs_output_passes.h). The two
// passes over chunks of triangles and the small-node split use warp intrinsics on the GPU
// (bfs_chunk_passes.cpp and bfs_small_split.cpp, with CPU twins).
//
// Each large level of launches reads back one small struct of sizes (LevelTotals), and a level of
// millions of entries also its children's count before it places them
// (kChildEntriesWithoutReadBack); large levels of few entries run in one block, many in a row with
// one read-back (SahParams' limits of work in one block); small-node levels of up to a few thousand
// nodes are queued behind each other, their sizes on the device, with one read-back for a run of
// them (kQueuedSmallLevels); the output stage reads back once.
#include "kdtree/triangle/bfs_builder.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "core/buffer.h"
#include "core/error.h"
#include "core/memory.h"
#include "core/parallel_for.h"
#include "core/parallel_for_blocks.h"
#include "core/parallel_for_lanes.h"
#include "core/parallel_for_levels.h"
#include "core/primitives.h"
#include "core/readback.h"
#include "core/stage_area.h"
#include "kdtree/triangle/bfs_chunk_passes.h"
#include "kdtree/triangle/bfs_large_passes.h"
#include "kdtree/triangle/bfs_large_run.h"
#include "kdtree/triangle/bfs_output_passes.h"
#include "kdtree/triangle/bfs_small_passes.h"
#include "kdtree/triangle/bfs_small_split.h"
#include "kdtree/triangle/bfs_work_lists.h"

namespace caustica {

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
            SplitSmallNodes(backend, lists.Split(s), active, s.before, batch.entries);
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
