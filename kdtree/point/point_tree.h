// The point kd-tree of Zhou et al. 2008, section 5.1 (VVH cost, large/small node stages), in
// preorder as both backends build it and as the queries read it. The caller's points stay with
// the caller; the tree keeps a copy of their positions in leaf order, each with its point index.
#pragma once

#include <cstdint>

#include "core/buffer.h"
#include "core/vec.h"
#include "kdtree/kd_node.h"

namespace caustica {

// Query stacks and the small-node stage are sized from this bound on the tree depth.
constexpr int kMaxPointTreeDepth = 64;
// The histogram of Algorithm 6 has at most this many bins (its shared-memory layout on the GPU).
constexpr int kMaxHistogramBins = 32;
// What one GPU block's shared memory holds of a medium node (PointTreeParams::medium_node_threshold):
// at most this many points, and at most this many large nodes in a level of its subtree.
constexpr int kMaxMediumNodePoints = 2048;
constexpr int kMaxMediumLevelNodes = 64;

// The largest medium_node_threshold for a small_node_threshold: a level's large nodes each have
// more than small_node_threshold points.
constexpr int MaxMediumNodeThreshold(int small_node_threshold) {
    return kMaxMediumLevelNodes * (small_node_threshold + 1) < kMaxMediumNodePoints
               ? kMaxMediumLevelNodes * (small_node_threshold + 1)
               : kMaxMediumNodePoints;
}

// The build and query parameters, with the papers' values as defaults.
struct PointTreeParams {
    // Empty space is cut off a side of a large node when it exceeds this fraction of the node's
    // cell on that axis (Zhou et al. 2008, section 5.1: Ce = 10% for photon trees).
    float empty_space_ratio = 0.10f;
    // A large node's spatial-median split that leaves fewer than this fraction of its points on
    // one side is moved to the point median of the same axis (O(1) from the sorted list), which
    // keeps the number of large-node levels near log2(n / T) on clustered sets. 0: the spatial
    // median always, as Zhou et al. 2008.
    float min_split_fraction = 0.25f;
    // Nodes with at most this many points go to the small-node stage, which evaluates the exact
    // VVH cost (Zhou et al. 2008, section 5.1: T = 32; the bit masks are 32 bits wide).
    int small_node_threshold = 32;
    // Nodes of at most this many points are built whole, each by one GPU block in its shared memory
    // (kdtree/point/point_medium_subtree.h), where the nodes above them are split level by level over
    // the whole set: the same tree, with fewer launches and host waits. 0: the most a block holds,
    // MaxMediumNodeThreshold(small_node_threshold); small_node_threshold: every node above the small
    // ones is split level by level.
    int medium_node_threshold = 0;
    // R, the expected KNN query radius: the VVH extends node cells by it, and node-radius
    // estimates start from it (Zhou et al. 2008, section 5.1 and Appendix A). 0 derives it per
    // build from the minimal meaningful density: the radius that holds expected_k points if all
    // points were spread evenly over the root box's largest face, or through its volume, whichever
    // radius is larger.
    float radius = 0.0f;
    // The k the tree is built for (used by the derived R and by node-radius estimates).
    int expected_k = 50;
    // VVH cost of traversing a node; visiting one point costs 1. 4, not 1: leaves of a few more
    // points and half the nodes made the exact KNN 12-17% faster in coherent order on an H100
    // (1M plane and clustered sets, random order within 2%), and Algorithm 6 slower (it reads
    // whole leaves three times); docs/benchmarks-history.md, run 20.
    float cost_traversal = 4.0f;
    // Nodes at this depth become leaves (at most kMaxPointTreeDepth - 1).
    int max_depth = 48;
    // Algorithm 6: histogram bins (nhist) and shrinking iterations (niter).
    int histogram_bins = 32;
    int iterations = 2;
    // Appendix A: nodes with radius under alpha * R get radius estimates, nlevel levels of them.
    float node_radius_ratio = 0.5f;
    int node_radius_levels = 3;
};

// A node's points: a range of the tree's point list (interior nodes too: leaves are in preorder).
struct NodeRange {
    uint32_t first = 0;
    uint32_t count = 0;
};

// One entry of the point list: a point's position and its index in the caller's array.
struct alignas(16) TreePoint {
    Vec3 position;
    uint32_t index;
};
static_assert(sizeof(TreePoint) == 16, "TreePoint is one 16-byte load");

// What queries need, by value, for host or device code.
struct PointTreeView {
    const KdNode* nodes = nullptr;
    const Aabb* boxes = nullptr;        // tight box of each node's points (empty for no points)
    const NodeRange* ranges = nullptr;  // each node's points in `points`
    const TreePoint* points = nullptr;  // leaf order
    uint32_t node_count = 0;
    uint32_t point_count = 0;
    Aabb bounds;                        // the root's box
    int max_depth = 0;                  // the deepest node
    float radius = 0.0f;                // the R the tree was built with
};

struct PointTree {
    Buffer<KdNode> nodes;
    Buffer<Aabb> boxes;
    Buffer<NodeRange> ranges;
    Buffer<TreePoint> points;
    Aabb bounds;
    int max_depth = 0;
    float radius = 0.0f;

    PointTree() = default;
    explicit PointTree(const Backend& backend) : nodes(backend), boxes(backend), ranges(backend), points(backend) {}

    PointTreeView View() const {
        return {nodes.data(), boxes.data(), ranges.data(), points.data(), uint32_t(nodes.size()),
                uint32_t(points.size()), bounds, max_depth, radius};
    }
};

}  // namespace caustica
