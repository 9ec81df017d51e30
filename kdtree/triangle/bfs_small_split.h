// Internal to the BFS builder: the split decision of a small-node level (Zhou et al. 2008,
// Algorithm 4, ProcessSmallNodes). Each node evaluates the exact SAH of every candidate plane of
// its triangles (up to 64 x 6) by popcounts, and a node that splits works out its children's
// triangles. While a level has few nodes, or large ones, a GPU warp shares one node's triangles,
// where one thread would walk them all in turn; otherwise four of a warp's lanes do (GroupLanes),
// or, in levels of many nodes, a warp's lanes share the triangles of 32 nodes (bfs_small_split.cpp);
// on the CPU a thread does a node. Every way the same plane wins (candidates are ranked by a total
// order) and the children get the same triangles.
#pragma once

#include <cstdint>

#include "core/backend.h"
#include "core/parallel_for_lanes.h"
#include "kdtree/triangle/bfs_build_state.h"

namespace caustica::bfs {

// A candidate's rank: the lowest SAH cost, then the lower axis, then the lower position (rounding
// makes nearby planes tie), then triangles lying in the plane on the left before on the right (a
// box's lower face before its upper one), then the lower candidate number, so that the best of a
// set does not depend on the order in which it is looked at. Candidates equal up to their number
// split the same way, so the tree does not depend on the order of the triangles either.
struct SplitChoice {
    float cost = INFINITY;
    uint32_t axis = 3;
    float position = 0.0f;
    uint32_t candidate = ~0u;  // 6 * entry + 2 * axis + upper

    CA_HD bool BetterThan(const SplitChoice& o) const {
        if (cost != o.cost) return cost < o.cost;
        if (axis != o.axis) return axis < o.axis;
        if (position != o.position) return position < o.position;
        if ((candidate & 1u) != (o.candidate & 1u)) return (candidate & 1u) < (o.candidate & 1u);
        return candidate < o.candidate;
    }
};

struct BetterSplit {
    CA_HD SplitChoice operator()(const SplitChoice& a, const SplitChoice& b) const { return b.BetterThan(a) ? b : a; }
};

// A mask for each child, combined over the lanes by bitwise or.
struct ChildMasks {
    uint64_t side[2] = {0, 0};
};
struct EitherMask {
    CA_HD ChildMasks operator()(const ChildMasks& a, const ChildMasks& b) const {
        ChildMasks m;
        for (int s = 0; s < 2; ++s) m.side[s] = a.side[s] | b.side[s];
        return m;
    }
};

// The triangles of a node that one of its lanes looks at: bits lane, lane + lanes, ... of its mask
// (lanes a power of two up to 32); all of them for one lane alone.
CA_HD inline uint64_t LaneShare(uint32_t lane, uint32_t lanes) {
    return (~uint64_t(0) / ((uint64_t(1) << lanes) - 1)) << lane;
}

// What weighing a node's candidates needs of it: its cell and triangles (a mask of its small
// root's store entries), their count and the cell's area.
struct NodeToWeigh {
    Aabb cell;
    uint64_t mask;
    int count;
    float area;
    CA_HD NodeToWeigh(const Aabb& c, uint64_t m) : cell(c), mask(m), count(int(PopCount(m))), area(c.SurfaceArea()) {}
};

struct SmallSplitPass {
    using Scratch = NoScratch;
    SmallNodesView nodes;
    SmallRootsView roots;
    RecordsView records;
    const Triangle* triangles;
    uint64_t* child_masks;  // two per node that splits: its children's triangles
    float cost_traversal, cost_intersection;
    int max_depth;
    bool test_straddlers;  // SahParams::test_small_stage_straddlers

    // Decides node i with lanes (OneLane or a warp's): its best split or a leaf.
    template <class Lanes>
    CA_HD void Run(const Lanes& lanes, NoScratch&, uint32_t i) const {
        Finish(lanes, i, lanes.Reduce(BestOfShare(i, lanes.Lane(), Lanes::kCount), BetterSplit()));
    }

    // Finishes node i with the best of all its candidates: its children's triangles if it splits,
    // and its record.
    template <class Lanes>
    CA_HD void Finish(const Lanes& lanes, uint32_t i, const SplitChoice& best) const {
        const bool split = best.cost < cost_intersection * float(PopCount(nodes.mask[i]));
        const ChildMasks masks = split ? Children(lanes, i, best) : ChildMasks();
        if (lanes.Lane() == 0) Decide(i, best, split, masks);
    }

    // Whether node i, of the cell and triangles given, weighs its candidates at all: it holds
    // triangles, has area and lies above the depth limit.
    CA_HD bool Weighs(uint32_t i, const Aabb& cell, uint64_t mask) const {
        return nodes.depth[i] < max_depth && mask != 0 && cell.SurfaceArea() > 0.0f;
    }

    // The best candidate of node i among the triangles of the lane's share.
    CA_HD SplitChoice BestOfShare(uint32_t i, uint32_t lane, uint32_t lanes) const {
        SplitChoice best;
        const NodeToWeigh node(nodes.Region(i), nodes.mask[i]);
        if (!Weighs(i, node.cell, node.mask)) return best;
        const uint32_t first = nodes.first[i];
        for (uint64_t rest = node.mask & LaneShare(lane, lanes); rest != 0; rest &= rest - 1)
            WeighEntry(node, first + LowestBit(rest), best);
        return best;
    }

    // Weighs the six candidates of root store entry e, one of node's triangles: best becomes the
    // best of them where it is better.
    CA_HD void WeighEntry(const NodeToWeigh& node, uint32_t e, SplitChoice& best) const {
        const Aabb& cell = node.cell;
        const auto weigh = [&](const Aabb& box, int axis, bool upper, uint32_t c, uint64_t left_mask,
                               uint64_t right_mask) {
            const float p = upper ? box.hi[axis] : box.lo[axis];
            // A plane on the cell's face may cut off the triangles lying in it (a flat face of a
            // machined part) into a cell of no thickness: a triangle's box with no extent on the
            // axis, putting them on that face's side.
            const bool inside = cell.lo[axis] < p && p < cell.hi[axis];
            const bool cuts_off_face = box.lo[axis] == box.hi[axis] && p == (upper ? cell.hi[axis] : cell.lo[axis]);
            if (!inside && !cuts_off_face) return;
            const int left = int(PopCount(node.mask & left_mask));
            const int right = int(PopCount(node.mask & right_mask));
            if (left == node.count && right == node.count) return;
            const float area_left = cell.Half(axis, p, 0).SurfaceArea();
            const float area_right = cell.Half(axis, p, 1).SurfaceArea();
            SplitChoice choice;
            choice.cost = cost_traversal +
                          cost_intersection * (area_left * float(left) + area_right * float(right)) / node.area;
            choice.axis = uint32_t(axis);
            choice.position = p;
            choice.candidate = c;
            if (choice.BetterThan(best)) best = choice;
        };
        // The entry's box and all six candidates' masks are read before any is weighed, so that
        // the reads overlap, where each candidate's checks held up the next one's reads.
        const Aabb box = roots.Box(e);
        const uint32_t c = 6 * e;
        const uint64_t l0 = roots.CandLeft(c), l1 = roots.CandLeft(c + 1), l2 = roots.CandLeft(c + 2),
                       l3 = roots.CandLeft(c + 3), l4 = roots.CandLeft(c + 4), l5 = roots.CandLeft(c + 5);
        const uint64_t r0 = roots.CandRight(c), r1 = roots.CandRight(c + 1), r2 = roots.CandRight(c + 2),
                       r3 = roots.CandRight(c + 3), r4 = roots.CandRight(c + 4), r5 = roots.CandRight(c + 5);
        weigh(box, 0, false, c, l0, r0);
        weigh(box, 0, true, c + 1, l1, r1);
        weigh(box, 1, false, c + 2, l2, r2);
        weigh(box, 1, true, c + 3, l3, r3);
        weigh(box, 2, false, c + 4, l4, r4);
        weigh(box, 2, true, c + 5, l5, r5);
    }

    // The triangles of node i's children when best splits it: the candidate's masks, with the
    // triangles lying in a face of the cell added to a flat child on that face (CrossesCellFace).
    // The small root's boxes are clipped to its cell only: the box of a long triangle that
    // straddles the plane may reach into a child that the triangle itself misses; with
    // test_straddlers such a triangle, tested against each child's cell, stays only in those it
    // meets. A triangle whose box lies inside the cell but for the split axis straddles the plane
    // in fact; the others lie on their side, since they met the cell. Each lane tests its share.
    template <class Lanes>
    CA_HD ChildMasks Children(const Lanes& lanes, uint32_t i, const SplitChoice& best) const {
        const uint64_t mask = nodes.mask[i];
        const int axis = int(best.axis);
        const float p = best.position;
        const Aabb cell = nodes.Region(i);
        const uint32_t first = nodes.first[i];
        const uint64_t share = mask & LaneShare(lanes.Lane(), Lanes::kCount);
        const uint64_t in[2] = {mask & roots.CandLeft(best.candidate), mask & roots.CandRight(best.candidate)};
        const bool face = p == cell.lo[axis] || p == cell.hi[axis];
        const int flat = p == cell.lo[axis] ? 0 : 1;
        ChildMasks changed;  // added to the flat child, or taken from a child the triangle misses
        if (face) {
            for (uint64_t rest = share; rest != 0; rest &= rest - 1) {
                const uint32_t bit = LowestBit(rest);
                if (!(roots.BoxBound(3 * flat + axis, first + bit) == p &&
                      CrossesCellFace(triangles[roots.tri[first + bit]], axis, p, flat)))
                    continue;
                // Not side[flat], an index known only at run time: local memory.
                if (flat == 0) changed.side[0] |= uint64_t(1) << bit;
                else changed.side[1] |= uint64_t(1) << bit;
            }
        }
        for (uint64_t rest = test_straddlers && !face ? share & in[0] & in[1] : 0; rest != 0; rest &= rest - 1) {
            const uint32_t bit = LowestBit(rest);
            const Aabb box = roots.Box(first + bit);
            bool inside = true;
            for (int a = 0; a < 3; ++a)
                inside = inside && (a == axis || (box.lo[a] >= cell.lo[a] && box.hi[a] <= cell.hi[a]));
            if (inside) continue;
            const Triangle& t = triangles[roots.tri[first + bit]];
            if (!TriangleMeetsWidenedBox(t, cell.Half(axis, p, 0))) changed.side[0] |= uint64_t(1) << bit;
            else if (!TriangleMeetsWidenedBox(t, cell.Half(axis, p, 1))) changed.side[1] |= uint64_t(1) << bit;
        }
        changed = lanes.Reduce(changed, EitherMask());
        ChildMasks out;
        for (int s = 0; s < 2; ++s) out.side[s] = face ? in[s] | changed.side[s] : in[s] & ~changed.side[s];
        return out;
    }

    // Records node i as split by best, with its children's masks, or as a leaf.
    CA_HD void Decide(uint32_t i, const SplitChoice& best, bool split, const ChildMasks& masks) const {
        const uint32_t rec = nodes.record[i];
        const uint64_t mask = nodes.mask[i];
        if (split) {
            records.SetHead(rec, best.axis, uint32_t(nodes.depth[i]), 0);
            records.SetSplit(rec, best.position);
            child_masks[2 * i] = masks.side[0];
            child_masks[2 * i + 1] = masks.side[1];
            nodes.split[i] = 1;
        } else {
            records.SetHead(rec, kMaskLeaf, uint32_t(nodes.depth[i]), 0);
            records.left[rec] = nodes.first[i];
            records.SetLeafMask(rec, mask);
            nodes.split[i] = 0;
        }
    }
};

// Decides the first count nodes of pass.nodes, of a batch of small roots with batch_entries
// triangle references, after a level of 'before' nodes (0: the batch's first): sets nodes.split,
// child_masks and the records.
void SplitSmallNodes(const Backend& backend, const SmallSplitPass& pass, uint32_t count, uint32_t before,
                     uint32_t batch_entries);

}  // namespace caustica::bfs
