// Internal to the BFS builder: the small-node stage (Zhou et al. 2008, section 3.2, Algorithm 4,
// with the bit masks of Chang et al. 2013, section 13.3), one small root at a time. Everything a
// small root's subtree needs is local to it (its at most 64 triangles, their candidates and
// masks), so one warp on the GPU (one thread on the CPU) builds the whole subtree in one launch
// instead of one launch and one host read per level. Two launches per build: the first sizes each
// subtree (nodes, index-list items) for the output stage's up pass, the second writes it in
// preorder at the address the down pass gave its root. Both make the same decisions.
#pragma once

#include <cstdint>

#include "core/backend.h"
#include "kd_node.h"
#include "kdtree/bfs_build_state.h"

namespace caustica::bfs {

// The largest depth bound the small stage's explicit stack holds (one pending right child per
// level); the traversal's own bound (kMaxTraversalDepth) is the same.
constexpr int kMaxSmallStageDepth = 64;

// The first walk logs each node's decision (the chosen candidate, or a leaf) for the first this
// many nodes of each small root's subtree; the second walk replays the log instead of searching
// again when the whole subtree fitted.
constexpr uint32_t kSmallDecisionsPerRoot = 256;

struct SmallStageView {
    const Triangle* triangles;
    uint16_t* decisions;  // kSmallDecisionsPerRoot per small root
    SmallRootsView roots;
    RecordsView records;
    LevelTotals* totals;
    float cost_traversal, cost_intersection;
    int max_depth;
    // Written by EmitSmallSubtrees only.
    KdNode* out_nodes;
    uint32_t* out_indices;
};

// For each small root: its subtree's node and index-list item counts into records.size/items of
// its record; the deepest node into totals->max_depth; the nodes made into totals->small_nodes.
void SizeSmallSubtrees(const Backend& backend, const SmallStageView& view, uint32_t root_count);

// For each small root: its subtree in preorder at records.address/offset of its record.
void EmitSmallSubtrees(const Backend& backend, const SmallStageView& view, uint32_t root_count);

// For tests: the CPU plays this many lanes per small root, dealing out the candidates as a GPU
// warp does (32); the tree must not change. Default 1.
void SetCpuSmallStageLanes(uint32_t lanes);

}  // namespace caustica::bfs
