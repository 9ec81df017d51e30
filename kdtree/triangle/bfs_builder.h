// The triangle kd-tree builder of Zhou et al. 2008 (large-node stage, small-node stage, preorder
// output) with the faster kernels of Chang, Seo and Ihm 2013, on either backend.
//
// Rules the papers leave open, as this builder settles them:
// - A triangle (its box clipped to the node) goes left when it starts below the plane, right when
//   it ends above it; one lying in the plane goes to both sides of a median split, and to the side
//   the SAH chose for it otherwise. A triangle touching the plane from one side stays on that side.
// - Large nodes: empty space is cut off on every side where the cut takes more than
//   empty_space_area_ratio of the cell's surface area (Zhou section 3.1 measures it against the
//   extent instead; one chain of cuts per level), then the cell is split where the SAH over its
//   entries' box faces is least for nodes of at most binned_sah_max_entries entries, else at the
//   median of its longest axis (up to median_or_sah_max_entries entries, 65,536 by default, unless
//   a face costs less than median_weight times the median). The children are counted before any
//   entry moves, so that a node becomes a leaf at the depth bound, when its triangles' box has no
//   extent, when the split would put every triangle on both sides (a million identical triangles
//   end in one leaf instead of doubling down to the depth bound), or after three splits in a row
//   that kept over 90% of the triangles on both sides.
// - Small nodes: split where the exact SAH, Ct + Ci (AL CL + AR CR) / A, beats the leaf cost
//   Ci C; ties go to the lowest axis, then the lowest position. A flat child on the cell's face
//   takes the triangles lying in the face and those crossing it.
// - The CPU and GPU give the same node array, bounds and depth. Leaves hold the same triangles;
//   small-stage leaves list them in increasing index on both; large-stage leaves (depth bound and
//   the cases above) may list them in another order on the GPU, whose chunk atomics order them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/backend.h"
#include "core/span.h"
#include "kdtree/triangle/sah_params.h"
#include "kdtree/triangle/sah_tree.h"
#include "kdtree/triangle/triangle.h"

namespace caustica {

// What the last build did, for benchmarks and tests.
struct BfsBuildStats {
    int large_levels = 0;            // iterations of the large-node stage
    int small_levels = 0;            // iterations of the small-node stage
    uint64_t large_nodes = 0;        // active nodes processed by the large-node stage, all levels
    uint64_t small_nodes = 0;        // nodes processed by the small-node stage, all levels
    uint32_t small_roots = 0;        // nodes that entered the small-node stage from the large one
    int small_batches = 0;           // the batches of small roots (SahParams::small_stage_batch_entries)
    uint32_t large_leaves = 0;       // leaves made by the large-node stage (depth bound, no
                                     // extent, or useless splits: bfs_large_passes.h, UselessSplit)
    uint32_t large_leaf_items = 0;   // their items
    uint32_t empty_space_cuts = 0;   // empty space cut off large nodes (each adds an empty leaf)
    uint64_t peak_active_nodes = 0;  // the most active nodes in one level (large or small)
    uint64_t peak_entries = 0;       // the longest large-stage work list (triangle references)
    uint64_t large_entries = 0;      // the large-stage work lists' entries, all levels: its work
    bool entry_bound_leaves = false;  // a level's work list grew past its bound: its nodes became leaves
    uint32_t records = 0;            // nodes as built (cut chains count once), before the output stage
    uint32_t nodes = 0;              // nodes of the final tree
    uint32_t leaves = 0;
    uint32_t index_count = 0;        // items of the final index list
    int max_depth = 0;
    int read_backs = 0;  // times the host waited for counts from the backend's memory
    // The builder's work lists and build records after the build, which it keeps for the next
    // (the input triangles and the output tree are not in it).
    size_t work_bytes = 0;
    // Host time of each stage: each ends with a read-back (but the large-node stage of at most
    // small_node_threshold triangles, which queues two passes), so on the GPU it includes the
    // stage's kernels and the host's waits.
    double large_stage_ms = 0, small_stage_ms = 0, output_ms = 0;
};

class BfsSahBuilder {
public:
    explicit BfsSahBuilder(const Backend& backend, SahParams params = {});
    ~BfsSahBuilder();
    BfsSahBuilder(const BfsSahBuilder&) = delete;
    BfsSahBuilder& operator=(const BfsSahBuilder&) = delete;

    // Builds a tree over triangles in the backend's memory into out (whose buffers must be in the
    // same memory). The builder's work lists are kept and reused, so rebuilding every frame
    // allocates nothing once the sizes have been seen.
    void Build(Span<const Triangle> triangles, SahTree& out);

    const SahParams& params() const;
    const BfsBuildStats& stats() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace caustica
