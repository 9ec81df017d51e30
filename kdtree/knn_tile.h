// KNN for a tile of coherent queries (neighbouring pixels of an image): the tile's queries share one
// gather of the points near all of them, and each query then runs Algorithm 6 (Zhou et al. 2008)
// over that list instead of walking the tree three times on its own.
//
// On the GPU a tile is a warp: the warp walks the tree once, its lanes read the points of a subtree
// side by side, and the list lives in shared memory, read by all lanes at once. The CPU twin
// gathers the same lists in the same order, so both give the same neighbours in the same order.
// Where the tile's points do not fit, its queries split into groups with lists of their own
// (ShareTileLists); queries that get none (far apart, as in random order) take the per-query path
// (HistogramKnn with its own CandidateList).
#pragma once

#include <cfloat>
#include <cmath>
#include <cstdint>

#include "core/hd.h"
#include "core/vec.h"
#include "kdtree/point_queries.h"
#include "kdtree/point_tree.h"

namespace caustica {

// Queries per tile: a GPU warp.
constexpr uint32_t kKnnTileQueries = 32;
// Points a tile's lists hold together (16 bytes each, in a warp's shared memory).
constexpr uint32_t kKnnTileCandidates = 512;
// A subtree with at most this many points is read whole (its range of the point list, in
// parallel) instead of walked node by node.
constexpr uint32_t kKnnTileScanPoints = 128;

// The box that holds every point within r of q by the distances HistogramKnn computes: padded for
// float rounding of both the box and the squared distances.
CA_HD CA_INLINE Aabb QueryBallBox(Vec3 q, float r) {
    const float pad = r * 1e-4f + 4.0f * FLT_EPSILON * fmaxf(fmaxf(fabsf(q.x), fabsf(q.y)), fabsf(q.z));
    const Vec3 e(r + pad);
    return Aabb{q - e, q + e};
}

// Calls scan(first, count) for the point ranges that may hold points inside box, depth first,
// left child first: a leaf, or a subtree of at most kKnnTileScanPoints points, whose tight box
// meets the box. Stops and returns false as soon as scan returns false. Every GPU lane of a warp
// runs it alike, so the walk stays uniform.
template <class Scan, class Work>
CA_HD bool ForEachRangeInBox(const PointTreeView& tree, const Aabb& box, Scan&& scan, Work& work) {
    if (tree.point_count == 0) return true;
    uint32_t stack[kMaxPointTreeDepth];
    int top = 0;
    uint32_t node = 0;
    while (true) {
        const KdNode n = LoadNode(tree.nodes, node);
        const NodeRange range = tree.ranges[node];
        work.Nodes(1);
        bool descend_left = false, descend_right = false;
        if (n.IsLeaf() || range.count <= kKnnTileScanPoints) {
            if (range.count > 0 && !LoadBox(tree.boxes, node).Intersect(box).Empty() && !scan(range.first, range.count))
                return false;
        } else {
            // Points on the plane may be in either child (the split follows the sorted lists).
            descend_left = box.lo[n.Axis()] <= n.split;
            descend_right = box.hi[n.Axis()] >= n.split;
        }
        if (descend_left) {
            if (descend_right) stack[top++] = n.RightChild();
            node = node + 1;
        } else if (descend_right) {
            node = n.RightChild();
        } else {
            if (top == 0) return true;
            node = stack[--top];
        }
    }
}

// A group's list gathered by one thread (the CPU twin of the GPU's warp gather in knn_batch.cpp):
// the points inside box in ForEachRangeInBox's order, at most limit of them. Returns their number,
// or limit + 1 when they do not fit.
template <class Work>
CA_HD uint32_t GatherTile(const PointTreeView& tree, const Aabb& box, TreePoint* list, uint32_t limit, Work& work) {
    uint32_t count = 0;
    const bool fits = ForEachRangeInBox(tree, box, [&](uint32_t first, uint32_t n) {
        work.Points(n);
        for (uint32_t i = first; i < first + n; ++i) {
            const TreePoint p = LoadPoint(tree.points, i);
            if (!box.Contains(p.position)) continue;
            if (count == limit) return false;
            list[count++] = p;
        }
        return true;
    }, work);
    return fits ? count : limit + 1;
}

// Splits a tile's queries (lanes, a bit mask) into groups that each share one list, all lists
// within capacity points: the whole tile first; a group whose points do not fit in what is left
// is halved at the middle of its queries' box on its longest axis (so queries on another surface,
// or far off the receiver, part from the rest), down to single queries. assign(group, first,
// count) is called for each group that got a list; queries in none take the per-query path.
// Lanes supplies what the queries of a group have in common: BallBox(group) (the box of their
// search balls), PointBox(group), Below(group, axis, value) (those with position[axis] < value)
// and Gather(box, first, limit). Every GPU lane runs this alike, with warp-wide answers.
template <class Lanes, class Assign>
CA_HD void ShareTileLists(Lanes& lanes, uint32_t members, uint32_t capacity, Assign&& assign) {
    uint32_t groups[kKnnTileQueries];
    int top = 0;
    if (members != 0) groups[top++] = members;
    uint32_t used = 0;
    while (top > 0) {
        const uint32_t group = groups[--top];
        if (used < capacity) {
            const uint32_t count = lanes.Gather(lanes.BallBox(group), used, capacity - used);
            if (count <= capacity - used) {
                assign(group, used, count);
                used += count;
                continue;
            }
        }
        const Aabb box = lanes.PointBox(group);
        const int axis = box.LongestAxis();
        const uint32_t below = lanes.Below(group, axis, box.Center()[axis]);
        if (below == 0 || below == group) continue;  // one query, or all at one point
        groups[top++] = group & ~below;
        groups[top++] = below;
    }
}

// A tile's list as the candidate source of one query's HistogramKnn: it holds every point within
// cover_r2 of the query (the tile's box holds the query's ball), read with the query's own
// distances; a radius beyond that walks the tree.
struct TileCandidates {
    const TreePoint* points;
    uint32_t count;
    float cover_r2;

    template <class Visit, class Work>
    CA_HD void ForEachWithin(const PointTreeView& tree, Vec3 q, float r, Visit&& visit, Work& work) const {
        const float r2 = r * r;
        if (r2 > cover_r2) {
            RangeSearch(tree, q, r, [&](const TreePoint& p, float d2) { visit(p.index, d2); }, work);
            return;
        }
        work.ListPass(count);
        for (uint32_t i = 0; i < count; ++i) {
            const TreePoint p = points[i];
            const float d2 = Distance2(p.position, q);
            if (d2 <= r2) visit(p.index, d2);
        }
    }
};

}  // namespace caustica
