// How the point tree splits a large node (Zhou et al. 2008, sections 3.1 and 5.1): an empty-space
// cut when a side of the node's cell is more than Ce empty, else the spatial median of its tight
// box's longest axis, moved to the point median where it would cut off too few points. The node's
// points come as three lists sorted by x, y and z (Lists: Coord(axis, i) is the axis coordinate of
// the i-th point of the list sorted by that axis), so its box is O(1) and a split's left count is
// a search. The large-node levels (the lists in global memory) and the medium subtrees (the lists
// in a block's shared memory) decide with the same code, hence the same tree. Launch units only.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/hd.h"
#include "core/lane_search.h"
#include "core/vec.h"
#include "kdtree/point/point_build_node.h"

namespace caustica {
namespace point_build {

// The lists of a node in global memory: concatenated lists of m entries (point numbers; the list
// of an axis as `axes` says), the node's entries at [begin, begin + count) of each.
struct GlobalLists {
    PointCoords points;
    const uint32_t* lists;
    AxisLists axes;
    uint32_t m, begin;
    CA_HD float Coord(int axis, uint32_t i) const {
        return points.Coord(axis, lists[axes.Of(axis) * m + begin + i]);
    }
};

// The tight box of a node's count points: the first and last entries of its three sorted lists.
template <class Lists>
CA_HD Aabb SortedBox(const Lists& lists, uint32_t count) {
    if (count == 0) return Aabb();
    Aabb box;
    for (int a = 0; a < 3; ++a) {
        box.lo[a] = lists.Coord(a, 0);
        box.hi[a] = lists.Coord(a, count - 1);
    }
    return box;
}

// The number of a node's points below x on the axis its list is sorted by (core/lane_search.h).
template <class Lanes, class Lists>
CA_HD uint32_t FirstAtOrAbove(const Lanes& lanes, const Lists& lists, uint32_t count, int axis, float x) {
    return PartitionPoint(lanes, 0, count, [&](uint32_t j) { return lists.Coord(axis, j) < x; });
}

struct LargeSplitParams {
    float empty_space_ratio;
    float min_split_fraction;
    uint32_t max_depth;
};

struct LargeSplit {
    Aabb box;             // the tight box of the node's points
    bool splits;          // false: a leaf (too deep, or all points at one place)
    uint32_t axis;
    float split;          // points below it go left
    uint32_t left_count;  // how many
};

// The split of a node of count points (count > 0) that owns cell at depth. The lanes share the
// searches; every lane gets the answer.
template <class Lanes, class Lists>
CA_HD LargeSplit DecideLargeSplit(const Lanes& lanes, const Lists& lists, uint32_t count, const Aabb& cell,
                                  uint32_t depth, const LargeSplitParams& p) {
    LargeSplit s;
    s.box = SortedBox(lists, count);
    s.splits = false;
    s.axis = 0;
    s.split = 0.0f;
    s.left_count = 0;
    const Vec3 extent = s.box.Extent();
    if (depth >= p.max_depth || (extent.x <= 0.0f && extent.y <= 0.0f && extent.z <= 0.0f)) return s;
    int axis = -1;
    float split = 0.0f, best_ratio = p.empty_space_ratio;
    uint32_t left_count = 0;
    for (int a = 0; a < 3; ++a) {
        const float cell_extent = cell.hi[a] - cell.lo[a];
        if (!(cell_extent > 0.0f)) continue;
        const float low_ratio = (s.box.lo[a] - cell.lo[a]) / cell_extent;
        const float high_ratio = (cell.hi[a] - s.box.hi[a]) / cell_extent;
        if (low_ratio > best_ratio) {
            best_ratio = low_ratio;
            axis = a;
            split = s.box.lo[a];  // nothing lies below: the left child is empty
            left_count = 0;
        }
        // Everything lies below: the right is empty. Only when the left cell gets smaller: a flat
        // box (points on a wall) in a cell a few ulps wide would be cut again and again, each time
        // by nothing, down to max_depth with all its points in one leaf.
        const float above = nextafterf(s.box.hi[a], INFINITY);
        if (high_ratio > best_ratio && above < cell.hi[a]) {
            best_ratio = high_ratio;
            axis = a;
            split = above;
            left_count = count;
        }
    }
    if (axis < 0) {
        axis = s.box.LongestAxis();
        const float lo = s.box.lo[axis], hi = s.box.hi[axis];
        split = lo + 0.5f * (hi - lo);
        // Points below the plane go left; lo < split <= hi keeps both children non-empty.
        if (!(split > lo)) split = hi;
        // The point median and the point before it (count >= 2: the box is not flat), read before
        // the search so that their reads overlap it; used where the spatial median falls short.
        const uint32_t mid = count / 2;
        const float median = lists.Coord(axis, mid), before_median = lists.Coord(axis, mid - 1);
        // In a dense cluster the spatial median may cut off only a few points, and the node needs
        // many more levels; the point median of the same axis, read from its sorted list, halves
        // it instead.
        left_count = FirstAtOrAbove(lanes, lists, count, axis, split);
        const uint32_t fewer = left_count < count - left_count ? left_count : count - left_count;
        if (float(fewer) < p.min_split_fraction * float(count)) {
            if (median > lo) {
                split = median;
                // The points before the median lie below it, unless some share its coordinate.
                left_count = before_median < median ? mid : FirstAtOrAbove(lanes, lists, mid, axis, median);
            } else {
                // All points from the lowest up to the median share one coordinate: split at the
                // first point above it.
                left_count = FirstAtOrAbove(lanes, lists, count, axis, nextafterf(lo, INFINITY));
                split = lists.Coord(axis, left_count);
            }
        }
    }
    s.splits = true;
    s.axis = uint32_t(axis);
    s.split = split;
    s.left_count = left_count;
    return s;
}

}  // namespace point_build
}  // namespace caustica
