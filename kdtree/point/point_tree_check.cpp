#include "kdtree/point/point_tree_check.h"

#include <vector>

#include "core/error.h"

namespace caustica {
namespace {

struct Checker {
    std::vector<KdNode> nodes;
    std::vector<Aabb> boxes;
    std::vector<NodeRange> ranges;
    std::vector<TreePoint> points;
    Span<const Vec3> positions;
    int deepest = 0;
    uint32_t visited = 0;

    bool SameBox(const Aabb& a, const Aabb& b) const {
        if (a.Empty() || b.Empty()) return a.Empty() == b.Empty();
        return a.lo == b.lo && a.hi == b.hi;
    }

    // Checks the subtree at node, whose points are `expected`; returns the index after it.
    std::string Visit(uint32_t node, NodeRange expected, int depth, uint32_t* next) {
        if (node >= nodes.size()) return Concat("node ", node, " out of range");
        ++visited;
        deepest = std::max(deepest, depth);
        const NodeRange r = ranges[node];
        if (r.first != expected.first || r.count != expected.count)
            return Concat("node ", node, ": range (", r.first, ", ", r.count, "), expected (", expected.first, ", ",
                          expected.count, ")");
        Aabb box;
        for (uint32_t i = r.first; i < r.first + r.count; ++i) box.Extend(points[i].position);
        if (!SameBox(box, boxes[node])) return Concat("node ", node, ": box is not the tight box of its points");
        const KdNode n = nodes[node];
        if (n.IsLeaf()) {
            if (n.first != r.first || n.Count() != r.count) return Concat("leaf ", node, ": first/count differ from range");
            *next = node + 1;
            return "";
        }
        const uint32_t right = n.RightChild();
        const int axis = n.Axis();
        if (node + 1 >= nodes.size()) return Concat("node ", node, ": missing left child");
        const NodeRange left = ranges[node + 1];
        if (left.count > r.count) return Concat("node ", node, ": left child has more points than its parent");
        for (uint32_t i = r.first; i < r.first + r.count; ++i) {
            const bool in_left = i < r.first + left.count;
            if (in_left != (points[i].position[axis] < n.split))
                return Concat("node ", node, ": point ", points[i].index, " on the wrong side of split ", n.split);
        }
        uint32_t after_left = 0;
        std::string e = Visit(node + 1, {r.first, left.count}, depth + 1, &after_left);
        if (!e.empty()) return e;
        if (after_left != right) return Concat("node ", node, ": right child ", right, " is not after the left subtree (", after_left, ")");
        return Visit(right, {r.first + left.count, r.count - left.count}, depth + 1, next);
    }
};

}  // namespace

std::string CheckPointTree(const PointTree& tree, Span<const Vec3> positions, int max_depth) {
    Checker c;
    c.nodes = tree.nodes.Download();
    c.boxes = tree.boxes.Download();
    c.ranges = tree.ranges.Download();
    c.points = tree.points.Download();
    c.positions = positions;
    if (c.nodes.empty()) return "no nodes";
    if (c.boxes.size() != c.nodes.size() || c.ranges.size() != c.nodes.size()) return "node arrays differ in size";
    if (c.points.size() != positions.size()) return Concat("point list has ", c.points.size(), " entries for ", positions.size(), " points");
    std::vector<uint8_t> seen(positions.size(), 0);
    for (const TreePoint& p : c.points) {
        if (p.index >= positions.size() || seen[p.index]) return Concat("point list is not a permutation (", p.index, ")");
        seen[p.index] = 1;
        if (!(p.position == positions[p.index])) return Concat("point ", p.index, " has a wrong position");
    }
    uint32_t end = 0;
    std::string e = c.Visit(0, {0, uint32_t(positions.size())}, 0, &end);
    if (!e.empty()) return e;
    if (end != c.nodes.size() || c.visited != c.nodes.size())
        return Concat("preorder covers ", c.visited, " of ", c.nodes.size(), " nodes");
    if (c.deepest > max_depth) return Concat("depth ", c.deepest, " exceeds ", max_depth);
    if (c.deepest != tree.max_depth) return Concat("max_depth ", tree.max_depth, " but the deepest node is at ", c.deepest);
    if (!c.SameBox(tree.bounds, c.boxes[0])) return "bounds differ from the root box";
    return "";
}

}  // namespace caustica
