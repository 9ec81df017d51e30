// Closest-hit and any-hit queries through a triangle kd-tree in preorder, for host and device code.
//
// Stack-based front-to-back traversal with early exit (the classic stack traversal, Papay 2025,
// section 2.4, Algorithm 1). The stack holds at most one entry per tree level, so it is sized by
// kMaxTraversalDepth, a compile-time bound that trees must respect (IsTraversable).
//
// Exactness: every triangle test uses the ray's own [tmin, tmax] and the watertight test, and node
// intervals are widened by a small margin before a child is skipped or the search stops, so a hit
// on a split plane (a vertex or edge shared by triangles in two leaves) is found in both leaves.
// With the tie-break of Hit::CloserThan the result equals brute force bit for bit.
#pragma once

#include <cstdint>

#include "core/hd.h"
#include "core/vec.h"
#include "kdtree/kd_node.h"
#include "kdtree/triangle/ray.h"
#include "kdtree/triangle/ray_triangle.h"
#include "kdtree/triangle/sah_tree.h"
#include "kdtree/triangle/triangle.h"

namespace caustica {

// The deepest tree that traversal accepts (root at depth 0); stacks hold this many entries.
constexpr int kMaxTraversalDepth = 64;

// Host-side check before launching traversal over a tree.
inline bool IsTraversable(const SahTreeView& tree) { return tree.max_depth <= kMaxTraversalDepth; }

namespace traversal_detail {

struct StackEntry {
    uint32_t node;
    float tnear, tfar;
};

// The slack (in units of t) by which node intervals are widened: a few float ulps of the scene's
// coordinates along the ray, plus a relative part for the rounding of t itself.
CA_HD CA_INLINE float IntervalMargin(const SahTreeView& tree, const Ray& ray) {
    const Vec3 lo = tree.bounds.lo, hi = tree.bounds.hi, o = ray.origin, d = ray.direction;
    const float scale = Max(Max(MaxComponent(Max(Vec3(fabsf(lo.x), fabsf(lo.y), fabsf(lo.z)),
                                                 Vec3(fabsf(hi.x), fabsf(hi.y), fabsf(hi.z)))),
                                MaxComponent(Vec3(fabsf(o.x), fabsf(o.y), fabsf(o.z)))),
                            1e-30f);
    const float speed = MaxComponent(Vec3(fabsf(d.x), fabsf(d.y), fabsf(d.z)));
    return 1e-5f * scale / speed;  // about 80 ulps of the largest coordinate
}

// Clips the ray to the root box (slab test; zero direction components handled without NaN).
// Returns false when the ray misses it.
CA_HD CA_INLINE bool ClipToBounds(const SahTreeView& tree, const Ray& ray, float margin, float* tnear, float* tfar) {
    if (tree.node_count == 0 || tree.bounds.Empty()) return false;
    float t0 = -INFINITY, t1 = INFINITY;
    for (int a = 0; a < 3; ++a) {
        const float o = ray.origin[a], d = ray.direction[a];
        const float lo = tree.bounds.lo[a], hi = tree.bounds.hi[a];
        if (d == 0.0f) {
            if (o < lo || o > hi) return false;
            continue;
        }
        const float inv = 1.0f / d;
        const float ta = (lo - o) * inv, tb = (hi - o) * inv;
        t0 = Max(t0, Min(ta, tb));
        t1 = Min(t1, Max(ta, tb));
    }
    const float slack = margin + 1e-5f * Max(fabsf(t0), fabsf(t1));
    *tnear = Max(ray.tmin, t0 - slack);
    *tfar = Min(ray.tmax, t1 + slack);
    return *tnear <= *tfar;
}

// Visits the leaves that the ray's segment may touch, front to back. visitor.Leaf(first, count)
// returns true to stop; visitor.Skip(tnear) says that a node whose segment starts at tnear cannot
// hold a better hit (closest hit: a hit was found before it).
template <class Visitor>
CA_HD CA_INLINE void WalkLeaves(const SahTreeView& tree, const Ray& ray, Visitor& visitor) {
    const float margin = IntervalMargin(tree, ray);
    float tnear, tfar;
    if (!ClipToBounds(tree, ray, margin, &tnear, &tfar)) return;
    // Reciprocals: infinite for zero components, which the plane tests below handle first.
    const Vec3 inv(1.0f / ray.direction.x, 1.0f / ray.direction.y, 1.0f / ray.direction.z);
    StackEntry stack[kMaxTraversalDepth];
    int top = 0;
    uint32_t node = 0;
    for (;;) {
        if (!visitor.Skip(tnear - margin)) {
            const KdNode n = tree.nodes[node];
            if (!n.IsLeaf()) {
                const int axis = n.Axis();
                const float o = ray.origin[axis], d = ray.direction[axis];
                const uint32_t left = node + 1, right = n.RightChild();
                // The child on the origin's side comes first; on the plane, the one the ray goes into.
                const bool left_first = o < n.split || (o == n.split && d <= 0.0f);
                const uint32_t first = left_first ? left : right, second = left_first ? right : left;
                if (d == 0.0f) {
                    // Parallel to the plane: the ray stays on its origin's side, or, inside the
                    // plane, touches both. (Its infinite tsplit must not reach the tests below,
                    // whose slack would become infinite and send every such ray down both sides.)
                    if (o == n.split) stack[top++] = {second, tnear, tfar};
                    node = first;
                    continue;
                }
                const float tsplit = (n.split - o) * inv[axis];
                const float slack = margin + 1e-5f * fabsf(tsplit);
                if (tsplit <= 0.0f || tsplit > tfar + slack) {
                    node = first;  // the plane is behind the origin or beyond the segment
                } else if (tsplit < tnear - slack) {
                    node = second;  // the segment starts past the plane
                } else {
                    stack[top++] = {second, Max(tnear, tsplit - slack), tfar};
                    node = first;
                    tfar = Min(tfar, tsplit + slack);
                }
                continue;
            }
            if (visitor.Leaf(n.first, n.Count())) return;
        }
        if (top == 0) return;
        --top;
        node = stack[top].node;
        tnear = stack[top].tnear;
        tfar = stack[top].tfar;
    }
}

struct ClosestHitVisitor {
    const SahTreeView& tree;
    const Triangle* triangles;
    const Ray& ray;
    WatertightRay wray;
    Hit best;

    CA_HD ClosestHitVisitor(const SahTreeView& t, const Triangle* tris, const Ray& r)
        : tree(t), triangles(tris), ray(r), wray(r) {}
    CA_HD bool Skip(float tnear) const { return best.Valid() && best.t < tnear; }
    CA_HD bool Leaf(uint32_t first, uint32_t count) {
        for (uint32_t i = 0; i < count; ++i) {
            const uint32_t index = tree.indices[first + i];
            Hit h;
            if (!IntersectTriangle(wray, triangles[index], &h.t, &h.u, &h.v)) continue;
            if (!(h.t > ray.tmin && h.t < ray.tmax)) continue;
            h.triangle = int32_t(index);
            if (!best.Valid() || h.CloserThan(best)) best = h;
        }
        return false;
    }
};

struct AnyHitVisitor {
    const SahTreeView& tree;
    const Triangle* triangles;
    const Ray& ray;
    WatertightRay wray;
    bool occluded = false;

    CA_HD AnyHitVisitor(const SahTreeView& t, const Triangle* tris, const Ray& r)
        : tree(t), triangles(tris), ray(r), wray(r) {}
    CA_HD bool Skip(float) const { return false; }
    CA_HD bool Leaf(uint32_t first, uint32_t count) {
        for (uint32_t i = 0; i < count; ++i) {
            float t, u, v;
            if (IntersectTriangle(wray, triangles[tree.indices[first + i]], &t, &u, &v) && t > ray.tmin &&
                t < ray.tmax) {
                occluded = true;
                return true;
            }
        }
        return false;
    }
};

// The closest-hit walk, counting what it visits (for the traversal cost view).
struct CountingClosestHitVisitor : ClosestHitVisitor {
    uint32_t leaves = 0, tests = 0;
    CA_HD CountingClosestHitVisitor(const SahTreeView& t, const Triangle* tris, const Ray& r)
        : ClosestHitVisitor(t, tris, r) {}
    CA_HD bool Leaf(uint32_t first, uint32_t count) {
        ++leaves;
        tests += count;
        return ClosestHitVisitor::Leaf(first, count);
    }
};

}  // namespace traversal_detail

// The closest hit with tmin < t < tmax (ties: lowest triangle index), or an invalid Hit.
CA_HD CA_INLINE Hit FindClosestHit(const SahTreeView& tree, const Triangle* triangles, const Ray& ray) {
    traversal_detail::ClosestHitVisitor visitor(tree, triangles, ray);
    traversal_detail::WalkLeaves(tree, ray, visitor);
    return visitor.best;
}

// What a closest-hit query costs: leaves visited and ray-triangle tests made.
struct TraversalCost {
    uint32_t leaves = 0, tests = 0;
};

CA_HD CA_INLINE TraversalCost MeasureClosestHit(const SahTreeView& tree, const Triangle* triangles, const Ray& ray) {
    traversal_detail::CountingClosestHitVisitor visitor(tree, triangles, ray);
    traversal_detail::WalkLeaves(tree, ray, visitor);
    return {visitor.leaves, visitor.tests};
}

// Whether any triangle is hit with tmin < t < tmax (shadow rays: tmax is the distance to the
// light, shortened by the caller's epsilon). Stops at the first hit found.
CA_HD CA_INLINE bool IsOccluded(const SahTreeView& tree, const Triangle* triangles, const Ray& ray) {
    traversal_detail::AnyHitVisitor visitor(tree, triangles, ray);
    traversal_detail::WalkLeaves(tree, ray, visitor);
    return visitor.occluded;
}

// The same queries by testing every triangle: the reference for tests and benchmark checks.
CA_HD CA_INLINE Hit FindClosestHitBruteForce(const Triangle* triangles, uint32_t count, const Ray& ray) {
    const WatertightRay wray(ray);
    Hit best;
    for (uint32_t i = 0; i < count; ++i) {
        Hit h;
        if (!IntersectTriangle(wray, triangles[i], &h.t, &h.u, &h.v)) continue;
        if (!(h.t > ray.tmin && h.t < ray.tmax)) continue;
        h.triangle = int32_t(i);
        if (!best.Valid() || h.CloserThan(best)) best = h;
    }
    return best;
}

CA_HD CA_INLINE bool IsOccludedBruteForce(const Triangle* triangles, uint32_t count, const Ray& ray) {
    const WatertightRay wray(ray);
    for (uint32_t i = 0; i < count; ++i) {
        float t, u, v;
        if (IntersectTriangle(wray, triangles[i], &t, &u, &v) && t > ray.tmin && t < ray.tmax) return true;
    }
    return false;
}

}  // namespace caustica
