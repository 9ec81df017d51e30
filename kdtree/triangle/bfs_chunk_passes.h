// Internal to the BFS builder: the two passes of a large-node level that run over chunks of
// triangles (Zhou et al. 2008, Algorithm 2, with the per-chunk atomics of Chang et al. 2013,
// sections 13.2.1.2 and 13.2.2). On the GPU each is one kernel with warp intrinsics and atomics;
// on the CPU a plain loop computes the same result.
#pragma once

#include <cstdint>

#include "core/backend.h"
#include "kdtree/triangle/bfs_build_state.h"

namespace caustica::bfs {

// Reduces the boxes of each node's entries into nodes.key (which must hold the identity keys).
// chunk_bound: at least the number of chunks (the GPU launches that many blocks).
void ChunkBounds(const Backend& backend, const LargeLevelView& level, uint32_t chunk_bound);

// Counts each split node's children's entries into child_count (which must be zero), without
// writing them, so that splits can be judged before any entry moves.
void ChunkCount(const Backend& backend, const LargeLevelView& level, uint32_t chunk_bound);

// Classifies every entry against its node's split and writes it into the children (clipped where
// it crosses the plane), or copies a leaf node's triangles into the leaf store. child_count must
// be zero; afterwards it holds each child's entry count.
void ChunkClassify(const Backend& backend, const LargeLevelView& level, uint32_t chunk_bound);

}  // namespace caustica::bfs
