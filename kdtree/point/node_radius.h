// Initial KNN radii from node-radius estimates (Zhou et al. 2008, Appendix A, Algorithm 7).
//
// Each frame, NodeRadii::Compute finds the k-th neighbour distance Ri at the box centre Ci of the
// topmost nodes whose radius (half the box diagonal) is under alpha * R, and of nlevel - 1 levels
// below them; leaves that stay wider than alpha * R get one too, so that every leaf's path has an
// estimate. For a query p, EstimateRadius is the minimum over the nodes on p's path of
// |p - Ci| + Ri: by the triangle inequality the ball of that radius holds the ball B(Ci, Ri) and so
// at least k points; and of the farthest box corner of the nodes there holding k points or more
// (PathRadiusBound). It is therefore never below p's k-th distance (a 1e-5 relative margin covers
// float rounding), and infinite only where the tree has fewer than k points.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/backend.h"
#include "core/buffer.h"
#include "core/hd.h"
#include "core/vec.h"
#include "kdtree/point/point_queries.h"
#include "kdtree/point/point_tree.h"

namespace caustica {

// The largest k node radii can be estimated for (the estimate keeps k distances per thread).
constexpr int kMaxEstimateK = 128;

struct NodeEstimate {
    Vec3 centre;
    float radius = INFINITY;  // Ri, or infinity where the node has no estimate
};

struct NodeRadiusView {
    const NodeEstimate* estimates = nullptr;  // one per tree node; null: no estimates
    uint32_t k = 0;                           // the k they were computed for
};

// The distance from p to the farthest point of box (its farthest corner).
CA_HD inline float FarthestBoxDistance(const Aabb& box, Vec3 p) {
    const Vec3 a = p - box.lo, b = box.hi - p;
    return Length(Vec3(Max(fabsf(a.x), fabsf(b.x)), Max(fabsf(a.y), fabsf(b.y)), Max(fabsf(a.z), fabsf(b.z))));
}

// Calls visit(node) for the nodes on p's path from the root until it returns false or a leaf is
// visited. An empty child (an empty-space cut) is passed over for its sibling.
template <class Visit>
CA_HD void WalkPath(const PointTreeView& tree, Vec3 p, Visit&& visit) {
    uint32_t node = 0;
    while (visit(node)) {
        const KdNode n = tree.nodes[node];
        if (n.IsLeaf()) return;
        const bool left = p[n.Axis()] < n.split;
        const uint32_t near_child = left ? node + 1 : n.RightChild();
        const uint32_t far_child = left ? n.RightChild() : node + 1;
        node = tree.ranges[near_child].count > 0 ? near_child : far_child;
    }
}

// An upper bound of p's k-th neighbour distance from the tree alone: a node of at least k points
// holds k of them within its box's farthest corner from p; the minimum over p's path (infinite
// when the tree has fewer than k points).
CA_HD inline float PathRadiusBound(const PointTreeView& tree, Vec3 p, uint32_t k) {
    float r = INFINITY;
    if (tree.point_count == 0) return r;
    WalkPath(tree, p, [&](uint32_t node) {
        if (tree.ranges[node].count < k) return false;  // nor do its descendants hold k
        r = Min(r, FarthestBoxDistance(LoadBox(tree.boxes, node), p));
        return true;
    });
    return r;
}

// Zhou et al. 2008, Algorithm 7, ESTIMATERADIUS, along the path of p from the root: every node's
// estimate is valid for any p, the path only picks the ones likely to be tight. Where the nodes
// with estimates are much larger than the k-th distance (a dense caustic: Ri is tiny next to R and
// |p - Ci| dominates), PathRadiusBound is far tighter; r0 is the smaller of the two.
CA_HD inline float EstimateRadius(const PointTreeView& tree, const NodeRadiusView& radii, Vec3 p) {
    if (radii.estimates == nullptr || tree.point_count == 0) return INFINITY;
    float r = INFINITY;
    WalkPath(tree, p, [&](uint32_t node) {
        const NodeEstimate e = radii.estimates[node];
        if (e.radius < INFINITY) r = Min(r, Length(p - e.centre) + e.radius);
        if (tree.ranges[node].count >= radii.k) r = Min(r, FarthestBoxDistance(LoadBox(tree.boxes, node), p));
        return true;
    });
    return r * 1.00001f;
}

// Where the estimate of a node starts Algorithm 6 (r0). Zhou et al. 2008 start from R, which in a
// dense caustic holds thousands of points (each of the niter + 1 passes visits them all) and in a
// sparse region too few (extra doubling passes). PathRadiusBound at the node's centre holds at
// least k points and is a small multiple of the k-th distance; R where the tree has fewer points.
CA_HD inline float EstimateStartRadius(const PointTreeView& tree, uint32_t node, uint32_t k) {
    const float r = PathRadiusBound(tree, tree.boxes[node].Center(), k);
    return r < INFINITY ? r * 1.00001f : tree.radius;
}

class NodeRadii {
public:
    explicit NodeRadii(const Backend& backend);

    // Algorithm 7, PRECOMPUTERADIUS, for the k the queries will ask for (at most kMaxEstimateK),
    // with alpha, nlevel, nhist and niter from params and R from the tree. Keeps its buffers.
    void Compute(const Backend& backend, const PointTreeView& tree, const PointTreeParams& params, int k);

    NodeRadiusView View() const { return {estimates_.data(), k_}; }
    const Buffer<NodeEstimate>& estimates() const { return estimates_; }
    // How many nodes got an estimate in the last Compute.
    uint32_t estimated_nodes() const { return estimated_nodes_; }

private:
    Buffer<NodeEstimate> estimates_;
    Buffer<uint32_t> parents_;
    Buffer<uint8_t> flags_;
    Buffer<uint32_t> ids_;
    Buffer<uint32_t> selected_;
    uint32_t estimated_nodes_ = 0;
    uint32_t k_ = 0;
};

}  // namespace caustica
