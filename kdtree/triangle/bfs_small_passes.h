// Internal to the BFS builder (kdtree/triangle/bfs_builder.cpp): the small-node stage (Zhou et al.
// 2008, Algorithm 4; Chang et al. 2013, section 13.3) in batches of small roots, its levels of
// launches, its runs of levels in one block and the levels queued between them without read-backs.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/hd.h"
#include "core/lane_search.h"
#include "core/lanes.h"
#include "core/parallel_for_lanes.h"
#include "core/readback.h"
#include "kdtree/triangle/bfs_build_state.h"
#include "kdtree/triangle/bfs_small_split.h"
#include "kdtree/triangle/sah_params.h"

namespace caustica::bfs {

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

// Puts a batch's small roots, from first_root on, at the start of the first small-node list.
struct CopySmallNodes {
    SmallNodesView from, to;
    uint32_t first_root;
    CA_HD void operator()(int ii) const {
        const uint32_t i = uint32_t(ii), j = first_root + i;
        to.record[i] = from.record[j];
        to.first[i] = from.first[j];
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
            next.first[j] = nodes.first[i];
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

}  // namespace caustica::bfs
