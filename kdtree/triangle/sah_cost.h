// The surface area heuristic cost of a finished tree, computed the same way for every builder so
// that their trees can be compared: the sum over all nodes of area(node) / area(root) times
// cost_traversal for an interior node and cost_intersection * (its triangle count) for a leaf.
// Node boxes are the root's bounds cut by the split planes. When the root box has no area (all
// triangles on a line or in a point) every ratio is taken as 1.
#pragma once

#include "kdtree/triangle/sah_params.h"
#include "kdtree/triangle/sah_tree.h"

namespace caustica {

// The tree may live in either memory (device trees are copied to the host first).
double SahCost(const SahTree& tree, const SahParams& params);

}  // namespace caustica
