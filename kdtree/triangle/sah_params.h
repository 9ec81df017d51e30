// The parameters of the triangle kd-tree build, with the papers' values as defaults.
#pragma once

#include <string>

namespace caustica {

struct SahParams {
    // Nodes with at most this many triangles go to the small-node stage (Zhou et al. 2008, T = 64;
    // the small-node bit masks are 64 bits wide, so it cannot be larger).
    int small_node_threshold = 64;
    // The small-node stage's boxes are clipped to its root's cell only, so a long triangle that
    // straddles a split may be kept in a child it misses (Zhou et al. 2008 keep it in both). With
    // this on, each such triangle is tested against both children's cells and kept only where it
    // reaches: on a gear's long cap triangles the SAH cost falls from 1.07 to 1.04 times the exact
    // builder's (docs/notes/triangle-tree-performance.md, flat faces).
    bool test_small_stage_straddlers = true;
    // Large nodes of at most this many entries choose their split by the SAH over their box faces
    // (bfs_binned_sah.h); larger ones split at the spatial median (Zhou et al. 2008). 0: always the
    // median.
    int binned_sah_max_entries = 1024;
    // Larger nodes of at most this many entries, at levels of up to 2,048 nodes, split at the
    // spatial median unless a box face's SAH cost is less than median_weight times the median's
    // (bfs_binned_sah.h; the level's chunks gather the bins on the whole GPU). With the median
    // alone (0), objects on a large floor are cut median after median, the floor's triangles
    // keeping every node from being empty space: the champagne scene's tree costs 1.45 times the
    // exact builder's SAH, the sky's 1.26, the pool's 1.12; with the choice 1.00, 1.00 and 1.03,
    // and their frames ran 2-3% faster (run 276), for 0.2-0.5 ms more in builds of 69K-1M
    // triangles on an H200 (docs/notes/triangle-tree-performance.md, objects on a floor).
    int median_or_sah_max_entries = 65536;
    float median_weight = 0.8f;
    // The small-node stage takes its roots in batches of at most about this many triangle
    // references (a root is never split), so that the references' roots and boxes and their split
    // candidates' masks (124 bytes a reference) and the small-node lists are held for one batch at
    // a time: a generated scene of up to about 1.8M triangles (1.65 references a triangle) is one
    // batch. With 3M, the small-node stage of 10M triangles fits in the work memory that the
    // large-node stage leaves it (docs/notes/triangle-tree-performance.md, the build's memory). The
    // tree does not depend on it.
    int small_stage_batch_entries = 3000000;
    // Triangles of a large node are processed in chunks of this size (Zhou et al. 2008, 256).
    int chunk_size = 256;
    // Empty space is cut off a side of a large node when the cut takes more than this share of
    // the node's surface area. Zhou et al. 2008 cut where the empty space exceeds Ce = 25% of the
    // node's extent on that axis, which on a cube is 1/6 of its area; on a flat cell (objects on a
    // floor) a cut across the thin axis takes little area, so that a ray is rarely spared the
    // node's triangles, and adds a node to every other ray's path: Ce left the ring and ball on a
    // floor at 1.078 times the exact builder's SAH cost, the area share at 0.97, the organic meshes
    // within half a percent of Ce (docs/notes/triangle-tree-performance.md, empty space).
    float empty_space_area_ratio = 1.0f / 6.0f;
    // SAH costs: traversal of one node and intersection of one triangle (Zhou et al. 2008's SAH
    // uses Cts for the traversal cost with intersection cost 1); only their ratio shapes the tree.
    // On the GPU a triangle's test costs more than a node's step: a lower traversal cost gives
    // deeper trees that trace faster and build slower, a higher one the reverse (at 2, 1M
    // triangles build in 19% less time and trace primary rays 13% slower on an H200). The
    // renderer's frames, which trace millions of rays a tree, take 0.75 (FrameTreeParams in
    // renderer/frame_renderer.cpp; docs/notes/triangle-tree-performance.md, the SAH's costs).
    float cost_traversal = 1.0f;
    float cost_intersection = 1.0f;
    // Nodes at this depth become leaves; traversal stacks are sized from it.
    int max_depth = 40;
    // Work that runs in one GPU block (kdtree/triangle/bfs_large_passes.h, bfs_large_run.h and
    // bfs_small_passes.h), where a launch a pass would wait for the launches and, once a level, for
    // the host; 0: never. The tree does not depend on them; the CPU follows the same rules. The
    // passes after a level's split decisions, up to this many items (a large level's child slots, a
    // small level's nodes); small levels of up to this many nodes are also queued behind each other
    // with their sizes on the device, one read-back for a run of them:
    int children_in_one_block_max = 4096;
    // Whole large levels, one after another while they fit, up to this many entries and child
    // slots a level:
    int large_levels_in_one_block_max = 1024;
    // Whole small levels, likewise, up to this many nodes a level:
    int small_levels_in_one_block_max = 64;
};

// What is wrong with p for the BFS builder, or "" when nothing is: the builder's check, and the
// benchmark's of its options.
std::string SahParamsProblem(const SahParams& p);

}  // namespace caustica
