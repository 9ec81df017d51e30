// The point tree builder's node record (kdtree/point/point_tree_builder.cpp) and the few helpers its
// stages share: the large-node levels over the whole set, the medium subtrees that a GPU block
// builds in shared memory (kdtree/point/point_medium_subtree.h) and the small subtrees (kdtree/
// point_small_subtree.h). Device code for launch units only.
#pragma once

#include <cstdint>

#include "core/bits.h"
#include "core/hd.h"
#include "core/select_at.h"
#include "core/vec.h"

namespace caustica {
namespace point_build {

constexpr uint32_t kNone = 0xffffffffu;

// kHole: the unused pair of child slots of a large node that became a leaf (every active node
// gets two slots, so that a child's index needs no scan). A medium root's subtree is built by one
// block (kdtree/point/point_medium_subtree.h), a small root's by one warp (the VVH of Zhou et al. 2008,
// section 5.1).
enum NodeKind : uint32_t { kInterior = 0, kLeaf = 1, kSmallRoot = 2, kLarge = 3, kHole = 4, kMediumRoot = 5 };

// A node while the tree is built, in breadth-first order (Zhou's nodelist). Nodes are written
// whole; aligned to 16 bytes, a node is four vector stores instead of sixteen scalar ones (a
// block's scattered scalar stores made the children pass take 21 us for 256 nodes on an H100).
struct alignas(16) BuildNode {
    uint32_t begin, count;  // its points in the sorted lists
    Aabb box;               // tight box of its points
    float split;
    uint32_t axis;
    uint32_t kind;
    uint32_t left;          // breadth-first index of the left child; the right child follows it
    uint32_t depth;
    uint32_t size;          // nodes in its preorder subtree
    uint32_t deepest;       // the deepest node in its subtree
    uint32_t address;       // preorder index
};

// Which of the sorted point lists serves each axis. An axis on which all points lie at one place
// (points on a plane) needs no list of its own: any order of a node's points is sorted by it, and
// no split takes it (its cells are flat, so the empty-space cut skips it; a median takes a longest
// axis; the VVH a coordinate with points below it). It reads list 0, and the passes split `count`
// lists, the other axes' in axis order (one list when all points are at one place). List 0 is the
// x list unless x is flat: the order of the leaves' points and of a medium root's local points.
struct AxisLists {
    uint32_t count;
    uint32_t of[3];
    CA_HD uint32_t Of(int a) const { return SelectAt(of, a); }  // a known only at run time
};

// The points as three arrays of coordinates, coordinate a of point i at c[a * n + i]: a gather of
// one coordinate reads 4 bytes, and the n coordinates of an axis stay in L2 where the points (12
// bytes each) do not.
struct PointCoords {
    const float* c;
    uint32_t n;
    CA_HD float Coord(int a, uint32_t i) const { return c[uint32_t(a) * n + i]; }
    CA_HD Vec3 Position(uint32_t i) const { return Vec3(Coord(0, i), Coord(1, i), Coord(2, i)); }
};

// Zhou et al. 2008, Algorithm 5, for one node of nodes (breadth-first, or a medium root's store):
// UPPASS, its subtree's size and deepest node from its children's (a leaf: itself; a small or a
// medium root keeps what its own pass found), and DOWNPASS, its children's preorder addresses
// from its own.
CA_HD inline void SizeSubtree(BuildNode* nodes, uint32_t i) {
    BuildNode& node = nodes[i];
    if (node.kind == kInterior) {
        const BuildNode& left = nodes[node.left];
        const BuildNode& right = nodes[node.left + 1];
        node.size = 1 + left.size + right.size;
        node.deepest = left.deepest > right.deepest ? left.deepest : right.deepest;
    } else if (node.kind == kLeaf) {
        node.size = 1;
        node.deepest = node.depth;
    }
}

CA_HD inline void AddressChildren(BuildNode* nodes, uint32_t i) {
    const BuildNode& node = nodes[i];
    if (node.kind != kInterior) return;
    nodes[node.left].address = node.address + 1;
    nodes[node.left + 1].address = node.address + 1 + nodes[node.left].size;
}

// A child of count points: empty (a leaf), at most small_max (a small root), at most medium_max (a
// medium root, where the stage has them) or a large node that the stage splits further.
CA_HD inline uint32_t ChildKind(uint32_t count, uint32_t small_max, uint32_t medium_max) {
    if (count == 0) return kLeaf;
    if (count <= small_max) return kSmallRoot;
    return count <= medium_max ? kMediumRoot : kLarge;
}

}  // namespace point_build
}  // namespace caustica
