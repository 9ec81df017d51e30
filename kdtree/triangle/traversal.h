// Closest-hit and any-hit queries through a triangle kd-tree in preorder, for host and device code.
//
// Three walks of the tree, front to back with early exit, chosen by TraversalVariant
// (kdtree/triangle/traversal_variant.h; Papay 2025, sections 2.4 and 6.2):
// - Stack (Algorithm 1): where the ray's segment meets both children of a node, the far child goes
//   onto a stack and the walk goes on in the near one; after a leaf it pops. The stack holds at
//   most one entry per tree level, so it is sized by kMaxTraversalDepth, a compile-time bound that
//   trees must respect (IsTraversable).
// - PushDown (Algorithm 3, after Horn et al. 2007): no stack; after a leaf the walk restarts from
//   its push-down root, the deepest node known to hold all the work left: the root follows each
//   descent until the descent meets a node whose both children it must visit.
// - ShortStack (Algorithm 4): a stack of a few entries, held in registers on the GPU; a push onto
//   a full stack drops the oldest (farthest) entry, and when the stack runs dry while dropped
//   entries remain, the walk restarts from the push-down root.
//
// Exactness: every triangle test uses the ray's own [tmin, tmax] and the watertight test, and node
// intervals are widened by a small margin before a child is skipped or the search stops, so a hit
// on a split plane (a vertex or edge shared by triangles in two leaves) is found in both leaves.
// With the tie-break of Hit::CloserThan the result equals brute force bit for bit.
//
// The restarting walks visit the stack walk's leaves, in its order and with its intervals, so
// every visitor sees the same calls and the result is the same bit for bit. The thesis's restart
// cannot give that here: it descends again with tMin set to the last leaf's exit and takes the far
// child wherever tSplit <= tMin, but widened intervals overlap, so it would enter the leaf just
// finished again or pass by a far child whose segment lies within the margin of a shallower plane.
// Instead the walk keeps a restart trail (Laine 2010, "Restart Trail for Stackless BVH
// Traversal"): a bit for each node on its path whose both children it visits, set once the near
// child is finished. The stack walk's next node is always the far child of the deepest such node
// whose bit is clear; a pop or a restart sets that bit and forgets the deeper ones. A restart
// descends again from the push-down root, which lies above every clear bit; a node's interval and
// the children it meets depend only on its path, so the descent meets the same nodes, and at the
// nodes with both children the trail picks the side. A node skipped on the way down (a closer hit
// was found since) is skipped with everything below it, as the stack walk would skip each pending
// node inside it: intervals only start later down a path.
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/bits.h"
#include "core/hd.h"
#include "core/vec.h"
#include "kdtree/kd_node.h"
#include "kdtree/triangle/ray.h"
#include "kdtree/triangle/ray_triangle.h"
#include "kdtree/triangle/sah_tree.h"
#include "kdtree/triangle/traversal_variant.h"
#include "kdtree/triangle/triangle.h"

namespace caustica {

// The deepest tree that traversal accepts (root at depth 0); stacks hold this many entries, and a
// restart trail has a bit for each.
constexpr int kMaxTraversalDepth = 64;

// Host-side check before launching traversal over a tree.
inline bool IsTraversable(const SahTreeView& tree) { return tree.max_depth <= kMaxTraversalDepth; }

namespace traversal_detail {

// A leaf's triangle index, through the read-only cache on the GPU (LoadNode and LoadTriangle
// likewise).
CA_HD CA_INLINE uint32_t LoadIndex(const uint32_t* indices, uint32_t i) {
#if CA_DEVICE_CODE
    return __ldg(indices + i);
#else
    return indices[i];
#endif
}

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

// Where the ray's segment [tnear, tfar] goes at an interior node: its children in the ray's order,
// and which of them the segment meets; when both, the first child's segment is
// [tnear, first_tfar] and the second's [second_tnear, tfar].
struct SplitCrossing {
    enum Sides : uint8_t { FirstOnly, SecondOnly, Both };
    uint32_t first, second;
    Sides sides;
    float first_tfar, second_tnear;
};

CA_HD CA_INLINE SplitCrossing CrossSplit(const KdNode& n, uint32_t node, const Ray& ray, const Vec3& inv, float margin,
                                         float tnear, float tfar) {
    const int axis = n.Axis();
    const float o = ray.origin[axis], d = ray.direction[axis];
    const uint32_t left = node + 1, right = n.RightChild();
    // The child on the origin's side comes first; on the plane, the one the ray goes into.
    const bool left_first = o < n.split || (o == n.split && d <= 0.0f);
    SplitCrossing c{left_first ? left : right, left_first ? right : left, SplitCrossing::FirstOnly, tfar, tnear};
    if (d == 0.0f) {
        // Parallel to the plane: the ray stays on its origin's side, or, inside the plane, touches
        // both. (Its infinite tsplit must not reach the tests below, whose slack would become
        // infinite and send every such ray down both sides.)
        if (o == n.split) c.sides = SplitCrossing::Both;
        return c;
    }
    const float tsplit = (n.split - o) * inv[axis];
    const float slack = margin + 1e-5f * fabsf(tsplit);
    if (tsplit <= 0.0f || tsplit > tfar + slack) {
        c.sides = SplitCrossing::FirstOnly;  // the plane is behind the origin or beyond the segment
    } else if (tsplit < tnear - slack) {
        c.sides = SplitCrossing::SecondOnly;  // the segment starts past the plane
    } else {
        c.sides = SplitCrossing::Both;
        c.first_tfar = Min(tfar, tsplit + slack);
        c.second_tnear = Max(tnear, tsplit - slack);
    }
    return c;
}

// A node still to visit, with its segment.
struct PendingNode {
    uint32_t node;
    float tnear, tfar;
};

// The stack walk's stack: one entry per interior node of a path, so it never overflows. The
// entries live apart from the stack (in Storage) so that on the GPU only they go to local memory,
// not the top index.
struct FullStack {
    struct Storage {
        PendingNode entries[kMaxTraversalDepth];
    };
    PendingNode* entries;
    int top = 0;

    CA_HD explicit FullStack(Storage& storage) : entries(storage.entries) {}

    CA_HD bool Empty() const { return top == 0; }
    CA_HD void Push(const PendingNode& p, int) { entries[top++] = p; }
    CA_HD PendingNode Pop() { return entries[--top]; }
};

// A stack of kEntries that drops its oldest entry when full; each entry keeps the trail level of
// the node that pushed it. entries[0] is the top, and pushes and pops shift every entry, so every
// index is a constant and the GPU keeps the stack in registers.
template <int kEntries>
struct ShortStack {
    struct Storage {};
    PendingNode entries[kEntries] = {};
    int levels[kEntries] = {};
    int count = 0;

    CA_HD explicit ShortStack(Storage&) {}
    CA_HD bool Empty() const { return count == 0; }
    CA_HD void Push(const PendingNode& p, int level) {
#if CA_DEVICE_CODE
#pragma unroll
#endif
        for (int i = kEntries - 1; i > 0; --i) {
            entries[i] = entries[i - 1];
            levels[i] = levels[i - 1];
        }
        entries[0] = p;
        levels[0] = level;
        count = count < kEntries ? count + 1 : kEntries;
    }
    // The trail level of the top entry.
    CA_HD int TopLevel() const { return levels[0]; }
    CA_HD PendingNode Pop() {
        const PendingNode p = entries[0];
#if CA_DEVICE_CODE
#pragma unroll
#endif
        for (int i = 0; i + 1 < kEntries; ++i) {
            entries[i] = entries[i + 1];
            levels[i] = levels[i + 1];
        }
        --count;
        return p;
    }
};

// Push-down keeps no stack: every pending node is found again by a restart.
template <>
struct ShortStack<0> {
    struct Storage {};
    CA_HD explicit ShortStack(Storage&) {}
    CA_HD bool Empty() const { return true; }
    CA_HD void Push(const PendingNode&, int) {}
    CA_HD int TopLevel() const { return 0; }
    CA_HD PendingNode Pop() { return {}; }
};

// The restart trail: for the i-th node from the root on the walk's path whose both children the
// walk visits (level i), bit 63 - i is set once its near child is finished. The bits run from the
// top so that the deepest unfinished level is the complement's lowest set bit. A path has at most
// kMaxTraversalDepth interior nodes, one bit each.
struct RestartTrail {
    static_assert(kMaxTraversalDepth <= 64, "a restart trail has 64 levels");
    uint64_t near_done = 0;
    int level = 0;  // the nodes with both children visited above the current node

    // Levels [0, count).
    CA_HD static uint64_t Levels(int count) { return count == 0 ? 0 : ~uint64_t(0) << (64 - count); }
    CA_HD static uint64_t Bit(int i) { return uint64_t(1) << (63 - i); }

    // At a node whose both children the walk visits: whether its near child is finished.
    CA_HD bool NearDone() const { return (near_done & Bit(level)) != 0; }
    // The deepest level above the current node whose far child is pending, or -1.
    CA_HD int DeepestPending() const {
        const uint64_t pending = ~near_done & Levels(level);
        return pending == 0 ? -1 : 63 - int(LowestBit(pending));
    }
    // The walk moves on to the far child at level i: its near child is finished, and what lay
    // below it is forgotten.
    CA_HD void FinishNear(int i) { near_done = (near_done & Levels(i)) | Bit(i); }
};

// Visits the leaves that the ray's segment may touch, front to back, keeping at most kEntries
// pending nodes (kMaxTraversalDepth: all of them, the stack walk; fewer: restarts find the rest).
// visitor.Leaf(first, count) returns true to stop; visitor.Skip(tnear) says that a node whose
// segment starts at tnear cannot hold a better hit (closest hit: a hit was found before it);
// visitor.Node() and visitor.Restart() count the nodes read and the restarts.
template <int kEntries, class Visitor>
CA_HD CA_INLINE void WalkLeaves(const SahTreeView& tree, const Ray& ray, Visitor& visitor) {
    static_assert(kEntries >= 0 && kEntries <= kMaxTraversalDepth, "a stack of 0 to kMaxTraversalDepth entries");
    constexpr bool kRestarts = kEntries < kMaxTraversalDepth;
    const float margin = IntervalMargin(tree, ray);
    float tnear, tfar;
    if (!ClipToBounds(tree, ray, margin, &tnear, &tfar)) return;
    // Reciprocals: infinite for zero components, which CrossSplit handles first.
    const Vec3 inv(1.0f / ray.direction.x, 1.0f / ray.direction.y, 1.0f / ray.direction.z);
    using Stack = std::conditional_t<kRestarts, ShortStack<kEntries>, FullStack>;
    typename Stack::Storage storage;
    Stack stack(storage);
    RestartTrail trail;                     // the restarting walks only
    PendingNode root{0, tnear, tfar};       // the push-down root
    int root_level = 0;
    bool push_down = true;                  // no pending node above the current one yet
    uint32_t node = 0;
    for (;;) {
        if (!visitor.Skip(tnear - margin)) {
            visitor.Node();
            const KdNode n = LoadNode(tree.nodes, node);
            if (!n.IsLeaf()) {
                const SplitCrossing c = CrossSplit(n, node, ray, inv, margin, tnear, tfar);
                if (c.sides != SplitCrossing::Both) {
                    node = c.sides == SplitCrossing::FirstOnly ? c.first : c.second;
                } else if (kRestarts && trail.NearDone()) {
                    node = c.second;  // descending again after a restart, past a finished near child
                    tnear = c.second_tnear;
                    ++trail.level;
                } else {
                    stack.Push({c.second, c.second_tnear, tfar}, trail.level);
                    node = c.first;
                    tfar = c.first_tfar;
                    ++trail.level;
                    push_down = false;
                }
                if (kRestarts && push_down) {
                    root = {node, tnear, tfar};
                    root_level = trail.level;
                }
                continue;
            }
            if (visitor.Leaf(n.first, n.Count())) return;
        }
        // The node is finished; the next is the far child of the deepest level still pending.
        if (!stack.Empty()) {
            if constexpr (kRestarts) {
                const int level = stack.TopLevel();
                trail.FinishNear(level);
                trail.level = level + 1;
            }
            const PendingNode p = stack.Pop();
            node = p.node;
            tnear = p.tnear;
            tfar = p.tfar;
            continue;
        }
        if constexpr (kRestarts) {
            const int level = trail.DeepestPending();
            if (level >= 0) {
                visitor.Restart();
                trail.FinishNear(level);
                trail.level = root_level;
                node = root.node;
                tnear = root.tnear;
                tfar = root.tfar;
                push_down = true;
                continue;
            }
        }
        return;
    }
}

// The plain queries count nothing.
struct Uncounted {
    CA_HD void Node() {}
    CA_HD void Restart() {}
};

struct ClosestHitVisitor : Uncounted {
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
            const uint32_t index = LoadIndex(tree.indices, first + i);
            Hit h;
            if (!IntersectTriangle(wray, LoadTriangle(triangles, index), &h.t, &h.u, &h.v)) continue;
            if (!(h.t > ray.tmin && h.t < ray.tmax)) continue;
            h.triangle = int32_t(index);
            if (!best.Valid() || h.CloserThan(best)) best = h;
        }
        return false;
    }
};

struct AnyHitVisitor : Uncounted {
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
            if (IntersectTriangle(wray, LoadTriangle(triangles, LoadIndex(tree.indices, first + i)), &t, &u, &v) &&
                t > ray.tmin &&
                t < ray.tmax) {
                occluded = true;
                return true;
            }
        }
        return false;
    }
};

// The closest-hit walk, counting what it visits (for the traversal cost view and benchmarks).
struct CountingClosestHitVisitor : ClosestHitVisitor {
    uint32_t leaves = 0, tests = 0, nodes = 0, restarts = 0;
    CA_HD CountingClosestHitVisitor(const SahTreeView& t, const Triangle* tris, const Ray& r)
        : ClosestHitVisitor(t, tris, r) {}
    CA_HD bool Leaf(uint32_t first, uint32_t count) {
        ++leaves;
        tests += count;
        return ClosestHitVisitor::Leaf(first, count);
    }
    CA_HD void Node() { ++nodes; }
    CA_HD void Restart() { ++restarts; }
};

// The pending nodes a variant keeps: the stack walk all of them, push-down none.
constexpr int PendingEntries(TraversalVariant variant, int short_stack_entries) {
    return variant == TraversalVariant::Stack ? kMaxTraversalDepth
                                              : (variant == TraversalVariant::PushDown ? 0 : short_stack_entries);
}

// The walk of a variant; a short stack holds kShortEntries (tests try other sizes).
template <TraversalVariant kVariant, int kShortEntries, class Visitor>
CA_HD CA_INLINE void Walk(const SahTreeView& tree, const Ray& ray, Visitor& visitor) {
    static_assert(kShortEntries >= 1 && kShortEntries < kMaxTraversalDepth, "a short stack of 1 to 63 entries");
    WalkLeaves<PendingEntries(kVariant, kShortEntries)>(tree, ray, visitor);
}

}  // namespace traversal_detail

// The closest hit with tmin < t < tmax (ties: lowest triangle index), or an invalid Hit. Every
// variant gives the same hit.
template <TraversalVariant kVariant = kDefaultTraversal, int kShortEntries = kShortStackEntries>
CA_HD CA_INLINE Hit FindClosestHit(const SahTreeView& tree, const Triangle* triangles, const Ray& ray) {
    traversal_detail::ClosestHitVisitor visitor(tree, triangles, ray);
    traversal_detail::Walk<kVariant, kShortEntries>(tree, ray, visitor);
    return visitor.best;
}

// What a closest-hit query costs: leaves visited and ray-triangle tests made (the same for every
// variant), nodes read (those read again after a restart included) and restarts.
struct TraversalCost {
    uint32_t leaves = 0, tests = 0, nodes = 0, restarts = 0;
};

template <TraversalVariant kVariant = kDefaultTraversal, int kShortEntries = kShortStackEntries>
CA_HD CA_INLINE TraversalCost MeasureClosestHit(const SahTreeView& tree, const Triangle* triangles, const Ray& ray) {
    traversal_detail::CountingClosestHitVisitor visitor(tree, triangles, ray);
    traversal_detail::Walk<kVariant, kShortEntries>(tree, ray, visitor);
    return {visitor.leaves, visitor.tests, visitor.nodes, visitor.restarts};
}

// Whether any triangle is hit with tmin < t < tmax (shadow rays: tmax is the distance to the
// light, shortened by the caller's epsilon). Stops at the first hit found, the same for every
// variant.
template <TraversalVariant kVariant = kDefaultTraversal, int kShortEntries = kShortStackEntries>
CA_HD CA_INLINE bool IsOccluded(const SahTreeView& tree, const Triangle* triangles, const Ray& ray) {
    traversal_detail::AnyHitVisitor visitor(tree, triangles, ray);
    traversal_detail::Walk<kVariant, kShortEntries>(tree, ray, visitor);
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
