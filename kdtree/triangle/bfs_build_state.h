// Internal to the BFS builder (kdtree/triangle/bfs_builder.cpp and its passes: bfs_*_passes.h,
// bfs_large_run.h, bfs_chunk_passes.cpp, bfs_small_split.cpp): the structure-of-arrays work lists as
// views for host or device code, and the per-item rules that both backends share.
#pragma once

#include <cstdint>
#include <cstring>

#include "core/atomic.h"
#include "core/bits.h"
#include "core/float_key.h"
#include "core/hd.h"
#include "core/select_at.h"
#include "core/vec.h"
#include "kdtree/triangle/triangle.h"
#include "kdtree/triangle/triangle_clip.h"

namespace caustica::bfs {

// What a build record is. Records are the tree's nodes as the BFS levels create them (Zhou et al.
// 2008, Algorithm 1's nodelist); the output stage turns them into the preorder node array.
enum RecordKind : uint32_t {
    kSplitX = 0, kSplitY = 1, kSplitZ = 2,  // interior: a split on that axis
    kMaskLeaf = 3,    // small-stage leaf: left = its small root's first store entry, mask = its triangles
    kStoreLeaf = 4,   // large-stage leaf: left = first item in the leaf store, right = count
    kUndecided = 5,   // created, not yet processed by its level
};

// A triangle with its box clipped to the node that holds it, for each entry of a work list.
// box[0..2] = lo.xyz, box[3..5] = hi.xyz.
struct EntriesView {
    uint32_t* tri;
    float* box[6];

    // Bound k of entry i's box (k as box's).
    CA_HD float Bound(int k, uint32_t i) const { return SelectAt(box, k)[i]; }

    CA_HD Aabb Box(uint32_t i) const {
        return Aabb(Vec3(box[0][i], box[1][i], box[2][i]), Vec3(box[3][i], box[4][i], box[5][i]));
    }
    CA_HD void Set(uint32_t i, uint32_t triangle, const Aabb& b) const {
        tri[i] = triangle;
        for (int a = 0; a < 3; ++a) {
            box[a][i] = b.lo[a];
            box[3 + a][i] = b.hi[a];
        }
    }
};

// A box per item as six float columns (lo x, y, z, hi x, y, z), shared by the node lists. For the
// active large nodes: the node's cell, after the split pass with empty space cut off.
struct RegionColumns {
    float* region[6];

    CA_HD Aabb Region(uint32_t i) const {
        return Aabb(Vec3(region[0][i], region[1][i], region[2][i]), Vec3(region[3][i], region[4][i], region[5][i]));
    }
    CA_HD void SetRegion(uint32_t i, const Aabb& b) const {
        for (int a = 0; a < 3; ++a) {
            region[a][i] = b.lo[a];
            region[3 + a][i] = b.hi[a];
        }
    }
};

// The active nodes of one large-node level.
struct LargeNodesView : RegionColumns {
    uint32_t* record;       // the record this node fills
    uint32_t* begin;        // its first entry in the current list
    uint32_t* count;        // its entries
    int32_t* depth;
    uint32_t* useless_run;  // useless splits in a row above this node (bfs_large_passes.h, UselessSplit)
    uint32_t* key[6];       // the tight box of its entries as order-preserving keys (atomic min/max)
    uint32_t* chunk_count;  // ceil(count / chunk size)
    uint32_t* chunk_first;  // exclusive scan of chunk_count
    uint32_t* count_scan;   // exclusive scan of count
    int32_t* split_axis;    // after the split pass: 0..2, or -1 for a leaf
    int32_t* planar_side;   // where triangles lying in the split plane go (ClassifyExtent)
    float* split_pos;

    // The cell of node i's child on 'side' (0: below the split plane) once the split pass has split it.
    CA_HD Aabb ChildCell(uint32_t i, int side) const { return Region(i).Half(split_axis[i], split_pos[i], side); }
};

// The tree as the levels build it, one item per record: 16 bytes while the levels run (a record
// is a node of the final tree, or a chain of them), and 12 more in the stage area for the output
// stage.
struct RecordsView {
    // The record's kind (RecordKind, bits 0-2), depth (bits 3-10: SahParams bounds it by 255) and
    // the empty-space cuts made before its split (Zhou et al. 2008, section 3.1; bits 11-31): bits
    // 0-2 of the chain the number k, then per cut 3 bits: axis (2) and which side is empty (1: the
    // upper side), with positions in cuts[6 * record + i]. The up pass replaces the depth by the
    // subtree's height.
    uint32_t* head;
    uint32_t* split;  // interior: the split position (FloatKey); mask leaf: its mask's high half
    uint32_t* left;   // child record (interior), first root-store entry (mask leaf), leaf-store offset (store leaf)
    uint32_t* right;  // child record (interior), count (store leaf), mask's low half (mask leaf)
    float* cuts;
    // Output stage (Zhou et al. 2008, Algorithm 5), in the stage area. A record's items are read
    // last by its parent, before the parent's down pass gives it its offset: they share a column.
    uint32_t* size;     // nodes in the subtree
    uint32_t* items;    // index-list items in the subtree
    uint32_t* offset;   // the subtree's first index-list item (items' column)
    uint32_t* address;  // the subtree's first node

    CA_HD uint32_t Kind(uint32_t r) const { return head[r] & 7u; }
    CA_HD uint32_t Depth(uint32_t r) const { return head[r] >> 3 & 0xffu; }
    CA_HD uint32_t Chain(uint32_t r) const { return head[r] >> 11; }
    CA_HD void SetHead(uint32_t r, uint32_t kind, uint32_t depth, uint32_t chain) const {
        head[r] = kind | depth << 3 | chain << 11;
    }
    CA_HD float Split(uint32_t r) const { return KeyFloat(split[r]); }
    CA_HD void SetSplit(uint32_t r, float p) const { split[r] = FloatKey(p); }
    // A mask leaf's triangles (bits of its small root's entries), in the right and split columns,
    // which a leaf has no other use for.
    CA_HD void SetLeafMask(uint32_t r, uint64_t mask) const {
        right[r] = uint32_t(mask);
        split[r] = uint32_t(mask >> 32);
    }
    CA_HD uint64_t LeafMask(uint32_t r) const { return uint64_t(right[r]) | uint64_t(split[r]) << 32; }
};

// Small roots (Zhou et al. 2008, section 3.2): each keeps its triangles sorted by index in the root
// store. The small-node stage takes the roots in batches; for one batch at a time (its entries
// from batch_first on) it holds each entry's root and box (the triangle clipped to the root's
// cell: RootEntryBox) and the left/right masks of its split candidates.
struct SmallRootsView {
    uint32_t* first;  // first entry in the root store
    uint32_t* count;
    uint32_t* source;  // while the large-node stage runs: its first entry in the list it came from
    uint32_t* tri;     // the root store: each entry's triangle
    uint32_t batch_first;
    uint32_t* batch_root;  // the batch's entries' roots
    float* batch_box[6];   // the batch's entries' boxes
    // Candidate c = 6 * entry + 2 * axis + side (side 0: the box's lower face, 1: upper face).
    uint64_t* cand_left;
    uint64_t* cand_right;
    CA_HD uint32_t& EntryRoot(uint32_t e) const { return batch_root[e - batch_first]; }
    // Bound k of entry e's box: k = 0..2 the lower corner's x, y, z, 3..5 the upper corner's.
    CA_HD float& BoxBound(int k, uint32_t e) const { return SelectAt(batch_box, k)[e - batch_first]; }
    CA_HD Aabb Box(uint32_t e) const {
        return Aabb(Vec3(BoxBound(0, e), BoxBound(1, e), BoxBound(2, e)),
                    Vec3(BoxBound(3, e), BoxBound(4, e), BoxBound(5, e)));
    }
    CA_HD uint64_t& CandLeft(uint32_t c) const { return cand_left[c - 6 * batch_first]; }
    CA_HD uint64_t& CandRight(uint32_t c) const { return cand_right[c - 6 * batch_first]; }
};

struct SmallNodesView : RegionColumns {
    uint32_t* record;
    uint32_t* first;  // its small root's first entry in the root store
    uint64_t* mask;
    int32_t* depth;
    uint32_t* split;  // 1 when the node was split
    uint32_t* split_scan;
};

// The most levels a run of levels in one block (large or small) records the ends of: a level is at
// least one deeper than the one before.
constexpr uint32_t kMaxRunLevels = 256;

// Up to SahParams::children_in_one_block_max items (child slots of a large level, nodes of a small
// one), the passes of a level that follow its split decisions run in one block, one after another
// behind the block's barriers, where each would be a launch of its own: a level of a small scene is
// a few hundred nodes, and the launches, not the work, are its time.
constexpr uint32_t kLevelBlockThreads = 1024;

// Sizes the host reads back once per level.
struct LevelTotals {
    uint32_t next_nodes;        // large: next active nodes; small: next small nodes
    uint32_t new_small_roots;
    uint32_t new_small_entries;
    uint32_t next_entries;      // entries of the next active nodes
    uint32_t leaf_store_size;   // items in the large-leaf store (grown by atomic adds)
    uint32_t large_leaves;      // leaves made by the large-node stage (atomic adds)
    uint32_t empty_space_cuts;  // cuts of empty space, each with an empty leaf (atomic adds)
    uint32_t tree_nodes;        // output stage: the final tree's nodes, index-list items and depth
    uint32_t tree_items;
    int32_t tree_depth;
    float root_box[6];
};

// Key identities for min/max reductions of boxes (Chang et al. 2013, section 13.2.2).
constexpr uint32_t kKeyMinIdentity = 0xffffffffu;  // for the lower corner (min)
constexpr uint32_t kKeyMaxIdentity = 0u;           // for the upper corner (max)

// The reductions of box keys (FloatKey) to the lower and upper corner.
struct KeyMinOp {
    CA_HD uint32_t operator()(uint32_t a, uint32_t b) const { return b < a ? b : a; }
};
struct KeyMaxOp {
    CA_HD uint32_t operator()(uint32_t a, uint32_t b) const { return b > a ? b : a; }
};

// A box as keys (FloatKey) for min and max by warp reductions and atomics: the tight box of a
// node's entries (Chang et al. 2013, section 13.2.2). Starts as the identities.
struct BoxKeys {
    uint32_t k[6] = {kKeyMinIdentity, kKeyMinIdentity, kKeyMinIdentity,
                     kKeyMaxIdentity, kKeyMaxIdentity, kKeyMaxIdentity};

    CA_HD void Add(const Aabb& b) {
        for (int a = 0; a < 3; ++a) {
            k[a] = KeyMinOp()(k[a], FloatKey(b.lo[a]));
            k[3 + a] = KeyMaxOp()(k[3 + a], FloatKey(b.hi[a]));
        }
    }
    // Over the lanes (core/lanes.h), every lane ending with the whole.
    template <class Lanes>
    CA_HD void Reduce(const Lanes& lanes) {
        for (int a = 0; a < 3; ++a) {
            k[a] = lanes.Reduce(k[a], KeyMinOp());
            k[3 + a] = lanes.Reduce(k[3 + a], KeyMaxOp());
        }
    }
    // Into item i of six key columns, by atomic min and max.
    CA_HD void MergeInto(uint32_t* const (&keys)[6], uint32_t i) const {
        for (int a = 0; a < 3; ++a) {
            AtomicMin(&keys[a][i], k[a]);
            AtomicMax(&keys[3 + a][i], k[3 + a]);
        }
    }
    CA_HD void StoreAt(uint32_t* const (&keys)[6], uint32_t i) const {
        for (int a = 0; a < 6; ++a) keys[a][i] = k[a];
    }
    CA_HD static BoxKeys At(uint32_t* const (&keys)[6], uint32_t i) {
        BoxKeys b;
        for (int a = 0; a < 6; ++a) b.k[a] = keys[a][i];
        return b;
    }
};

// Boxes built with comparisons instead of fminf/fmaxf (core's Aabb), whose choice between -0 and
// +0 differs between host and device; the CPU and GPU builds must agree bit for bit.
CA_HD inline float MinOf(float a, float b) { return b < a ? b : a; }
CA_HD inline float MaxOf(float a, float b) { return b > a ? b : a; }
CA_HD inline Aabb TriangleBox(const Triangle& t) {
    Aabb b(t.v0, t.v0);
    for (int a = 0; a < 3; ++a) {
        b.lo[a] = MinOf(MinOf(t.v0[a], t.v1[a]), t.v2[a]);
        b.hi[a] = MaxOf(MaxOf(t.v0[a], t.v1[a]), t.v2[a]);
    }
    return b;
}
CA_HD inline Aabb BoxUnion(const Aabb& x, const Aabb& y) {
    Aabb b;
    for (int a = 0; a < 3; ++a) {
        b.lo[a] = MinOf(x.lo[a], y.lo[a]);
        b.hi[a] = MaxOf(x.hi[a], y.hi[a]);
    }
    return b;
}
CA_HD inline Aabb BoxIntersection(const Aabb& x, const Aabb& y) {
    Aabb b;
    for (int a = 0; a < 3; ++a) {
        b.lo[a] = MaxOf(x.lo[a], y.lo[a]);
        b.hi[a] = MinOf(x.hi[a], y.hi[a]);
    }
    return b;
}

// Which children an item with extent [lo, hi] on the split axis goes to, for a split at p. Items
// touching the plane from one side stay on that side. Items lying in the plane go to the side
// planar_side names (0: left, 1: right), or to both for planar_side < 0.
CA_HD inline void ClassifyExtent(float lo, float hi, float p, int planar_side, bool* left, bool* right) {
    if (lo == p && hi == p) {
        *left = planar_side <= 0;
        *right = planar_side != 0;
        return;
    }
    *left = lo < p;
    *right = hi > p;
}

// The box of triangle t, whose box so far is entry, in cell: the triangle clipped to the cell
// (falling back to the cut box if rounding empties it).
CA_HD inline Aabb ClippedEntryBox(const Triangle& t, const Aabb& entry, const Aabb& cell) {
    const Aabb cut = BoxIntersection(entry, cell);
    const Aabb clipped = BoxIntersection(WidenedClippedTriangleBounds(t, cell), cut);
    return clipped.Empty() ? cut : clipped;
}

// Whether an entry's box reaches beyond its child's cell on the split axis: the triangle crosses
// the plane, and its box in that child is clipped.
CA_HD inline bool LeavesChildCell(const Aabb& entry, const Aabb& child_cell, int axis) {
    return entry.lo[axis] < child_cell.lo[axis] || entry.hi[axis] > child_cell.hi[axis];
}

// The box of an entry in a child: unchanged unless the triangle crosses the plane, then clipped.
CA_HD inline Aabb ChildEntryBox(const Triangle& t, const Aabb& entry, const Aabb& child_cell, int axis) {
    return LeavesChildCell(entry, child_cell, axis) ? ClippedEntryBox(t, entry, child_cell) : entry;
}

// The box of a small root's entry: its triangle's box, clipped where the triangle leaves the root's
// cell. The large-node stage clipped it at each plane it crossed on the way down, which this
// equals up to rounding; the small-node stage works it out per batch, so that the root store need
// not hold a box an entry (bfs_small_passes.h, BatchEntryBoxes).
CA_HD inline Aabb RootEntryBox(const Triangle& t, const Aabb& cell) {
    const Aabb box = TriangleBox(t);
    for (int a = 0; a < 3; ++a)
        if (box.lo[a] < cell.lo[a] || box.hi[a] > cell.hi[a]) return ClippedEntryBox(t, box, cell);
    return box;
}

// A child of no thickness on a cell's face (the small-node stage's cut of the triangles lying in
// the face, bfs_small_split.h) must also hold the triangles that cross the face: clipped to the
// small root's cell, their boxes start (side 0, the lower face) or end (side 1) there as if they
// touched it from inside. Whether triangle t, whose box does so, reaches beyond the face at p.
CA_HD inline bool CrossesCellFace(const Triangle& t, int axis, float p, int side) {
    const Aabb b = TriangleBox(t);
    return side == 0 ? b.lo[axis] < p : b.hi[axis] > p;
}

// Everything one large-node level reads and writes.
struct LargeLevelView {
    LargeNodesView nodes;
    uint32_t node_count;
    uint32_t chunk_size;
    EntriesView cur;   // the active nodes' entries
    EntriesView next;  // their children's entries, one child after another (child_first)
    const Triangle* triangles;
    RecordsView records;
    uint32_t* child_count;  // two per node: entries in its left and right child (atomic counters)
    uint32_t* child_first;  // two per node: the child's first entry in next (a scan of the counts)
    uint32_t* leaf_store;   // triangle indices of large-stage leaves
    // Two per node, where the level's classification gathers them: the child's entries' tight box
    // as keys (BoxKeys), which its next-level node starts from instead of a pass over its entries.
    // Null where the level does not gather them.
    uint32_t* child_key[6] = {};
};

// The children an entry goes to: both, one, or (for a node that became a leaf) "left", meaning
// its copy into the leaf store.
CA_HD inline void ClassifyEntry(const LargeLevelView& v, uint32_t node, uint32_t local, bool* left, bool* right) {
    const int axis = v.nodes.split_axis[node];
    if (axis < 0) {
        *left = true;
        *right = false;
        return;
    }
    const uint32_t e = v.nodes.begin[node] + local;
    const float lo = v.cur.Bound(axis, e), hi = v.cur.Bound(3 + axis, e), p = v.nodes.split_pos[node];
    ClassifyExtent(lo, hi, p, v.nodes.planar_side[node], left, right);
}

// Writes entry 'local' of node into child 'side' at position 'rank' among that child's entries
// (or into the leaf store for a leaf) and adds its box there to keys (nothing for a leaf).
CA_HD inline void WriteEntry(const LargeLevelView& v, uint32_t node, uint32_t local, int side, uint32_t rank,
                             BoxKeys& keys) {
    const uint32_t e = v.nodes.begin[node] + local;
    const uint32_t tri = v.cur.tri[e];
    const int axis = v.nodes.split_axis[node];
    if (axis < 0) {
        v.leaf_store[v.records.left[v.nodes.record[node]] + rank] = tri;
        return;
    }
    const uint32_t dst = v.child_first[2 * node + uint32_t(side)] + rank;
    const Aabb box = ChildEntryBox(v.triangles[tri], v.cur.Box(e), v.nodes.ChildCell(node, side), axis);
    v.next.Set(dst, tri, box);
    keys.Add(box);
}

}  // namespace caustica::bfs
