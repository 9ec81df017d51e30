#include "kdtree/triangle/tree_validator.h"

#include <algorithm>
#include <cmath>
#include <mutex>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "core/error.h"
#include "kdtree/triangle/triangle_box.h"

namespace caustica {
namespace {

constexpr size_t kKeptMessages = 10;
// Boundary tolerance, relative to the root box's largest extent.
constexpr float kRelativeTolerance = 1e-5f;

class Validator {
public:
    Validator(const SahTree& tree, Span<const Triangle> triangles, const SahParams& params)
        : nodes_(tree.nodes.Download()),
          indices_(tree.indices.Download()),
          triangles_(triangles),
          params_(params),
          bounds_(tree.bounds),
          claimed_max_depth_(tree.max_depth) {
        const float extent = bounds_.Empty() ? 0.0f : MaxComponent(bounds_.Extent());
        const float magnitude = bounds_.Empty() ? 0.0f : MaxComponent(Max(Abs(bounds_.lo), Abs(bounds_.hi)));
        tolerance_ = kRelativeTolerance * extent + 1e-6f * magnitude;
    }

    TreeValidationReport Run() {
        if (nodes_.empty()) {
            Problem("the tree has no nodes (an empty input still needs a root leaf)");
            return report_;
        }
        CheckRootBox();
        leaf_box_.assign(nodes_.size(), Aabb());
        visited_.assign(nodes_.size(), 0);
        bool structure_ok = true;
        const uint32_t end = Walk(0, bounds_, 0, &structure_ok);
        if (structure_ok && end != nodes_.size())
            Problem(Concat("preorder walk ends at node ", end, " but the tree has ", nodes_.size(), " nodes"));
        if (structure_ok && deepest_ != claimed_max_depth_)
            Problem(Concat("SahTree::max_depth is ", claimed_max_depth_, " but the deepest node is at depth ", deepest_));
        if (structure_ok) CheckLeaves();
        return report_;
    }

private:
    static Vec3 Abs(Vec3 v) { return {std::fabs(v.x), std::fabs(v.y), std::fabs(v.z)}; }

    void Problem(const std::string& text) {
        std::lock_guard<std::mutex> lock(mutex_);
        report_.ok = false;
        if (report_.problem_count++ < kKeptMessages) report_.problems.push_back(text);
    }
    void Warning(const std::string& text) {
        if (report_.warning_count++ < kKeptMessages) report_.warnings.push_back(text);
    }

    void CheckRootBox() {
        Aabb all;
        for (const Triangle& t : triangles_) all.Extend(t.Bounds());
        if (all.Empty()) return;
        if (bounds_.Empty() || !bounds_.Contains(all.lo) || !bounds_.Contains(all.hi))
            Problem("the root box does not hold every triangle");
    }

    // Checks the subtree at node (box, depth) and returns the index after it in preorder.
    uint32_t Walk(uint32_t node, const Aabb& box, int depth, bool* ok) {
        if (node >= nodes_.size()) {
            Problem(Concat("node index ", node, " out of range (", nodes_.size(), " nodes)"));
            *ok = false;
            return node;
        }
        if (visited_[node]++) {
            Problem(Concat("node ", node, " is reached twice"));
            *ok = false;
            return node;
        }
        deepest_ = std::max(deepest_, depth);
        if (depth > params_.max_depth) {
            Problem(Concat("node ", node, " is at depth ", depth, " > max_depth ", params_.max_depth));
            *ok = false;
            return node + 1;
        }
        const KdNode& n = nodes_[node];
        if (n.IsLeaf()) {
            leaf_box_[node] = box;
            if (uint64_t(n.first) + n.Count() > indices_.size()) {
                Problem(Concat("leaf ", node, " names indices [", n.first, ", ", uint64_t(n.first) + n.Count(),
                               ") of ", indices_.size()));
                *ok = false;
            }
            return node + 1;
        }
        const int axis = n.Axis();
        if (!std::isfinite(n.split) || n.split < box.lo[axis] || n.split > box.hi[axis]) {
            Problem(Concat("node ", node, " splits axis ", axis, " at ", n.split, " outside its box [", box.lo[axis],
                           ", ", box.hi[axis], "]"));
            *ok = false;
            return node + 1;
        }
        const Aabb left = box.Half(axis, n.split, 0), right = box.Half(axis, n.split, 1);
        const uint32_t left_end = Walk(node + 1, left, depth + 1, ok);
        if (!*ok) return left_end;
        if (n.RightChild() != left_end) {
            Problem(Concat("node ", node, " names right child ", n.RightChild(), " but its left subtree ends at ",
                           left_end));
            *ok = false;
            return left_end;
        }
        return Walk(n.RightChild(), right, depth + 1, ok);
    }

    Aabb Shrunk(const Aabb& b) const { return Aabb(b.lo + Vec3(tolerance_), b.hi - Vec3(tolerance_)); }
    Aabb Grown(const Aabb& b) const { return Aabb(b.lo - Vec3(tolerance_), b.hi + Vec3(tolerance_)); }

    void CheckLeaves() {
        std::vector<uint8_t> placed(triangles_.size(), 0);
        sorted_indices_ = indices_;
        for (uint32_t node = 0; node < nodes_.size(); ++node) {
            const KdNode& n = nodes_[node];
            if (!n.IsLeaf()) continue;
            const auto begin = sorted_indices_.begin() + n.first, end = begin + n.Count();
            std::sort(begin, end);
            if (std::adjacent_find(begin, end) != end) Warning(Concat("leaf ", node, " names a triangle twice"));
            for (auto it = begin; it != end; ++it) {
                const uint32_t t = *it;
                if (t >= triangles_.size()) {
                    Problem(Concat("leaf ", node, " names triangle ", t, " of ", triangles_.size()));
                    continue;
                }
                if (TriangleOverlapsBox(triangles_[t], Grown(leaf_box_[node]))) placed[t] = 1;
                else Warning(Concat("leaf ", node, " names triangle ", t, " that does not touch its box"));
            }
        }
        for (size_t t = 0; t < triangles_.size(); ++t)
            if (!placed[t]) Problem(Concat("triangle ", t, " is in no leaf that it touches"));
        // Every triangle must be in each leaf whose box, shrunk by the tolerance, it overlaps:
        // found by descending the tree with each triangle.
        tbb::parallel_for(tbb::blocked_range<size_t>(0, triangles_.size(), 256), [this](const tbb::blocked_range<size_t>& r) {
            for (size_t t = r.begin(); t != r.end(); ++t) Descend(uint32_t(t), 0, bounds_);
        });
    }

    void Descend(uint32_t t, uint32_t node, const Aabb& box) {
        const KdNode& n = nodes_[node];
        if (n.IsLeaf()) {
            const Aabb inner = Shrunk(box);
            if (inner.Empty() || !TriangleOverlapsBox(triangles_[t], inner)) return;
            const uint32_t* begin = sorted_indices_.data() + n.first;
            if (!std::binary_search(begin, begin + n.Count(), t))
                Problem(Concat("triangle ", t, " overlaps leaf ", node, " but is not in it"));
            return;
        }
        const Aabb left = box.Half(n.Axis(), n.split, 0), right = box.Half(n.Axis(), n.split, 1);
        const Triangle& tri = triangles_[t];
        if (TriangleOverlapsBox(tri, Shrunk(left))) Descend(t, node + 1, left);
        if (TriangleOverlapsBox(tri, Shrunk(right))) Descend(t, n.RightChild(), right);
    }

    std::vector<KdNode> nodes_;
    std::vector<uint32_t> indices_;
    std::vector<uint32_t> sorted_indices_;  // each leaf's range sorted, for membership tests
    Span<const Triangle> triangles_;
    SahParams params_;
    Aabb bounds_;
    int claimed_max_depth_;
    float tolerance_ = 0.0f;
    int deepest_ = 0;
    std::vector<Aabb> leaf_box_;
    std::vector<uint8_t> visited_;
    std::mutex mutex_;  // Problem() is called from parallel tasks
    TreeValidationReport report_;
};

}  // namespace

std::string TreeValidationReport::Summary() const {
    if (ok && warnings.empty()) return "ok";
    std::string s = ok ? "ok with warnings" : Concat(problem_count, " problem(s)");
    for (const std::string& p : problems) s += "\n  problem: " + p;
    if (problem_count > problems.size()) s += Concat("\n  ... and ", problem_count - problems.size(), " more");
    for (const std::string& w : warnings) s += "\n  warning: " + w;
    if (warning_count > warnings.size()) s += Concat("\n  ... and ", warning_count - warnings.size(), " more warnings");
    return s;
}

TreeValidationReport ValidateTree(const SahTree& tree, Span<const Triangle> triangles, const SahParams& params) {
    return Validator(tree, triangles, params).Run();
}

}  // namespace caustica
