#include "kdtree/triangle/exact_sah_builder.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include <tbb/parallel_sort.h>
#include <tbb/task_group.h>

#include "core/error.h"
#include "kdtree/triangle/triangle_box.h"

namespace caustica {
namespace {

// Event types in the order the sweep needs them at one position (Wald and Havran 2006).
enum : uint8_t { kEnd = 0, kPlanar = 1, kStart = 2 };

// A split candidate: where a triangle's clipped box starts, ends or lies flat on one axis. tri is
// the triangle's position in its node's triangle list.
struct Event {
    float pos;
    uint32_t tri;
    uint8_t axis;
    uint8_t type;
};

// Sorted by axis, then position, then type: each axis is one contiguous sweep.
struct EventOrder {
    bool operator()(const Event& a, const Event& b) const {
        if (a.axis != b.axis) return a.axis < b.axis;
        if (a.pos != b.pos) return a.pos < b.pos;
        return a.type < b.type;
    }
};
constexpr EventOrder EventBefore{};

void AddEvents(const Aabb& b, uint32_t tri, std::vector<Event>& out) {
    for (uint8_t axis = 0; axis < 3; ++axis) {
        if (b.lo[axis] == b.hi[axis]) {
            out.push_back({b.lo[axis], tri, axis, kPlanar});
        } else {
            out.push_back({b.lo[axis], tri, axis, kStart});
            out.push_back({b.hi[axis], tri, axis, kEnd});
        }
    }
}

struct BuildNode {
    int axis = -1;  // -1: leaf
    float split = 0.0f;
    std::unique_ptr<BuildNode> left, right;
    std::vector<uint32_t> triangles;  // a leaf's triangle indices, ascending
};

// One node's triangles (global indices, ascending) and their events (sorted by EventBefore).
struct NodeWork {
    Aabb box;
    std::vector<uint32_t> triangles;
    std::vector<Event> events;
};

struct SplitChoice {
    double cost = INFINITY;
    int axis = -1;
    float pos = 0.0f;
    bool planar_left = false;
};

enum : uint8_t { kBoth = 0, kLeftOnly = 1, kRightOnly = 2 };

// Subtrees with at least this many triangles are built as parallel tasks.
constexpr size_t kParallelTriangles = 2048;

class Builder {
public:
    Builder(Span<const Triangle> triangles, const SahParams& params) : triangles_(triangles), params_(params) {}

    void Build(BuildNode* node, NodeWork work, int depth) const {
        const size_t n = work.triangles.size();
        const double leaf_cost = double(params_.cost_intersection) * double(n);
        SplitChoice best;
        if (n > 0 && depth < params_.max_depth && work.box.SurfaceArea() > 0.0f) best = FindSplit(work);
        if (!(best.cost < leaf_cost)) {
            node->triangles = std::move(work.triangles);
            return;
        }
        node->axis = best.axis;
        node->split = best.pos;
        NodeWork left, right;
        Split(std::move(work), best, &left, &right);
        node->left = std::make_unique<BuildNode>();
        node->right = std::make_unique<BuildNode>();
        if (n >= kParallelTriangles) {
            tbb::task_group group;
            BuildNode* l = node->left.get();
            group.run([this, l, &left, depth] { Build(l, std::move(left), depth + 1); });
            Build(node->right.get(), std::move(right), depth + 1);
            group.wait();
        } else {
            Build(node->left.get(), std::move(left), depth + 1);
            Build(node->right.get(), std::move(right), depth + 1);
        }
    }

private:
    // The cheaper way to put the planar triangles, for a plane at pos on axis.
    void Evaluate(const Aabb& box, double inv_area, int axis, float pos, size_t nl, size_t np, size_t nr,
                  SplitChoice* best) const {
        Aabb lbox = box, rbox = box;
        lbox.hi[axis] = pos;
        rbox.lo[axis] = pos;
        const double pl = double(lbox.SurfaceArea()) * inv_area, pr = double(rbox.SurfaceArea()) * inv_area;
        const double ct = params_.cost_traversal, ci = params_.cost_intersection;
        const double cost_left = ct + ci * (pl * double(nl + np) + pr * double(nr));
        const double cost_right = ct + ci * (pl * double(nl) + pr * double(nr + np));
        const bool planar_left = cost_left <= cost_right;
        const double cost = planar_left ? cost_left : cost_right;
        if (cost < best->cost) *best = {cost, axis, pos, planar_left};
    }

    // The plane sweep of Wald and Havran 2006 over all three axes: at each position, triangles
    // ending there leave the right side before the plane is evaluated, and triangles starting
    // there join the left side after it.
    SplitChoice FindSplit(const NodeWork& work) const {
        const size_t n = work.triangles.size();
        const double inv_area = 1.0 / double(work.box.SurfaceArea());
        const std::vector<Event>& e = work.events;
        SplitChoice best;
        size_t i = 0;
        while (i < e.size()) {
            const int axis = e[i].axis;
            size_t nl = 0, nr = n;
            while (i < e.size() && e[i].axis == axis) {
                const float pos = e[i].pos;
                size_t ends = 0, planars = 0, starts = 0;
                while (i < e.size() && e[i].axis == axis && e[i].pos == pos && e[i].type == kEnd) ++ends, ++i;
                while (i < e.size() && e[i].axis == axis && e[i].pos == pos && e[i].type == kPlanar) ++planars, ++i;
                while (i < e.size() && e[i].axis == axis && e[i].pos == pos && e[i].type == kStart) ++starts, ++i;
                nr -= planars + ends;
                Evaluate(work.box, inv_area, axis, pos, nl, planars, nr, &best);
                nl += starts + planars;
            }
        }
        return best;
    }

    // Classifies the triangles against the chosen plane and builds both children's sorted event
    // lists: the events of one-sided triangles keep their order; straddling triangles are clipped
    // to each child, and their new events are sorted and merged in (Wald and Havran 2006).
    void Split(NodeWork work, const SplitChoice& s, NodeWork* left, NodeWork* right) const {
        const size_t n = work.triangles.size();
        std::vector<uint8_t> side(n, kBoth);
        for (const Event& ev : work.events) {
            if (ev.axis != s.axis) continue;
            if (ev.type == kEnd && ev.pos <= s.pos) side[ev.tri] = kLeftOnly;
            else if (ev.type == kStart && ev.pos >= s.pos) side[ev.tri] = kRightOnly;
            else if (ev.type == kPlanar) {
                if (ev.pos < s.pos || (ev.pos == s.pos && s.planar_left)) side[ev.tri] = kLeftOnly;
                else side[ev.tri] = kRightOnly;
            }
        }
        left->box = work.box;
        right->box = work.box;
        left->box.hi[s.axis] = s.pos;
        right->box.lo[s.axis] = s.pos;
        // Positions of each triangle in the children's lists.
        std::vector<uint32_t> left_pos(n, UINT32_MAX), right_pos(n, UINT32_MAX);
        for (size_t t = 0; t < n; ++t) {
            if (side[t] != kRightOnly) {
                left_pos[t] = uint32_t(left->triangles.size());
                left->triangles.push_back(work.triangles[t]);
            }
            if (side[t] != kLeftOnly) {
                right_pos[t] = uint32_t(right->triangles.size());
                right->triangles.push_back(work.triangles[t]);
            }
        }
        size_t left_count = 0, right_count = 0;
        for (const Event& ev : work.events) {
            left_count += side[ev.tri] == kLeftOnly;
            right_count += side[ev.tri] == kRightOnly;
        }
        std::vector<Event> left_only, right_only, left_new, right_new;
        left_only.reserve(left_count);
        right_only.reserve(right_count);
        for (const Event& ev : work.events) {
            if (side[ev.tri] == kLeftOnly) left_only.push_back({ev.pos, left_pos[ev.tri], ev.axis, ev.type});
            else if (side[ev.tri] == kRightOnly) right_only.push_back({ev.pos, right_pos[ev.tri], ev.axis, ev.type});
        }
        work.events.clear();
        work.events.shrink_to_fit();
        for (size_t t = 0; t < n; ++t) {
            if (side[t] != kBoth) continue;
            const Triangle& tri = triangles_[work.triangles[t]];
            AddEvents(ClipOrFallBack(tri, left->box), left_pos[t], left_new);
            AddEvents(ClipOrFallBack(tri, right->box), right_pos[t], right_new);
        }
        std::sort(left_new.begin(), left_new.end(), EventBefore);
        std::sort(right_new.begin(), right_new.end(), EventBefore);
        left->events.resize(left_only.size() + left_new.size());
        std::merge(left_only.begin(), left_only.end(), left_new.begin(), left_new.end(), left->events.begin(),
                   EventBefore);
        right->events.resize(right_only.size() + right_new.size());
        std::merge(right_only.begin(), right_only.end(), right_new.begin(), right_new.end(), right->events.begin(),
                   EventBefore);
    }

    // A straddling triangle meets both children in exact arithmetic; if rounding loses the sliver,
    // keep the (larger, still correct) box of its bounds inside the child.
    static Aabb ClipOrFallBack(const Triangle& tri, const Aabb& box) {
        const Aabb clipped = ClippedTriangleBounds(tri, box);
        if (!clipped.Empty()) return clipped;
        const Aabb cut = tri.Bounds().Intersect(box);
        return cut.Empty() ? Aabb(box.Center(), box.Center()) : cut;
    }

    Span<const Triangle> triangles_;
    SahParams params_;
};

// Writes the subtree in preorder (left child next, right child by index).
void Flatten(const BuildNode& node, int depth, std::vector<KdNode>& nodes, std::vector<uint32_t>& indices,
             int* max_depth) {
    *max_depth = std::max(*max_depth, depth);
    if (node.axis < 0) {
        CA_CHECK_LT(node.triangles.size(), size_t(1) << 30);
        nodes.push_back(KdNode::Leaf(uint32_t(indices.size()), uint32_t(node.triangles.size())));
        indices.insert(indices.end(), node.triangles.begin(), node.triangles.end());
        return;
    }
    const size_t self = nodes.size();
    nodes.push_back(KdNode());
    Flatten(*node.left, depth + 1, nodes, indices, max_depth);
    CA_CHECK_LT(nodes.size(), size_t(1) << 30);
    nodes[self] = KdNode::Interior(node.axis, node.split, uint32_t(nodes.size()));
    Flatten(*node.right, depth + 1, nodes, indices, max_depth);
}

}  // namespace

void BuildExactSahTree(Span<const Triangle> triangles, const SahParams& params, SahTree& out) {
    CA_CHECK_MSG(out.nodes.space() == MemorySpace::Host && out.indices.space() == MemorySpace::Host,
                 "the exact builder writes trees in host memory");
    CA_CHECK_LT(triangles.size(), size_t(1) << 30);
    NodeWork root;
    root.triangles.resize(triangles.size());
    root.events.reserve(triangles.size() * 6);
    for (size_t i = 0; i < triangles.size(); ++i) {
        const Aabb b = triangles[i].Bounds();
        CA_CHECK_MSG(std::isfinite(b.lo.x) && std::isfinite(b.lo.y) && std::isfinite(b.lo.z) && std::isfinite(b.hi.x) &&
                         std::isfinite(b.hi.y) && std::isfinite(b.hi.z),
                     "triangle ", i, " has a non-finite vertex");
        root.box.Extend(b);
        root.triangles[i] = uint32_t(i);
        AddEvents(b, uint32_t(i), root.events);
    }
    tbb::parallel_sort(root.events.begin(), root.events.end(), EventBefore);
    const Aabb bounds = root.box;

    BuildNode tree;
    Builder(triangles, params).Build(&tree, std::move(root), 0);

    std::vector<KdNode> nodes;
    std::vector<uint32_t> indices;
    int max_depth = 0;
    Flatten(tree, 0, nodes, indices, &max_depth);
    out.nodes.Upload(Span<const KdNode>(nodes));
    out.indices.Upload(Span<const uint32_t>(indices));
    out.bounds = bounds;
    out.max_depth = max_depth;
}

}  // namespace caustica
