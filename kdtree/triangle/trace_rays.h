// Batches of rays traced through a triangle kd-tree (or, for checks, against every triangle) on
// either backend. Rays, triangles, the tree and the outputs live in the backend's memory.
#pragma once

#include <cstdint>

#include "core/backend.h"
#include "core/span.h"
#include "kdtree/triangle/ray.h"
#include "kdtree/triangle/sah_tree.h"
#include "kdtree/triangle/traversal_variant.h"
#include "kdtree/triangle/triangle.h"

namespace caustica {

// hits[i] = the closest hit of rays[i] (FindClosestHit in kdtree/triangle/traversal.h), found by
// the given traversal (every variant finds the same hits).
void TraceClosestHits(const Backend& backend, const SahTreeView& tree, Span<const Triangle> triangles,
                      Span<const Ray> rays, Span<Hit> hits, TraversalVariant traversal = kDefaultTraversal);
// occluded[i] = 1 when rays[i] hits anything in (tmin, tmax), else 0.
void TraceOcclusion(const Backend& backend, const SahTreeView& tree, Span<const Triangle> triangles,
                    Span<const Ray> rays, Span<uint8_t> occluded, TraversalVariant traversal = kDefaultTraversal);

// The same results by testing every triangle (O(rays x triangles)): the reference.
void BruteForceClosestHits(const Backend& backend, Span<const Triangle> triangles, Span<const Ray> rays,
                           Span<Hit> hits);
void BruteForceOcclusion(const Backend& backend, Span<const Triangle> triangles, Span<const Ray> rays,
                         Span<uint8_t> occluded);

}  // namespace caustica
