// The small-node stage of the point tree (Zhou et al. 2008, Algorithm 4 with the VVH of section
// 5.1) for one small root of at most 32 points: its points as bits of 32-bit masks, and for each
// axis the masks of the points before each sorted position and below its coordinate, so that a
// candidate's left count is one popcount and a split is one AND. The subtree is made depth first,
// hence directly in preorder; a sink either counts it or writes it. The lanes (core/lanes.h) share
// the points and the candidates: the CPU takes a root per thread, the GPU a root per warp, where
// one thread per root left the GPU waiting on the slowest. Device code for launch units only.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/float_key.h"
#include "core/hd.h"
#include "core/vec.h"
#include "kdtree/kd_node.h"
#include "kdtree/point/point_build_node.h"
#include "kdtree/point/point_tree.h"

namespace caustica {
namespace point_build {

// The volume of a box extended by r on every side: V(d ± R) of the VVH (Zhou et al. 2008, 5.1).
CA_HD inline float ExtendedVolume(Vec3 lo, Vec3 hi, float r) {
    return (hi.x - lo.x + 2.0f * r) * (hi.y - lo.y + 2.0f * r) * (hi.z - lo.z + 2.0f * r);
}

// A split of a small node at sorted position `position` of `axis`, ranked by a total order (the
// lower VVH cost, then the lower axis, then the lower position), so that the best of a set is the
// same whichever lanes look at its members and in whatever order.
struct PointSplit {
    float cost = INFINITY;
    uint32_t axis = 3;
    uint32_t position = 0;
    CA_HD bool BetterThan(const PointSplit& o) const {
        if (cost != o.cost) return cost < o.cost;
        if (axis != o.axis) return axis < o.axis;
        return position < o.position;
    }
};

// One small root. Load takes its points from a source that gives, for local point t (the points
// numbered in x order), its point number Id(t) and Position(t), and for axis a = 1, 2 the local
// point at position s of the root's list sorted by a, Order(a, s).
struct SmallSubtree {
    float pts[3][32];        // pts[a][t]: coordinate a of local point t
    uint32_t ids[32];
    uint8_t order[3][32];    // local points sorted by each axis
    uint32_t before[3][32];  // before[a][s]: the points at sorted positions 0 .. s-1
    uint32_t count;

    template <class Lanes, class Source>
    CA_HD void Load(const Lanes& lanes, const Source& source, uint32_t count_) {
        count = count_;
        for (uint32_t t = lanes.Lane(); t < count; t += Lanes::kCount) {
            ids[t] = source.Id(t);
            const Vec3 p = source.Position(t);
            for (int a = 0; a < 3; ++a) {
                pts[a][t] = p[a];
                order[a][t] = uint8_t(a == 0 ? t : source.Order(a, t));
            }
        }
        lanes.Sync();
        for (uint32_t s = lanes.Lane(); s < count; s += Lanes::kCount) {
            for (int a = 0; a < 3; ++a) {
                uint32_t all = 0;
                for (uint32_t q = 0; q < s; ++q) all |= 1u << order[a][q];
                before[a][s] = all;
            }
        }
        lanes.Sync();
    }

    // Coordinate a of the point at sorted position s of axis a.
    CA_HD float Sorted(int a, uint32_t s) const { return pts[a][order[a][s]]; }

    // The sorted positions of axis a that hold points of mask (a ballot of the positions).
    template <class Lanes>
    CA_HD uint32_t Positions(const Lanes& lanes, uint32_t mask, int a) const {
        return lanes.Ballot([&](uint32_t s) { return s < count && (mask >> order[a][s] & 1u) != 0; });
    }

    // The cheapest split of the c points at positions (of each axis) by the VVH (cost INFINITY when
    // there is none to try). Candidates: the first point of the node at each coordinate that has
    // some of the node below it. Each lane finds its best, then the lanes the least cost, and the
    // least axis and position at that cost.
    template <class Lanes>
    CA_HD PointSplit BestSplit(const Lanes& lanes, const uint32_t (&positions)[3], uint32_t c, const Aabb& box,
                               float r, float cost_traversal) const {
        PointSplit best;
        const float volume = ExtendedVolume(box.lo, box.hi, r);
        if (c < 2 || !(volume > 0.0f)) return best;
        for (int a = 0; a < 3; ++a) {
            for (uint32_t s = lanes.Lane(); s < count; s += Lanes::kCount) {
                const uint32_t earlier = positions[a] & ((1u << s) - 1u);
                if (!(positions[a] >> s & 1u) || earlier == 0) continue;
                const float x = Sorted(a, s);
                if (!(Sorted(a, HighestBit(earlier)) < x)) continue;  // not the first at x
                Vec3 left_hi = box.hi, right_lo = box.lo;
                left_hi[a] = x;
                right_lo[a] = x;
                const uint32_t l = PopCount(earlier);
                PointSplit split;
                split.cost = cost_traversal + (float(l) * ExtendedVolume(box.lo, left_hi, r) +
                                               float(c - l) * ExtendedVolume(right_lo, box.hi, r)) /
                                                  volume;
                split.axis = uint32_t(a);
                split.position = s;
                if (split.BetterThan(best)) best = split;
            }
        }
        // Costs are positive, so their keys (core/float_key.h) order as they do.
        const uint32_t cost = lanes.ReduceMin(FloatKey(best.cost));
        const uint32_t place = lanes.ReduceMin(FloatKey(best.cost) == cost ? best.axis * 32 + best.position : ~0u);
        best.cost = KeyFloat(cost);
        best.axis = place / 32;
        best.position = place % 32;
        return best;
    }

    template <class Lanes, class Sink>
    CA_HD void Build(const Lanes& lanes, uint32_t begin, uint32_t depth, uint32_t max_depth, float r,
                     float cost_traversal, Sink& sink) const {
        struct Entry {
            uint32_t mask, depth, parent;  // parent: the slot whose right child this is, or kNone
        };
        Entry stack[34];
        int top = 0;
        stack[top++] = {count == 32 ? 0xffffffffu : (1u << count) - 1u, depth, kNone};
        uint32_t slot = 0, points_done = 0;
        while (top > 0) {
            const Entry e = stack[--top];
            if (e.parent != kNone) sink.SetRight(lanes, e.parent, slot);
            // The node's points in each sorted list: its tight box from the first and the last.
            uint32_t positions[3];
            Aabb box;
            for (int a = 0; a < 3; ++a) {
                positions[a] = Positions(lanes, e.mask, a);
                box.lo[a] = Sorted(a, LowestBit(positions[a]));
                box.hi[a] = Sorted(a, HighestBit(positions[a]));
            }
            const uint32_t c = PopCount(e.mask);
            const NodeRange range{begin + points_done, c};
            const PointSplit best =
                e.depth < max_depth ? BestSplit(lanes, positions, c, box, r, cost_traversal) : PointSplit();
            if (best.cost < float(c)) {  // a leaf visits every point: cost c
                const uint32_t left = e.mask & before[best.axis][best.position];
                const float split = pts[best.axis][order[best.axis][best.position]];
                sink.Interior(lanes, slot, e.depth, int(best.axis), split, box, range);
                stack[top++] = {e.mask & ~left, e.depth + 1, slot};
                stack[top++] = {left, e.depth + 1, kNone};
            } else {
                sink.Leaf(lanes, slot, e.depth, box, range, e.mask, *this);
                points_done += c;
            }
            ++slot;
        }
    }
};

struct SmallCountSink {
    uint32_t nodes = 0, deepest = 0;
    template <class Lanes>
    CA_HD void SetRight(const Lanes&, uint32_t, uint32_t) {}
    template <class Lanes>
    CA_HD void Interior(const Lanes&, uint32_t, uint32_t depth, int, float, const Aabb&, NodeRange) {
        Count(depth);
    }
    template <class Lanes>
    CA_HD void Leaf(const Lanes&, uint32_t, uint32_t depth, const Aabb&, NodeRange, uint32_t, const SmallSubtree&) {
        Count(depth);
    }
    CA_HD void Count(uint32_t depth) {
        ++nodes;
        deepest = depth > deepest ? depth : deepest;
    }
};

// Writes nodes and points into the tree's arrays (kdtree/point/point_tree.h): WriteNode one node, and as
// a small subtree's sink the subtree from preorder index address on, lane 0 the nodes and each
// lane its share of a leaf's points (with their input indices, original).
struct TreeWriter {
    uint32_t address;
    const uint32_t* original;
    KdNode* nodes;
    Aabb* boxes;
    NodeRange* ranges;
    TreePoint* points;

    CA_HD void WriteNode(uint32_t at, KdNode node, const Aabb& box, NodeRange range) const {
        nodes[at] = node;
        boxes[at] = box;
        ranges[at] = range;
    }
    template <class Lanes>
    CA_HD void SetRight(const Lanes& lanes, uint32_t parent, uint32_t slot) {
        if (lanes.Lane() != 0) return;
        KdNode& p = nodes[address + parent];
        p = KdNode::Interior(p.Axis(), p.split, address + slot);
    }
    template <class Lanes>
    CA_HD void Interior(const Lanes& lanes, uint32_t slot, uint32_t, int axis, float split, const Aabb& box,
                        NodeRange range) {
        if (lanes.Lane() == 0) WriteNode(address + slot, KdNode::Interior(axis, split, 0), box, range);
    }
    template <class Lanes>
    CA_HD void Leaf(const Lanes& lanes, uint32_t slot, uint32_t, const Aabb& box, NodeRange range, uint32_t mask,
                    const SmallSubtree& sub) {
        if (lanes.Lane() == 0) WriteNode(address + slot, KdNode::Leaf(range.first, range.count), box, range);
        for (uint32_t t = lanes.Lane(); t < sub.count; t += Lanes::kCount) {
            if (!(mask >> t & 1u)) continue;
            const Vec3 p(sub.pts[0][t], sub.pts[1][t], sub.pts[2][t]);
            points[range.first + PopCount(mask & ((1u << t) - 1u))] = TreePoint{p, original[sub.ids[t]]};
        }
    }
};

}  // namespace point_build
}  // namespace caustica
