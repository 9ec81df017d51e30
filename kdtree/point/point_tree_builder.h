// The point (photon) kd-tree builder of Zhou et al. 2008, section 5.1, on either backend. Both
// backends run the same per-item passes and the same integer scans and stable sorts, so they give
// the same tree bit for bit.
//
//   1. The points are numbered anew in Morton order, so that a node's points have nearby numbers
//      and what the passes read by point number shares cache lines; then three point-ID lists are
//      sorted by x, y and z once (radix sort of order-preserving keys). An axis on which all points
//      lie at one place (a plane of photons) needs no list: the passes keep one fewer
//      (kdtree/point/point_build_node.h, AxisLists).
//   2. Large nodes, one level at a time: the tight box in O(1) from the sorted lists; an empty-space
//      cut (Ce) or the spatial median of the longest axis; one stable split pass over the
//      concatenated lists keeps every node's points contiguous and at one offset in all of them.
//      The pass reads working lists that hold the points of the level's large nodes only, and
//      writes the points of nodes that are done to their final place, once.
//   3. Medium nodes (at most PointTreeParams::medium_node_threshold points, 2048 by default): each
//      one's subtree built whole by one GPU block in shared memory, by the same large-node steps
//      level by level down to the small nodes (at most T points), and those by the exact VVH cost,
//      split candidates at point positions, point sets as 32-bit masks with popcount, a warp each
//      (kdtree/point/point_medium_subtree.h, kdtree/point/point_small_subtree.h). The tree is the one that the
//      large-node levels would make all the way down; the levels of the whole set stop about half
//      way, and with them their launches and the host's waits.
//   4. Preorder output: a bottom-up size pass and a top-down address pass (Zhou Algorithm 5), over
//      the large-node levels and inside each medium subtree; then the nodes and points are written.
//
// Large nodes split at the spatial median unless it leaves fewer than min_split_fraction of the
// points on one side; then at the point median (see PointTreeParams). The host waits for the root
// box, once per large-node level (to size the next), as in Zhou et al.'s coordination on the CPU,
// for the medium subtrees' store and for the tree's size, each time after it has queued what it
// can (core/readback.h).
// Work memory: 80 bytes per point (the points in Morton order as three coordinate arrays and their
// input indices, the three lists in final order, two working copies of them, the second of which
// holds the sort keys while they sort and the first the small roots' lists afterwards, the active
// node of each working position twice, the local number of each point, the medium subtrees'
// store, sized for a quarter of the points and grown when a build needs more) and about 620 bytes
// per breadth-first node of the large-node levels (most of it a medium root's levels); the tree
// itself: 16 bytes per point and 40 bytes per node.
#pragma once

#include <memory>

#include "core/backend.h"
#include "core/buffer.h"
#include "core/parallel_for.h"
#include "core/span.h"
#include "kdtree/point/point_traits.h"
#include "kdtree/point/point_tree.h"

namespace caustica {

class PointTreeBuilder {
public:
    explicit PointTreeBuilder(const Backend& backend, PointTreeParams params = {});
    ~PointTreeBuilder();
    PointTreeBuilder(const PointTreeBuilder&) = delete;
    PointTreeBuilder& operator=(const PointTreeBuilder&) = delete;

    // Builds a tree over positions (finite, in the backend's memory) into out, whose buffers must
    // be in the same memory. The work lists are kept: once the sizes have been seen, a rebuild
    // allocates nothing.
    void Build(Span<const Vec3> positions, PointTree& out);

    // Builds over a caller's point type through PointTraits<P>. On the GPU, call it from a launch
    // unit (it runs a per-item pass templated on P).
    template <class P>
    void Build(Span<const P> points, PointTree& out) {
        gathered_.Resize(points.size(), false);
        ParallelFor(backend_, "point tree: gather positions", points.size(),
                    GatherPositionsPass<P>{points, gathered_.span()});
        Build(Span<const Vec3>(gathered_.span()), out);
    }

    const PointTreeParams& params() const { return params_; }

private:
    struct Impl;
    const Backend& backend_;
    PointTreeParams params_;
    Buffer<Vec3> gathered_;
    std::unique_ptr<Impl> impl_;
};

}  // namespace caustica
