// A triangle kd-tree in preorder, as every builder (the BFS builder on either backend, the exact
// CPU reference) produces it and as traversal reads it. The triangles themselves stay with the
// caller; the tree holds indices into them.
#pragma once

#include <cstdint>

#include "core/buffer.h"
#include "core/vec.h"
#include "kdtree/kd_node.h"

namespace caustica {

// What traversal needs, by value, for host or device code.
struct SahTreeView {
    const KdNode* nodes = nullptr;
    const uint32_t* indices = nullptr;  // triangle indices, leaves name ranges of it
    uint32_t node_count = 0;
    Aabb bounds;                        // the root's box
    int max_depth = 0;                  // the deepest node; traversal stacks hold max_depth + 1
};

struct SahTree {
    Buffer<KdNode> nodes;
    Buffer<uint32_t> indices;
    Aabb bounds;
    int max_depth = 0;

    SahTree() = default;
    explicit SahTree(MemorySpace space) : nodes(space), indices(space) {}
    explicit SahTree(const Backend& backend) : nodes(backend), indices(backend) {}

    SahTreeView View() const { return {nodes.data(), indices.data(), uint32_t(nodes.size()), bounds, max_depth}; }
};

}  // namespace caustica
