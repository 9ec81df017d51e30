// The medium subtrees of the point tree: a node of at most MediumMaxPoints(T) points is built whole
// by one GPU block in shared memory (one CPU thread on the CPU), from its three sorted lists down
// to its leaves. Inside, it is the same algorithm as the large-node levels (Zhou et al. 2008,
// section 5.1): level by level, each large node split as kdtree/point_large_split.h decides and
// its three lists split stably (a block scan, Chang et al. 2013's per-block work instead of a
// launch), then each small root of at most T points by the VVH (kdtree/point_small_subtree.h),
// a warp each. So it makes the same tree as the levels would, where each of those levels cost a
// handful of launches and a wait for the host: the levels below MediumMaxPoints are about half of
// a build's levels.
//
// Two passes over the medium roots, as the small-node stage has: the count pass gives each root's
// subtree size (and its small roots' shapes) for the preorder addresses (Zhou et al. 2008,
// Algorithm 5); the write pass builds again, keeps its large nodes in the node store of the root
// (a region of global memory sized from the count pass), works out their preorder addresses with
// its own up and down passes, and writes the nodes and the points of the subtree. Device code for
// launch units only.
#pragma once

#include <cstdint>

#include "core/lanes.h"
#include "kdtree/point_build_node.h"
#include "kdtree/point_large_split.h"
#include "kdtree/point_small_subtree.h"
#include "kdtree/point_tree.h"

namespace caustica {
namespace point_build {


constexpr uint32_t kMediumMaxPoints = kMaxMediumNodePoints;
constexpr uint32_t kMediumMaxActive = kMaxMediumLevelNodes;
constexpr uint32_t kMediumThreads = 256;
constexpr uint32_t kMediumWarps = kMediumThreads / 32;
constexpr uint8_t kNoOwner = 0xff;
static_assert(kMediumMaxPoints <= 65536 && kMediumMaxActive < kNoOwner, "16-bit local points, 8-bit owners");

// A large node of a medium subtree's current level. Points are numbered within the medium root in
// x order (its "local" points); a node's points lie at [begin, begin + count) of the shared lists.
struct MediumNode {
    uint32_t begin, count;
    uint32_t depth;
    uint32_t slot;  // its place in the root's node store: slot 0 the root, then level by level
    Aabb cell;
    uint32_t splits, axis;
    float split;
    uint32_t left_count;
};

struct MediumSmallRoot {
    uint32_t begin, count, depth, slot;
};

// One medium root's work area: 74 KB, so that three blocks share an SM.
struct MediumScratch {
    float coord[3][kMediumMaxPoints];            // coordinate a of local point t
    uint16_t lists[2][3][kMediumMaxPoints];      // the three sorted lists of local points; level l in lists[l % 2]
    uint8_t side[kMediumMaxPoints];              // by local point: 1 goes left; a small root's own numbering
    uint8_t owner[kMediumMaxPoints];             // by list position: its large node in the level, or kNoOwner
    uint32_t chunk_bits[3 * kMediumMaxPoints / 32];    // the split: each 32 positions' sides, 1 left
    uint32_t chunk_before[3 * kMediumMaxPoints / 32];  // and the left positions of the list before them
    MediumNode active[2][kMediumMaxActive];      // the large nodes of levels l and l + 1
    MediumSmallRoot small[2 * kMediumMaxActive];  // the small roots of level l (count pass)
    uint32_t level_slots[kMaxPointTreeDepth + 2];  // the first slot of each level (write pass)
    SmallSubtree subtrees[kMediumWarps];
};

// What the medium passes read and write besides the scratch.
struct MediumContext {
    const Vec3* pos;
    const uint32_t* lists;   // the final lists (3 x n), each medium root's points in place
    const uint32_t* roots;   // the breadth-first index of each medium root
    BuildNode* nodes;        // the breadth-first nodes
    const Aabb* cells;       // the cell of each medium root (by breadth-first index)
    uint16_t* local;         // by point number: its local point
    uint32_t* small_shapes;  // by a small root's first list position: its nodes | deepest << 16
    uint32_t n;
    uint32_t small_max;
    LargeSplitParams split;
    float radius, cost_traversal;
};

// A medium node's lists in the scratch.
struct SharedLists {
    const MediumScratch* s;
    uint32_t buffer, begin;
    CA_HD float Coord(int axis, uint32_t i) const { return s->coord[axis][s->lists[buffer][axis][begin + i]]; }
};

// A small root's points for SmallSubtree::Load, from the scratch; side holds its own numbering.
struct SharedSmallSource {
    const MediumScratch* s;
    const uint32_t* root_x_list;  // the medium root's x list: local point -> point number
    uint32_t buffer, begin;
    CA_HD uint32_t Local(int axis, uint32_t t) const { return s->lists[buffer][axis][begin + t]; }
    CA_HD uint32_t Id(uint32_t t) const { return root_x_list[Local(0, t)]; }
    CA_HD Vec3 Position(uint32_t t) const {
        const uint32_t l = Local(0, t);
        return Vec3(s->coord[0][l], s->coord[1][l], s->coord[2][l]);
    }
    CA_HD uint32_t Order(int axis, uint32_t t) const { return s->side[Local(axis, t)]; }
};

struct MaxOf {
    CA_HD uint32_t operator()(uint32_t a, uint32_t b) const { return a > b ? a : b; }
};

// A node of the store as the levels first know it.
CA_HD inline BuildNode StoredChild(uint32_t begin, uint32_t count, uint32_t kind, uint32_t depth) {
    BuildNode node{};
    node.begin = begin;
    node.count = count;
    node.kind = kind;
    node.depth = depth;
    return node;
}

// The subtree sizes, bottom-up, and the preorder addresses, top-down, of a medium root's node
// store (Zhou et al. 2008, Algorithm 5, within one block), the root at address.
template <class Block>
CA_HD void MediumAddresses(const Block& block, const MediumScratch& s, uint32_t levels, const uint32_t* small_shapes,
                           BuildNode* store, uint32_t address) {
    for (uint32_t l = levels; l-- > 0;) {
        for (uint32_t slot = s.level_slots[l] + block.Lane(); slot < s.level_slots[l + 1]; slot += Block::kCount) {
            BuildNode& node = store[slot];
            if (node.kind == kInterior) {
                const BuildNode& left = store[node.left];
                const BuildNode& right = store[node.left + 1];
                node.size = 1 + left.size + right.size;
                node.deepest = left.deepest > right.deepest ? left.deepest : right.deepest;
            } else if (node.kind == kSmallRoot) {
                node.size = small_shapes[node.begin] & 0xffffu;
                node.deepest = small_shapes[node.begin] >> 16;
            } else if (node.kind == kLeaf) {
                node.size = 1;
                node.deepest = node.depth;
            }
        }
        block.Sync();
    }
    if (block.Lane() == 0) store[0].address = address;
    block.Sync();
    for (uint32_t l = 0; l < levels; ++l) {
        for (uint32_t slot = s.level_slots[l] + block.Lane(); slot < s.level_slots[l + 1]; slot += Block::kCount) {
            const BuildNode& node = store[slot];
            if (node.kind != kInterior) continue;
            store[node.left].address = node.address + 1;
            store[node.left + 1].address = node.address + 1 + store[node.left].size;
        }
        block.Sync();
    }
}

// The write pass's end: the preorder addresses of the node store, then the nodes, large ones
// from the store, each small root's subtree and each unsplit leaf's points by a warp.
template <class Block>
CA_HD void WriteMedium(const Block& block, MediumScratch& s, const MediumContext& ctx, const BuildNode& root,
                       uint32_t levels, uint32_t slots, BuildNode* store, const SmallWriteSink& out) {
    using Warp = decltype(block.Warp());
    const Warp warp = block.Warp();
    const uint32_t lane = block.Lane(), warp_index = block.WarpIndex();
    const uint32_t* root_x_list = ctx.lists + root.begin;
    MediumAddresses(block, s, levels, ctx.small_shapes, store, root.address);
    for (uint32_t slot = lane; slot < slots; slot += Block::kCount) {
        const BuildNode& node = store[slot];
        const NodeRange range{node.begin, node.count};
        if (node.kind == kInterior)
            out.WriteNode(node.address, KdNode::Interior(int(node.axis), node.split, store[node.left + 1].address),
                          node.box, range);
        else if (node.kind == kLeaf)
            out.WriteNode(node.address, KdNode::Leaf(node.begin, node.count), node.box, range);
    }
    for (uint32_t slot = warp_index; slot < slots; slot += Block::kWarps) {
        const BuildNode& node = store[slot];
        if (node.kind != kSmallRoot && !(node.kind == kLeaf && node.count > 0)) continue;
        const uint32_t buffer = (node.depth - root.depth) & 1u;
        const uint32_t begin = node.begin - root.begin;
        if (node.kind == kLeaf) {  // a large node that could not split: its points in x order
            for (uint32_t t = warp.Lane(); t < node.count; t += Warp::kCount) {
                const uint32_t l = s.lists[buffer][0][begin + t];
                out.points[node.begin + t] =
                    TreePoint{Vec3(s.coord[0][l], s.coord[1][l], s.coord[2][l]), out.original[root_x_list[l]]};
            }
            continue;
        }
        for (uint32_t t = warp.Lane(); t < node.count; t += Warp::kCount)
            s.side[s.lists[buffer][0][begin + t]] = uint8_t(t);
        warp.Sync();
        SmallSubtree& sub = s.subtrees[warp_index];
        sub.Load(warp, SharedSmallSource{&s, root_x_list, buffer, begin}, node.count);
        SmallWriteSink sink = out;
        sink.address = node.address;
        sub.Build(warp, node.begin, node.depth, ctx.split.max_depth, ctx.radius, ctx.cost_traversal, sink);
        warp.Sync();
    }
    block.Sync();
}


// The stable split of the three lists of a medium subtree's level, Chang et al. 2013's way: a warp
// takes 32 positions of a list at a time (a chunk), the ballot of their sides gives each its rank
// within the chunk, and a block scan over the chunks' counts the rank before it. An entry's rank in
// its node is then the left entries before it less those before its node's first position.
template <class Block>
CA_HD void SplitMediumLists(const Block& block, MediumScratch& s, uint32_t cur, uint32_t c) {
    using Warp = decltype(block.Warp());
    const Warp warp = block.Warp();
    const uint32_t per_list = (c + 31) / 32, chunks = 3 * per_list;
    const auto chunk_list = [per_list](uint32_t chunk) { return uint32_t(chunk >= per_list) + uint32_t(chunk >= 2 * per_list); };
    for (uint32_t chunk = block.WarpIndex(); chunk < chunks; chunk += Block::kWarps) {
        const uint32_t a = chunk_list(chunk), first = (chunk - a * per_list) * 32;
        const uint32_t bits = warp.Ballot([&](uint32_t i) {
            const uint32_t p = first + i;
            if (p >= c || s.owner[p] == kNoOwner) return false;
            const MediumNode& node = s.active[cur][s.owner[p]];
            return a == node.axis ? p - node.begin < node.left_count : s.side[s.lists[cur][a][p]] != 0;
        });
        if (warp.Lane() == 0) s.chunk_bits[chunk] = bits;
    }
    block.Sync();
    uint32_t carry = 0;
    for (uint32_t base = 0; base < chunks; base += Block::kCount) {
        const uint32_t chunk = base + block.Lane();
        uint32_t total;
        const uint32_t before =
            block.ExclusiveScan(chunk < chunks ? PopCount(s.chunk_bits[chunk]) : 0u, 0u, CountSum(), total);
        if (chunk < chunks) s.chunk_before[chunk] = carry + before;
        carry += total;
    }
    block.Sync();
    for (uint32_t chunk = block.WarpIndex(); chunk < chunks; chunk += Block::kWarps) {
        const uint32_t a = chunk_list(chunk), first = (chunk - a * per_list) * 32;
        // The left entries of list a before position q.
        const auto left_before = [&](uint32_t q) {
            const uint32_t at = a * per_list + q / 32;
            return s.chunk_before[at] + PopCount(s.chunk_bits[at] & ((1u << (q % 32)) - 1u));
        };
        for (uint32_t i = warp.Lane(); i < 32; i += Warp::kCount) {
            const uint32_t p = first + i;
            if (p >= c || s.owner[p] == kNoOwner) continue;
            const MediumNode& node = s.active[cur][s.owner[p]];
            const uint32_t rank = left_before(p) - left_before(node.begin);
            const uint32_t to = (s.chunk_bits[chunk] >> i & 1u) ? rank : node.left_count + (p - node.begin) - rank;
            s.lists[1 - cur][a][node.begin + to] = s.lists[cur][a][p];
        }
    }
}

// Builds the subtree of medium root r. The count pass (kWrite false) sets the root's size and
// deepest node, and returns the slots its node store needs; the write pass (kWrite true) fills
// store and writes the subtree's nodes and points to out.
template <bool kWrite, class Block>
CA_HD uint32_t BuildMedium(const Block& block, MediumScratch& s, const MediumContext& ctx, uint32_t r,
                           BuildNode* store, const SmallWriteSink& out) {
    BuildNode& root = ctx.nodes[ctx.roots[r]];
    const uint32_t c = root.count, T = ctx.small_max, n = ctx.n;
    const uint32_t* root_x_list = ctx.lists + root.begin;
    using Warp = decltype(block.Warp());
    const Warp warp = block.Warp();
    const uint32_t lane = block.Lane(), warp_index = block.WarpIndex();

    // The root's points, numbered in x order, and its three lists of them.
    for (uint32_t t = lane; t < c; t += Block::kCount) {
        const uint32_t id = root_x_list[t];
        ctx.local[id] = uint16_t(t);
        const Vec3 p = ctx.pos[id];
        for (int a = 0; a < 3; ++a) s.coord[a][t] = p[a];
        s.lists[0][0][t] = uint16_t(t);
    }
    block.Sync();
    for (uint32_t t = lane; t < c; t += Block::kCount) {
        s.lists[0][1][t] = ctx.local[ctx.lists[n + root.begin + t]];
        s.lists[0][2][t] = ctx.local[ctx.lists[2 * n + root.begin + t]];
    }
    uint32_t active = c > T ? 1 : 0, small = c > T ? 0 : 1;
    if (lane == 0) {
        s.level_slots[0] = 0;
        s.level_slots[1] = 1;
        if (active) s.active[0][0] = MediumNode{0, c, root.depth, 0, ctx.cells[ctx.roots[r]], 0, 0, 0.0f, 0};
        else s.small[0] = MediumSmallRoot{0, c, root.depth, 0};
        if constexpr (kWrite) {
            if (!active) store[0] = StoredChild(root.begin, c, kSmallRoot, root.depth);
        }
    }
    block.Sync();

    uint32_t nodes = 0, deepest = 0;  // this lane's share of the count pass's totals
    uint32_t level = 0;
    for (;; ++level) {
        const uint32_t cur = level & 1u;
        // The count pass sizes the level's small roots, a warp each, while their lists are at hand.
        if constexpr (!kWrite) {
            for (uint32_t i = warp_index; i < small; i += Block::kWarps) {
                const MediumSmallRoot sr = s.small[i];
                for (uint32_t t = warp.Lane(); t < sr.count; t += Warp::kCount)
                    s.side[s.lists[cur][0][sr.begin + t]] = uint8_t(t);
                warp.Sync();
                SmallSubtree& sub = s.subtrees[warp_index];
                sub.Load(warp, SharedSmallSource{&s, root_x_list, cur, sr.begin}, sr.count);
                SmallCountSink sink;
                sub.Build(warp, root.begin + sr.begin, sr.depth, ctx.split.max_depth, ctx.radius, ctx.cost_traversal,
                          sink);
                if (warp.Lane() == 0) {
                    ctx.small_shapes[root.begin + sr.begin] = sink.nodes | sink.deepest << 16;
                    nodes += sink.nodes;
                    deepest = sink.deepest > deepest ? sink.deepest : deepest;
                }
                warp.Sync();
            }
            block.Sync();
        }
        if (active == 0) break;

        // Each large node's split, a warp each; the side of each of its points, and its list
        // positions marked as its own.
        for (uint32_t i = warp_index; i < active; i += Block::kWarps) {
            MediumNode& node = s.active[cur][i];
            const LargeSplit d =
                DecideLargeSplit(warp, SharedLists{&s, cur, node.begin}, node.count, node.cell, node.depth, ctx.split);
            for (uint32_t t = warp.Lane(); t < node.count; t += Warp::kCount) {
                const uint32_t p = node.begin + t;
                s.owner[p] = d.splits ? uint8_t(i) : kNoOwner;
                if (d.splits) s.side[s.lists[cur][d.axis][p]] = t < d.left_count ? 1 : 0;
            }
            if (warp.Lane() != 0) continue;
            node.splits = d.splits ? 1 : 0;
            node.axis = d.axis;
            node.split = d.split;
            node.left_count = d.left_count;
            if constexpr (kWrite) {
                BuildNode stored = StoredChild(root.begin + node.begin, node.count, d.splits ? kInterior : kLeaf, node.depth);
                stored.box = d.box;
                stored.split = d.split;
                stored.axis = d.axis;
                stored.left = s.level_slots[level + 1] + 2 * i;
                store[node.slot] = stored;
            } else if (!d.splits) {
                ++nodes;  // a leaf
                deepest = node.depth > deepest ? node.depth : deepest;
            }
        }
        block.Sync();

        SplitMediumLists(block, s, cur, c);
        block.Sync();

        // The children: large ones make the next level and small roots wait for their subtrees; the
        // write pass stores the others (empty leaves) and the small roots now, the large ones once
        // they are split, in two slots a large node (holes where it did not split).
        const uint32_t first_child_slot = s.level_slots[level + 1];
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
            const uint32_t before = block.ExclusiveScan(kinds, 0u, CountSum(), total);
            uint32_t large_at = next_active + (before & 0xffu), small_at = next_small + (before >> 8);
            next_active += total & 0xffu;
            next_small += total >> 8;
            if (!node) continue;
            for (uint32_t side = 0; side < 2; ++side) {
                const uint32_t slot = first_child_slot + 2 * i + side;
                if (!node->splits) {
                    if constexpr (kWrite) store[slot].kind = kHole;
                    continue;
                }
                const uint32_t cb = node->begin + (side ? node->left_count : 0);
                const uint32_t cc = side ? node->count - node->left_count : node->left_count;
                const uint32_t kind = ChildKind(cc, T, T);
                const uint32_t depth = node->depth + 1;
                if (kind == kLarge) {
                    Aabb cell = node->cell;
                    if (side == 0) cell.hi[node->axis] = node->split;
                    else cell.lo[node->axis] = node->split;
                    s.active[1 - cur][large_at++] = MediumNode{cb, cc, depth, slot, cell, 0, 0, 0.0f, 0};
                } else if (kind == kSmallRoot) {
                    s.small[small_at++] = MediumSmallRoot{cb, cc, depth, slot};
                    for (uint32_t t = 0; t < cc; ++t) s.owner[cb + t] = kNoOwner;
                }
                if constexpr (kWrite) {
                    if (kind != kLarge) store[slot] = StoredChild(root.begin + cb, cc, kind, depth);
                } else if (kind == kLeaf) {  // small roots count with their subtrees, large nodes at their level
                    ++nodes;
                    deepest = depth > deepest ? depth : deepest;
                }
            }
            if (!kWrite && node->splits) ++nodes;  // the node itself
        }
        if (lane == 0) s.level_slots[level + 2] = first_child_slot + 2 * active;
        active = next_active;
        small = next_small;
        block.Sync();
    }
    const uint32_t levels = level + 1;  // levels 0 .. level hold nodes
    const uint32_t slots = s.level_slots[levels];

    if constexpr (!kWrite) {
        uint32_t all_nodes, deepest_node;
        block.ExclusiveScan(nodes, 0u, CountSum(), all_nodes);
        block.ExclusiveScan(deepest, 0u, MaxOf(), deepest_node);
        if (lane == 0) {
            root.size = all_nodes;
            root.deepest = deepest_node;
        }
        return slots;
    } else {
        WriteMedium(block, s, ctx, root, levels, slots, store, out);
        return slots;
    }
}

}  // namespace point_build
}  // namespace caustica
