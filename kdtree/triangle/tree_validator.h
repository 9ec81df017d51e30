// Checks that a triangle kd-tree from any builder is well formed and complete:
// - indices in range: right children, leaf ranges, triangle indices;
// - preorder: each interior node's left child is the next node and its right child follows the
//   whole left subtree; every node is reached exactly once;
// - nesting: each split lies inside its node's box (so child boxes nest in the parent), and the
//   root box holds every triangle;
// - completeness: every triangle that overlaps a leaf's box (separating axis test) is in that
//   leaf, except triangles that only touch the box within a tiny tolerance of its boundary (the
//   builders send a triangle lying in or ending on a split plane to one side only), and every
//   triangle is in at least one leaf that it touches;
// - depth: no node deeper than SahParams::max_depth, and SahTree::max_depth is the deepest node.
// Leaves that reference a triangle that does not touch their box are warnings (they cost time,
// not correctness).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/span.h"
#include "kdtree/triangle/sah_params.h"
#include "kdtree/triangle/sah_tree.h"
#include "kdtree/triangle/triangle.h"

namespace caustica {

struct TreeValidationReport {
    bool ok = true;
    size_t problem_count = 0;
    size_t warning_count = 0;
    std::vector<std::string> problems;  // the first few, as text
    std::vector<std::string> warnings;  // the first few, as text
    // Every kept problem and warning on its own line, or "ok".
    std::string Summary() const;
};

// triangles: host memory. The tree may live in either memory (a device tree is copied first).
TreeValidationReport ValidateTree(const SahTree& tree, Span<const Triangle> triangles, const SahParams& params);

}  // namespace caustica
