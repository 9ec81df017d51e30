// The medium subtrees of the point tree: a node of at most PointTreeParams::medium_node_threshold
// points (2048 by default) is built whole by one GPU block in shared memory (one CPU thread on the
// CPU), from its sorted lists down to its leaves. Inside, it is the same algorithm as the
// large-node levels (Zhou et al. 2008, section 5.1): level by level, each large node split as
// kdtree/point/point_large_split.h decides and its lists split stably (warp ballots and a block
// scan, Chang et al. 2013's per-block work instead of a launch and a wait for the host a level),
// then each small root of at most T points by the VVH (kdtree/point/point_small_subtree.h), a warp each.
// So it makes the tree the levels would make.
//
// The build pass keeps each subtree's large nodes, small roots and leaves in a store shared by all
// roots (a level's nodes take one piece of it), and writes each small root's and unsplit leaf's
// lists to global memory. Then a warp per small root sizes its subtree from its lists (so that the
// small subtrees, long chains of a warp's work, have the whole GPU's warps, not a block's eight),
// and a block per medium root works out its stored nodes' sizes and preorder addresses within the
// root (Zhou et al. 2008, Algorithm 5). Once the medium roots' own addresses are known, the write
// pass writes the stored nodes, a warp each, building each small root's subtree again, writing it.
// Device code for launch units only.
#pragma once

#include <cstdint>

#include "core/atomic.h"
#include "core/lanes.h"
#include "kdtree/point/point_build_node.h"
#include "kdtree/point/point_large_split.h"
#include "kdtree/point/point_small_subtree.h"
#include "kdtree/point/point_tree.h"

namespace caustica {
namespace point_build {

constexpr uint32_t kMediumMaxPoints = kMaxMediumNodePoints;
constexpr uint32_t kMediumMaxActive = kMaxMediumLevelNodes;
constexpr uint32_t kMediumThreads = 256;
constexpr uint32_t kMediumWarps = kMediumThreads / 32;
constexpr uint8_t kNoOwner = 0xff;
static_assert(kMediumMaxPoints <= 65536 && kMediumMaxActive < kNoOwner, "16-bit local points, 8-bit owners");

// A large node of a medium subtree's current level. Points are numbered within the medium root in
// the order of list 0 (its "local" points; AxisLists); a node's points lie at [begin, begin +
// count) of the shared lists.
struct MediumNode {
    uint32_t begin, count;
    uint32_t depth;
    uint32_t slot;  // its place in the store
    Aabb cell;
    uint32_t splits, axis;
    float split;
    uint32_t left_count;
};

struct MediumSmallRoot {
    uint32_t begin, count, slot;
};

// A medium root's levels: each one's piece of the store.
struct MediumLevels {
    uint32_t first[kMaxPointTreeDepth + 1];
    uint32_t count[kMaxPointTreeDepth + 1];
    uint32_t levels;  // levels 0 .. levels - 1 hold nodes; 0: the build did not finish
};

// One medium root's work area: 62 KB, so that three blocks share an SM.
struct MediumScratch {
    float coord[3][kMediumMaxPoints];                  // coordinate a of local point t
    uint16_t lists[2][3][kMediumMaxPoints];            // the three sorted lists of local points (level l: l % 2)
    uint8_t owner[kMediumMaxPoints];                   // by list position: its large node in the level, or kNoOwner
    uint8_t chunks[kMediumMaxPoints / 32];             // the split: the chunks of 32 positions a list that
    uint8_t chunk_slot[kMediumMaxPoints / 32];         // hold the level's large nodes, and each one's place
    uint32_t chunk_bits[3 * kMediumMaxPoints / 32];    // among them; by place, the sides of its positions
    uint32_t chunk_before[3 * kMediumMaxPoints / 32];  // (1 left) and the left positions of the list before
    MediumNode active[2][kMediumMaxActive];            // the large nodes of levels l and l + 1
    MediumSmallRoot small[2 * kMediumMaxActive];       // the small roots of level l
    MediumLevels levels;
    uint32_t store_full;
};

// The store of the medium subtrees' nodes. The GPU's blocks take their pieces in the order they
// come to it, so where a subtree's nodes lie changes from run to run; what is written from them
// does not. A build whose pieces do not fit stops, and runs again with a larger store.
struct MediumStore {
    BuildNode* nodes;      // address: the preorder address within the medium root
    uint32_t* roots;       // by stored node: its medium root (breadth-first index)
    uint32_t* small_roots; // the stored small roots, in the order they were stored
    uint32_t* used;        // slots taken or asked for, then small roots stored
    MediumLevels* levels;  // by breadth-first node: a medium root's levels
    uint32_t capacity;
};

// What the medium passes read and write besides the scratch.
struct MediumContext {
    PointCoords points;
    const uint32_t* lists;   // the final lists (axes.count x n), each medium root's points in place
    AxisLists axes;
    BuildNode* nodes;        // the breadth-first nodes
    const Aabb* cells;       // the cell of each medium root (by breadth-first index)
    uint32_t* done_lists;    // the lists (as lists) of each small root and unsplit leaf, in place
    uint16_t* local;         // by point number: its local point, then its place in its small root
    uint32_t small_max;
    LargeSplitParams split;
    float radius, cost_traversal;
};

// A medium node's lists in the scratch.
struct SharedLists {
    const MediumScratch* s;
    AxisLists axes;
    uint32_t buffer, begin;
    CA_HD float Coord(int axis, uint32_t i) const {
        return s->coord[axis][s->lists[buffer][axes.Of(axis)][begin + i]];
    }
};

// A small root's points for SmallSubtree::Load, from the lists the build pass wrote out.
struct DoneSmallSource {
    PointCoords points;
    const uint32_t* lists;  // axes.count x n
    AxisLists axes;
    const uint16_t* local;
    uint32_t begin;
    CA_HD uint32_t Id(uint32_t t) const { return lists[begin + t]; }
    CA_HD Vec3 Position(uint32_t t) const { return points.Position(Id(t)); }
    CA_HD uint32_t Order(int axis, uint32_t t) const { return local[lists[axes.Of(axis) * points.n + begin + t]]; }
};

// A node of the store as the levels first know it.
CA_HD inline BuildNode StoredNode(uint32_t begin, uint32_t count, uint32_t kind, uint32_t depth) {
    BuildNode node{};
    node.begin = begin;
    node.count = count;
    node.kind = kind;
    node.depth = depth;
    return node;
}

// Takes count slots of the store for level l of medium root `root` (a breadth-first index); false,
// for every lane, when the store is full.
template <class Block>
CA_HD bool TakeSlots(const Block& block, MediumScratch& s, const MediumStore& store, uint32_t l, uint32_t count,
                     uint32_t root) {
    if (block.Lane() == 0) {
        const uint32_t first = AtomicAdd(store.used, count);
        s.levels.first[l] = first;
        s.levels.count[l] = count;
        s.store_full = first + count > store.capacity ? 1 : 0;
    }
    block.Sync();
    if (s.store_full) return false;
    for (uint32_t k = block.Lane(); k < count; k += Block::kCount) store.roots[s.levels.first[l] + k] = root;
    return true;
}

// The subtree sizes, bottom-up, and the preorder addresses within the medium root, top-down, of
// a medium root's stored nodes (Zhou et al. 2008, Algorithm 5, within one block).
template <class Block>
CA_HD void MediumAddresses(const Block& block, const MediumLevels& levels, BuildNode* store) {
    for (uint32_t l = levels.levels; l-- > 0;) {
        for (uint32_t k = block.Lane(); k < levels.count[l]; k += Block::kCount)
            SizeSubtree(store, levels.first[l] + k);
        block.Sync();
    }
    if (block.Lane() == 0) store[levels.first[0]].address = 0;
    block.Sync();
    for (uint32_t l = 0; l < levels.levels; ++l) {
        for (uint32_t k = block.Lane(); k < levels.count[l]; k += Block::kCount)
            AddressChildren(store, levels.first[l] + k);
        block.Sync();
    }
}

// Writes the lists of a done node (a small root, or a leaf that could not split: lists 0 only) of
// the shared lists buffer to done_lists, and numbers its points in list 0's order in local.
template <class Lanes>
CA_HD void WriteDoneLists(const Lanes& lanes, const MediumScratch& s, const MediumContext& ctx,
                          const uint32_t* root_x_list, uint32_t root_begin, uint32_t buffer, uint32_t begin,
                          uint32_t count, uint32_t lists) {
    for (uint32_t a = 0; a < lists; ++a) {
        for (uint32_t t = lanes.Lane(); t < count; t += Lanes::kCount) {
            const uint32_t id = root_x_list[s.lists[buffer][a][begin + t]];
            ctx.done_lists[a * ctx.points.n + root_begin + begin + t] = id;
            if (a == 0) ctx.local[id] = uint16_t(t);
        }
    }
}

// The stable split of the lists of a medium subtree's level, Chang et al. 2013's way: a warp
// takes 32 positions of a list at a time (a chunk), the ballot of their sides gives each its rank
// within the chunk, and a block scan over the chunks' counts the rank before it. An entry's rank in
// its node is then the left entries before it less those before its node's first position. Only
// the chunks that hold the level's large nodes take part: in the last levels, few do.
template <class Block>
CA_HD void SplitMediumLists(const Block& block, MediumScratch& s, const AxisLists& axes, uint32_t cur,
                            uint32_t active, uint32_t c) {
    using Warp = decltype(block.Warp());
    const Warp warp = block.Warp();
    // The chunks of the large nodes' positions, in order (the nodes are): each node takes those of
    // its chunks that the node before it has not taken.
    uint32_t per_list = 0;
    for (uint32_t base = 0; base < active; base += Block::kCount) {
        const uint32_t i = base + block.Lane();
        uint32_t first = 0, last = 0, taken = 0;
        if (i < active) {
            const MediumNode& node = s.active[cur][i];
            first = node.begin / 32;
            last = (node.begin + node.count - 1) / 32;
            if (i > 0) {
                const MediumNode& before = s.active[cur][i - 1];
                const uint32_t before_last = (before.begin + before.count - 1) / 32;
                first = first > before_last ? first : before_last + 1;
            }
            taken = last + 1 > first ? last + 1 - first : 0;
        }
        uint32_t total;
        const uint32_t at = per_list + block.ExclusiveScan(taken, 0u, Plus(), total);
        for (uint32_t k = 0; k < taken; ++k) {
            s.chunks[at + k] = uint8_t(first + k);
            s.chunk_slot[first + k] = uint8_t(at + k);
        }
        per_list += total;
    }
    block.Sync();
    const uint32_t chunks = axes.count * per_list;
    // Place k of the chunks: list a, and its first position.
    const auto place = [&](uint32_t k, uint32_t& a) {
        a = uint32_t(k >= per_list) + uint32_t(k >= 2 * per_list);
        return uint32_t(s.chunks[k - a * per_list]) * 32;
    };
    for (uint32_t k = block.WarpIndex(); k < chunks; k += Block::kWarps) {
        uint32_t a;
        const uint32_t first = place(k, a);
        const uint32_t bits = warp.Ballot([&](uint32_t i) {
            const uint32_t p = first + i;
            if (p >= c || s.owner[p] == kNoOwner) return false;
            const MediumNode& node = s.active[cur][s.owner[p]];
            return a == axes.Of(int(node.axis)) ? p - node.begin < node.left_count
                                  : s.coord[node.axis][s.lists[cur][a][p]] < node.split;
        });
        if (warp.Lane() == 0) s.chunk_bits[k] = bits;
    }
    block.Sync();
    uint32_t carry = 0;
    for (uint32_t base = 0; base < chunks; base += Block::kCount) {
        const uint32_t k = base + block.Lane();
        uint32_t total;
        const uint32_t before =
            block.ExclusiveScan(k < chunks ? PopCount(s.chunk_bits[k]) : 0u, 0u, Plus(), total);
        if (k < chunks) s.chunk_before[k] = carry + before;
        carry += total;
    }
    block.Sync();
    for (uint32_t k = block.WarpIndex(); k < chunks; k += Block::kWarps) {
        uint32_t a;
        const uint32_t first = place(k, a);
        // The left entries of list a before position q (of a large node).
        const auto left_before = [&](uint32_t q) {
            const uint32_t at = a * per_list + s.chunk_slot[q / 32];
            return s.chunk_before[at] + PopCount(s.chunk_bits[at] & ((1u << (q % 32)) - 1u));
        };
        for (uint32_t i = warp.Lane(); i < 32; i += Warp::kCount) {
            const uint32_t p = first + i;
            if (p >= c || s.owner[p] == kNoOwner) continue;
            const MediumNode& node = s.active[cur][s.owner[p]];
            const uint32_t rank = left_before(p) - left_before(node.begin);
            const uint32_t to = (s.chunk_bits[k] >> i & 1u) ? rank : node.left_count + (p - node.begin) - rank;
            s.lists[1 - cur][a][node.begin + to] = s.lists[cur][a][p];
        }
    }
}

// The build pass for breadth-first node root_index, a medium root: its subtree's nodes into the
// store, its small roots into the store's list of them, and its levels (see the top of the file).
template <class Block>
CA_HD void BuildMedium(const Block& block, MediumScratch& s, const MediumContext& ctx, const MediumStore& store,
                       uint32_t root_index) {
    BuildNode& root = ctx.nodes[root_index];
    const uint32_t c = root.count, T = ctx.small_max, n = ctx.points.n;
    const uint32_t* root_x_list = ctx.lists + root.begin;
    using Warp = decltype(block.Warp());
    const Warp warp = block.Warp();
    const uint32_t lane = block.Lane(), warp_index = block.WarpIndex();

    // The root's points, numbered in list 0's order, and its lists of them.
    for (uint32_t t = lane; t < c; t += Block::kCount) {
        const uint32_t id = root_x_list[t];
        ctx.local[id] = uint16_t(t);
        for (int a = 0; a < 3; ++a) s.coord[a][t] = ctx.points.Coord(a, id);
        s.lists[0][0][t] = uint16_t(t);
    }
    block.Sync();
    for (uint32_t t = lane; t < c; t += Block::kCount) {
        for (uint32_t a = 1; a < ctx.axes.count; ++a) s.lists[0][a][t] = ctx.local[ctx.lists[a * n + root.begin + t]];
    }
    if (lane == 0) store.levels[root_index].levels = 0;  // not finished
    if (!TakeSlots(block, s, store, 0, 1, root_index)) return;
    uint32_t active = c > T ? 1 : 0, small = c > T ? 0 : 1;
    if (lane == 0) {
        if (active)
            s.active[0][0] = MediumNode{0, c, root.depth, s.levels.first[0], ctx.cells[root_index], 0, 0, 0.0f, 0};
        else s.small[0] = MediumSmallRoot{0, c, s.levels.first[0]};
        if (!active) store.nodes[s.levels.first[0]] = StoredNode(root.begin, c, kSmallRoot, root.depth);
    }
    block.Sync();

    uint32_t level = 0;
    for (;; ++level) {
        const uint32_t cur = level & 1u;
        // The level's small roots, a warp each, while their lists are at hand: their lists out,
        // and each into the store's list of small roots.
        for (uint32_t i = warp_index; i < small; i += Block::kWarps) {
            const MediumSmallRoot sr = s.small[i];
            WriteDoneLists(warp, s, ctx, root_x_list, root.begin, cur, sr.begin, sr.count, ctx.axes.count);
            if (warp.Lane() == 0) store.small_roots[AtomicAdd(store.used + 1, 1)] = sr.slot;
        }
        if (active == 0) break;
        if (!TakeSlots(block, s, store, level + 1, 2 * active, root_index)) return;

        // Each large node's split, a warp each, and its list positions marked as its own.
        for (uint32_t i = warp_index; i < active; i += Block::kWarps) {
            MediumNode& node = s.active[cur][i];
            const LargeSplit d =
                DecideLargeSplit(warp, SharedLists{&s, ctx.axes, cur, node.begin}, node.count, node.cell, node.depth,
                                 ctx.split);
            for (uint32_t t = warp.Lane(); t < node.count; t += Warp::kCount)
                s.owner[node.begin + t] = d.splits ? uint8_t(i) : kNoOwner;
            if (!d.splits) WriteDoneLists(warp, s, ctx, root_x_list, root.begin, cur, node.begin, node.count, 1);
            if (warp.Lane() != 0) continue;
            node.splits = d.splits ? 1 : 0;
            node.axis = d.axis;
            node.split = d.split;
            node.left_count = d.left_count;
            BuildNode stored =
                StoredNode(root.begin + node.begin, node.count, d.splits ? kInterior : kLeaf, node.depth);
            stored.box = d.box;
            stored.split = d.split;
            stored.axis = d.axis;
            stored.left = s.levels.first[level + 1] + 2 * i;
            store.nodes[node.slot] = stored;
        }
        block.Sync();

        SplitMediumLists(block, s, ctx.axes, cur, active, c);
        block.Sync();

        // The children, in two slots a large node (holes where it did not split): large ones make
        // the next level and are stored once they are split; small roots and empty leaves now.
        uint32_t next_active = 0, next_small = 0;
        for (uint32_t base = 0; base < active; base += Block::kCount) {
            const uint32_t i = base + lane;
            const MediumNode* node = i < active ? &s.active[cur][i] : nullptr;
            uint32_t kinds = 0;  // large children | small roots << 8
            if (node && node->splits) {
                for (const uint32_t cc : {node->left_count, node->count - node->left_count}) {
                    const uint32_t kind = ChildKind(cc, T, T);
                    kinds += kind == kLarge ? 1u : (kind == kSmallRoot ? 1u << 8 : 0u);
                }
            }
            uint32_t total;
            const uint32_t before = block.ExclusiveScan(kinds, 0u, Plus(), total);
            uint32_t large_at = next_active + (before & 0xffu), small_at = next_small + (before >> 8);
            next_active += total & 0xffu;
            next_small += total >> 8;
            if (!node) continue;
            for (uint32_t side = 0; side < 2; ++side) {
                const uint32_t slot = s.levels.first[level + 1] + 2 * i + side;
                if (!node->splits) {
                    store.nodes[slot].kind = kHole;
                    continue;
                }
                const uint32_t cb = node->begin + (side ? node->left_count : 0);
                const uint32_t cc = side ? node->count - node->left_count : node->left_count;
                const uint32_t kind = ChildKind(cc, T, T);
                const uint32_t depth = node->depth + 1;
                if (kind == kLarge) {
                    const Aabb cell = node->cell.Half(int(node->axis), node->split, int(side));
                    s.active[1 - cur][large_at++] = MediumNode{cb, cc, depth, slot, cell, 0, 0, 0.0f, 0};
                    continue;
                }
                if (kind == kSmallRoot) {
                    s.small[small_at++] = MediumSmallRoot{cb, cc, slot};
                    for (uint32_t t = 0; t < cc; ++t) s.owner[cb + t] = kNoOwner;
                }
                store.nodes[slot] = StoredNode(root.begin + cb, cc, kind, depth);
            }
        }
        active = next_active;
        small = next_small;
        block.Sync();
    }
    block.Sync();
    if (lane == 0) {
        for (uint32_t l = 0; l <= level; ++l) {
            store.levels[root_index].first[l] = s.levels.first[l];
            store.levels[root_index].count[l] = s.levels.count[l];
        }
        store.levels[root_index].levels = level + 1;
    }
}

// A stored small root's subtree size and deepest node, by a warp, from its lists.
template <class Lanes>
CA_HD void CountSmallSubtree(const Lanes& lanes, SmallSubtree& sub, const MediumContext& ctx, BuildNode& node) {
    sub.Load(lanes, DoneSmallSource{ctx.points, ctx.done_lists, ctx.axes, ctx.local, node.begin}, node.count);
    SmallCountSink sink;
    sub.Build(lanes, node.begin, node.depth, ctx.split.max_depth, ctx.radius, ctx.cost_traversal, sink);
    if (lanes.Lane() != 0) return;
    node.size = sink.nodes;
    node.deepest = sink.deepest;
}

// Medium root root_index's size and deepest node from its stored nodes, and its piece of the
// store in its `left`.
template <class Block>
CA_HD void SizeMedium(const Block& block, MediumLevels& levels, const MediumContext& ctx, const MediumStore& store,
                      uint32_t root_index) {
    for (uint32_t k = block.Lane(); k < sizeof(MediumLevels) / 4; k += Block::kCount)
        reinterpret_cast<uint32_t*>(&levels)[k] = reinterpret_cast<const uint32_t*>(&store.levels[root_index])[k];
    block.Sync();
    if (levels.levels == 0) return;  // a build stopped by a full store, to run again
    MediumAddresses(block, levels, store.nodes);
    if (block.Lane() != 0) return;
    BuildNode& root = ctx.nodes[root_index];
    const BuildNode& top = store.nodes[levels.first[0]];
    root.size = top.size;
    root.deepest = top.deepest;
    root.left = levels.first[0];
}

// The write pass for stored node i, by a warp: its node at its medium root's address plus its own,
// a leaf's points, a small root's subtree.
template <class Lanes>
CA_HD void WriteStoredNode(const Lanes& lanes, SmallSubtree& sub, const MediumContext& ctx, const MediumStore& store,
                           const TreeWriter& out, uint32_t i) {
    const BuildNode& node = store.nodes[i];
    if (node.kind == kHole) return;
    const uint32_t base = ctx.nodes[store.roots[i]].address, address = base + node.address;
    const NodeRange range{node.begin, node.count};
    if (node.kind == kSmallRoot) {
        sub.Load(lanes, DoneSmallSource{ctx.points, ctx.done_lists, ctx.axes, ctx.local, node.begin}, node.count);
        TreeWriter sink = out;
        sink.address = address;
        sub.Build(lanes, node.begin, node.depth, ctx.split.max_depth, ctx.radius, ctx.cost_traversal, sink);
        return;
    }
    if (lanes.Lane() == 0) {
        out.WriteNode(address,
                      node.kind == kInterior
                          ? KdNode::Interior(int(node.axis), node.split, base + store.nodes[node.left + 1].address)
                          : KdNode::Leaf(node.begin, node.count),
                      node.box, range);
    }
    if (node.kind == kLeaf) {  // a large node that could not split: its points in list 0's order
        for (uint32_t t = lanes.Lane(); t < node.count; t += Lanes::kCount) {
            const uint32_t id = ctx.done_lists[node.begin + t];
            out.points[node.begin + t] = TreePoint{ctx.points.Position(id), out.original[id]};
        }
    }
}

}  // namespace point_build
}  // namespace caustica
