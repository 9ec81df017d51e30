// The walks that the traversal tests compare: every TraversalVariant as kdtree/triangle/trace_rays
// runs it, and short stacks of 1 and 2 entries, which drop entries and restart far more often.
// Each runs on either backend.
#pragma once

#include <string>
#include <vector>

#include "core/backend.h"
#include "core/span.h"
#include "kdtree/triangle/ray.h"
#include "kdtree/triangle/sah_tree.h"
#include "kdtree/triangle/traversal.h"
#include "kdtree/triangle/traversal_variant.h"
#include "kdtree/triangle/triangle.h"

namespace caustica::testing {

struct TraversalWalk {
    std::string name;
    TraversalVariant variant;
    int short_stack_entries;  // the short stack's size (ShortStack only)
};

// stack, push-down, short-stack (kShortStackEntries), short-stack (1), short-stack (2).
std::vector<TraversalWalk> TraversalWalks();

// hits[i] = the closest hit of rays[i], occluded[i] = whether rays[i] hits anything, by the walk;
// everything in the backend's memory.
void TraceClosestHits(const Backend& backend, const TraversalWalk& walk, const SahTreeView& tree,
                      Span<const Triangle> triangles, Span<const Ray> rays, Span<Hit> hits);
void TraceOcclusion(const Backend& backend, const TraversalWalk& walk, const SahTreeView& tree,
                    Span<const Triangle> triangles, Span<const Ray> rays, Span<uint8_t> occluded);

// The cost of each ray's closest-hit query by the walk, on the host (tree and triangles in host
// memory).
std::vector<TraversalCost> MeasureClosestHits(const TraversalWalk& walk, const SahTreeView& tree,
                                              const Triangle* triangles, const std::vector<Ray>& rays);

}  // namespace caustica::testing
