// A structural validator for point kd-trees, for tests: preorder links, point ranges, split sides,
// tight boxes, the point list as a permutation, and the depth bound.
#pragma once

#include <string>

#include "core/span.h"
#include "core/vec.h"
#include "kdtree/point/point_tree.h"

namespace caustica {

// An empty string when tree (in any memory) is a valid tree over positions (host memory); else
// what is wrong, with the node.
std::string CheckPointTree(const PointTree& tree, Span<const Vec3> positions, int max_depth);

}  // namespace caustica
