// The per-ray functors that trace batches through the triangle kd-tree, one instantiation per
// traversal variant (and short-stack size), for launch units that run them on either backend:
// kdtree/triangle/trace_rays.cpp, and tests that run short stacks of other sizes.
#pragma once

#include <cstdint>

#include "core/hd.h"
#include "kdtree/triangle/ray.h"
#include "kdtree/triangle/sah_tree.h"
#include "kdtree/triangle/traversal.h"
#include "kdtree/triangle/traversal_variant.h"
#include "kdtree/triangle/triangle.h"

namespace caustica {

template <TraversalVariant kVariant, int kShortEntries = kShortStackEntries>
struct ClosestHitPass {
    SahTreeView tree;
    const Triangle* triangles;
    const Ray* rays;
    Hit* hits;
    CA_HD void operator()(int i) const { hits[i] = FindClosestHit<kVariant, kShortEntries>(tree, triangles, rays[i]); }
};

template <TraversalVariant kVariant, int kShortEntries = kShortStackEntries>
struct OcclusionPass {
    SahTreeView tree;
    const Triangle* triangles;
    const Ray* rays;
    uint8_t* occluded;
    CA_HD void operator()(int i) const {
        occluded[i] = IsOccluded<kVariant, kShortEntries>(tree, triangles, rays[i]) ? 1 : 0;
    }
};

}  // namespace caustica
