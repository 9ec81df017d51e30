#include "kdtree/triangle/sah_cost.h"

#include <vector>

#include "core/error.h"

namespace caustica {

double SahCost(const SahTree& tree, const SahParams& params) {
    const std::vector<KdNode> nodes = tree.nodes.Download();
    if (nodes.empty()) return 0.0;
    const double root_area = tree.bounds.SurfaceArea();
    const auto ratio = [root_area](const Aabb& box) { return root_area > 0.0 ? box.SurfaceArea() / root_area : 1.0; };
    struct Item {
        uint32_t node;
        Aabb box;
    };
    std::vector<Item> stack{{0, tree.bounds}};
    double cost = 0.0;
    while (!stack.empty()) {
        const Item item = stack.back();
        stack.pop_back();
        CA_CHECK_LT(item.node, nodes.size());
        const KdNode& n = nodes[item.node];
        if (n.IsLeaf()) {
            cost += ratio(item.box) * params.cost_intersection * double(n.Count());
            continue;
        }
        cost += ratio(item.box) * params.cost_traversal;
        Aabb left = item.box, right = item.box;
        left.hi[n.Axis()] = n.split;
        right.lo[n.Axis()] = n.split;
        CA_CHECK_MSG(n.RightChild() > item.node && n.RightChild() < nodes.size(), "node ", item.node,
                     " names right child ", n.RightChild(), " of ", nodes.size());
        stack.push_back({n.RightChild(), right});
        stack.push_back({item.node + 1, left});
    }
    return cost;
}

}  // namespace caustica
