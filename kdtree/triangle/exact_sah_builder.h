// The exact SAH kd-tree builder of Wald and Havran 2006 ("On building fast kd-Trees for Ray
// Tracing, and on doing that in O(N log N)"), on the CPU: the quality reference for the BFS
// builder and `--builder exact`.
//
// Every node considers every candidate plane (the clipped triangle bounds on all three axes) by
// one sweep over split events sorted once at the root; triangles that straddle the chosen plane
// are clipped to each child as polygons ("perfect splits"), and the children's sorted event lists
// are obtained by splitting the parent's list and merging in the clipped triangles' new events,
// which keeps the whole build O(N log N). The
// cost function is the plain SAH of SahParams (no empty-space bonus), the same as the BFS
// builder's: Ct + Ci * (A_left / A * N_left + A_right / A * N_right) against the leaf cost
// Ci * N; a node becomes a leaf when no plane is cheaper, or at SahParams::max_depth. Triangles
// lying in a candidate plane go to the cheaper side. Subtrees are built in parallel (oneTBB); the
// output does not depend on scheduling.
#pragma once

#include "core/span.h"
#include "kdtree/triangle/sah_params.h"
#include "kdtree/triangle/sah_tree.h"
#include "kdtree/triangle/triangle.h"

namespace caustica {

// triangles: host memory. out: a tree in host memory (SahTree(MemorySpace::Host)); its buffers are
// resized. Uses params' cost_traversal, cost_intersection and max_depth.
void BuildExactSahTree(Span<const Triangle> triangles, const SahParams& params, SahTree& out);

}  // namespace caustica
