// Internal to the BFS builder: the split decision of a small-node level (Zhou et al. 2008,
// Algorithm 4, ProcessSmallNodes). Each node evaluates the exact SAH of every candidate plane of
// its triangles (up to 64 x 6) by popcounts. While a level has few nodes, a GPU warp shares one
// node's candidates, where one thread would walk them all in turn; otherwise, and on the CPU, a
// thread does a node. Either way the same plane wins: candidates are ranked by a total order.
#pragma once

#include <cstdint>

#include "core/backend.h"
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

struct SmallSplitPass {
    SmallNodesView nodes;
    SmallRootsView roots;
    RecordsView records;
    uint32_t* best_candidate;
    float cost_traversal, cost_intersection;
    int max_depth;

    // The best candidate of node i among the triangles whose bit in the node's mask is lane,
    // lane + lanes, ...; lanes is 1 (all of them) or 32 (a warp's share).
    CA_HD SplitChoice BestOfShare(uint32_t i, uint32_t lane, uint32_t lanes) const {
        SplitChoice best;
        const uint64_t mask = nodes.mask[i];
        const Aabb cell = nodes.Region(i);
        const int count = int(PopCount(mask));
        const float area = cell.SurfaceArea();
        if (!(nodes.depth[i] < max_depth && count > 0 && area > 0.0f)) return best;
        const uint32_t first = roots.first[nodes.root[i]];
        const uint64_t share = lanes == 1 ? ~uint64_t(0) : (uint64_t(1) << lane) | (uint64_t(1) << (lane + 32));
        for (uint64_t rest = mask & share; rest != 0; rest &= rest - 1) {
            const uint32_t e = first + LowestBit(rest);
            for (uint32_t axis = 0; axis < 3; ++axis) {
                for (uint32_t upper = 0; upper < 2; ++upper) {
                    const float p = roots.store.box[3 * upper + axis][e];
                    // A plane on the cell's face may cut off the triangles lying in it (a flat
                    // face of a machined part) into a cell of no thickness: a triangle's box with
                    // no extent on the axis, putting them on that face's side.
                    const bool inside = cell.lo[axis] < p && p < cell.hi[axis];
                    const bool cuts_off_face = roots.store.box[axis][e] == roots.store.box[3 + axis][e] &&
                                               p == (upper ? cell.hi[axis] : cell.lo[axis]);
                    if (!inside && !cuts_off_face) continue;
                    const uint32_t c = 6 * e + 2 * axis + upper;
                    const int left = int(PopCount(mask & roots.CandLeft(c)));
                    const int right = int(PopCount(mask & roots.CandRight(c)));
                    if (left == count && right == count) continue;
                    const float area_left = ChildCell(cell, int(axis), p, 0).SurfaceArea();
                    const float area_right = ChildCell(cell, int(axis), p, 1).SurfaceArea();
                    SplitChoice choice;
                    choice.cost = cost_traversal +
                                  cost_intersection * (area_left * float(left) + area_right * float(right)) / area;
                    choice.axis = axis;
                    choice.position = p;
                    choice.candidate = c;
                    if (choice.BetterThan(best)) best = choice;
                }
            }
        }
        return best;
    }

    // Records node i as split by best when it beats the leaf cost, else as a leaf.
    CA_HD void Decide(uint32_t i, const SplitChoice& best) const {
        const uint32_t rec = nodes.record[i];
        const uint64_t mask = nodes.mask[i];
        records.depth[rec] = nodes.depth[i];
        records.chain[rec] = 0;
        if (best.cost < cost_intersection * float(PopCount(mask))) {
            records.kind[rec] = best.axis;
            records.split[rec] = best.position;
            best_candidate[i] = best.candidate;
            nodes.split[i] = 1;
        } else {
            records.kind[rec] = kMaskLeaf;
            records.left[rec] = nodes.root[i];
            records.mask[rec] = mask;
            nodes.split[i] = 0;
        }
    }
};

// Decides the first count nodes of pass.nodes: sets nodes.split, best_candidate and the records.
void SplitSmallNodes(const Backend& backend, const SmallSplitPass& pass, uint32_t count);

}  // namespace caustica::bfs
