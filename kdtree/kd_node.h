// The node format shared by both kd-trees (triangles and points), stored in preorder (Zhou et al.
// 2008, section 3.3): an interior node's left child is the next node, its right child is named by
// index; a leaf names a range of the tree's index list. Eight bytes a node.
#pragma once

#include <cstdint>

#include "core/hd.h"

namespace caustica {

struct KdNode {
    static constexpr uint32_t kLeaf = 3;  // the axis value that marks a leaf

    // Interior: the split position. Leaf: the first index in the tree's index list.
    union {
        float split;
        uint32_t first;
    };
    // Bits 0-1: axis (0, 1, 2) or kLeaf. Bits 2-31: right child (interior) or item count (leaf).
    uint32_t bits;

    CA_HD static KdNode Interior(int axis, float split, uint32_t right_child) {
        KdNode n;
        n.split = split;
        n.bits = uint32_t(axis) | (right_child << 2);
        return n;
    }
    CA_HD static KdNode Leaf(uint32_t first, uint32_t count) {
        KdNode n;
        n.first = first;
        n.bits = kLeaf | (count << 2);
        return n;
    }
    CA_HD bool IsLeaf() const { return (bits & 3u) == kLeaf; }
    CA_HD int Axis() const { return int(bits & 3u); }
    CA_HD uint32_t RightChild() const { return bits >> 2; }
    CA_HD uint32_t Count() const { return bits >> 2; }
};
static_assert(sizeof(KdNode) == 8, "KdNode must stay 8 bytes");

// A node read by traversal: on the GPU one 8-byte load through the read-only cache, where reading
// the struct takes two.
CA_HD CA_INLINE KdNode LoadNode(const KdNode* nodes, uint32_t i) {
#if CA_DEVICE_CODE
    const uint2 v = __ldg(reinterpret_cast<const uint2*>(nodes) + i);
    KdNode n;
    n.first = v.x;
    n.bits = v.y;
    return n;
#else
    return nodes[i];
#endif
}

}  // namespace caustica
