// Internal to the BFS builder (kdtree/triangle/bfs_builder.cpp): the output stage (Zhou et al.
// 2008, Algorithm 5), which lays the records out as the final tree: subtree sizes up, addresses
// and leaf items down.
#pragma once

#include <cstdint>

#include "core/hd.h"
#include "core/parallel_for_lanes.h"
#include "core/readback.h"
#include "kdtree/kd_node.h"
#include "kdtree/triangle/bfs_build_state.h"

namespace caustica::bfs {

// UpPass: subtree sizes in nodes and index-list items, children before parents. Each record's
// depth, needed no more, becomes its subtree's height, so that the root's is the tree's depth.
struct UpPass {
    RecordsView records;
    CA_HD void operator()(int i) const {
        const uint32_t r = uint32_t(i);
        const uint32_t kind = records.Kind(r), chain = records.Chain(r);
        if (kind <= kSplitZ) {
            const uint32_t cuts = chain & 7u;
            const uint32_t l = records.left[r], rr = records.right[r];
            records.size[r] = 2 * cuts + 1 + records.size[l] + records.size[rr];
            records.items[r] = records.items[l] + records.items[rr];
            const uint32_t hl = records.Depth(l), hr = records.Depth(rr);
            records.SetHead(r, kind, cuts + 1 + (hl > hr ? hl : hr), chain);
        } else {
            records.size[r] = 1;
            records.items[r] = kind == kMaskLeaf ? uint32_t(PopCount(records.LeafMask(r)))
                                                 : (kind == kStoreLeaf ? records.right[r] : 0u);
            records.SetHead(r, kind, 0, chain);
        }
    }
};

// After the up pass: the root's address, and the tree's size and depth for the host to read.
struct TreeTotals {
    RecordsView records;
    LevelTotals* totals;
    ReadbackTarget to_host;  // the totals, for the host
    CA_HD void operator()(int) const {
        totals->tree_nodes = records.size[0];
        totals->tree_items = records.items[0];
        totals->tree_depth = int32_t(records.Depth(0));
        records.address[0] = 0;
        records.offset[0] = 0;  // after the items, whose column this is
        to_host.Write(*totals);
    }
};

// DownPass: each record writes its nodes (cut chain, split, or leaf and its indices) at its address
// and gives its children theirs, parents before children. The large-stage leaves' indices are
// CopyStoreLeaves' work.
struct DownPass {
    RecordsView records;
    SmallRootsView roots;
    KdNode* out_nodes;
    uint32_t* out_indices;
    CA_HD void operator()(int i) const {
        const uint32_t r = uint32_t(i);
        const uint32_t kind = records.Kind(r);
        uint32_t a = records.address[r];
        const uint32_t offset = records.offset[r];
        if (kind == kMaskLeaf) {
            const uint64_t mask = records.LeafMask(r);
            const uint32_t first = records.left[r];
            uint32_t n = 0;  // a step a triangle, where a step a bit kept the block's levels waiting
            for (uint64_t m = mask; m != 0; m &= m - 1) out_indices[offset + n++] = roots.tri[first + LowestBit(m)];
            out_nodes[a] = KdNode::Leaf(offset, n);
            return;
        }
        if (kind == kStoreLeaf) {  // its indices: CopyStoreLeaves
            out_nodes[a] = KdNode::Leaf(offset, records.right[r]);
            return;
        }
        const uint32_t chain = records.Chain(r);
        const uint32_t cuts = chain & 7u;
        uint32_t rest = records.size[r];  // nodes from the current chain node on
        for (uint32_t c = 0; c < cuts; ++c) {
            const uint32_t bits = chain >> (3 + 3 * c);
            const int axis = int(bits & 3u);
            const float pos = records.cuts[6 * size_t(r) + c];
            if (bits & 4u) {  // the upper side is empty: the rest is the left child
                out_nodes[a] = KdNode::Interior(axis, pos, a + 1 + (rest - 2));
                out_nodes[a + 1 + (rest - 2)] = KdNode::Leaf(offset, 0);
                a += 1;
            } else {
                out_nodes[a] = KdNode::Interior(axis, pos, a + 2);
                out_nodes[a + 1] = KdNode::Leaf(offset, 0);
                a += 2;
            }
            rest -= 2;
        }
        const uint32_t l = records.left[r], rr = records.right[r];
        const uint32_t left_items = records.items[l];  // before offset[l] takes its column
        out_nodes[a] = KdNode::Interior(int(kind), records.Split(r), a + 1 + records.size[l]);
        records.address[l] = a + 1;
        records.address[rr] = a + 1 + records.size[l];
        records.offset[l] = offset;
        records.offset[rr] = offset + left_items;
    }
};

// After the down pass: the indices of each large-stage leaf, with a warp (a lane on the CPU). A leaf
// of coincident triangles may hold a million, which one thread of the down pass copied alone
// (1M copies of a box: 399 of 421 ms of the build, H200).
struct CopyStoreLeaves {
    using Scratch = NoScratch;
    RecordsView records;
    const uint32_t* leaf_store;
    uint32_t* out_indices;
    template <class Lanes>
    CA_HD void Run(const Lanes& lanes, NoScratch&, uint32_t r) const {
        if (records.Kind(r) != kStoreLeaf) return;
        const uint32_t first = records.left[r], n = records.right[r], offset = records.offset[r];
        for (uint32_t j = lanes.Lane(); j < n; j += Lanes::kCount) out_indices[offset + j] = leaf_store[first + j];
    }
};

}  // namespace caustica::bfs
