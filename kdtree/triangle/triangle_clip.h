// The bounding box of the part of a triangle inside an axis-aligned box: the triangle polygon is
// clipped against the box's six planes (Sutherland and Hodgman 1974) and the clipped polygon is
// bounded. Splitting a straddling triangle's box at the plane alone would keep parts of the box
// that the triangle never reaches; clipping keeps the children's boxes tight (Zhou et al. 2008,
// section 3.1, "clip t0 and t1 to their respective owner node"; Havran 2001 "split clipping").
#pragma once

#include "core/hd.h"
#include "core/vec.h"
#include "kdtree/triangle/triangle.h"

namespace caustica {

// The box of triangle t intersected with box; empty (Aabb::Empty()) when they do not meet. The
// result is widened by a few units in the last place so that rounding never drops a part of the
// triangle; callers intersect it with the box they clip against. In float, for the BFS builder on
// either backend; the exact builder's host version in double is triangle_box.h's
// ClippedTriangleBounds (one name for both let the linker pick either for both).
//
// The part inside is a convex polygon whose corners are the triangle's corners in the box and
// points on the box's faces. Those on a face are the ends of the triangle's cross-section with the
// face's plane (a segment between two of its edges) cut to the face (Liang and Barsky 1984): where
// an edge crosses the face, or the cross-section crosses an edge of the box. Each point is found by
// interpolating along a segment, as clipping the polygon plane by plane (Sutherland and Hodgman
// 1974) finds them, whose corners a GPU thread held in arrays in slow local memory. Here every value
// is a register: the entries' classification of a 1M-triangle build 2.03 -> 1.56 ms (0.65 with the
// boxes cut at the plane, not clipped; H100, docs/notes/triangle-tree-performance.md).
CA_HD inline Aabb WidenedClippedTriangleBounds(const Triangle& t, const Aabb& box) {
    Aabb result;
    // Min and max by comparison rather than fminf/fmaxf, whose choice between -0 and +0 differs
    // between host and device: the CPU and GPU builds must agree bit for bit.
    const auto add = [&result](const Vec3& p) {
        const Vec3 lo = result.lo, hi = result.hi;
        result.lo = Vec3(p.x < lo.x ? p.x : lo.x, p.y < lo.y ? p.y : lo.y, p.z < lo.z ? p.z : lo.z);
        result.hi = Vec3(p.x > hi.x ? p.x : hi.x, p.y > hi.y ? p.y : hi.y, p.z > hi.z ? p.z : hi.z);
    };
    if (box.Contains(t.v0)) add(t.v0);
    if (box.Contains(t.v1)) add(t.v1);
    if (box.Contains(t.v2)) add(t.v2);
    // The point of segment p, q (which crosses the plane x[a] = bound) on that plane.
    const auto crossing = [](const Vec3& p, const Vec3& q, int a, float bound) {
        const float s = (bound - p[a]) / (q[a] - p[a]);
        return (p + (q - p) * s).With(a, bound);
    };
    // Segment p, q on face plane x[a] = bound cut to the face (the box's other two axes), its ends
    // added.
    const auto cut_to_face = [&](const Vec3& p, const Vec3& q, int a) {
        const Vec3 d = q - p;
        float t0 = 0.0f, t1 = 1.0f, bound0 = 0.0f, bound1 = 0.0f;
        int axis0 = -1, axis1 = -1;
        for (int k = 1; k < 3; ++k) {
            const int b = a + k < 3 ? a + k : a + k - 3;
            if (d[b] == 0.0f) {
                if (p[b] < box.lo[b] || p[b] > box.hi[b]) return;
                continue;
            }
            const float enter = d[b] > 0.0f ? box.lo[b] : box.hi[b], leave = d[b] > 0.0f ? box.hi[b] : box.lo[b];
            const float t_enter = (enter - p[b]) / d[b], t_leave = (leave - p[b]) / d[b];
            if (t_enter > t0) {
                t0 = t_enter;
                axis0 = b;
                bound0 = enter;
            }
            if (t_leave < t1) {
                t1 = t_leave;
                axis1 = b;
                bound1 = leave;
            }
        }
        if (t0 > t1) return;
        add(axis0 < 0 ? p : (p + d * t0).With(axis0, bound0));
        add(axis1 < 0 ? q : (p + d * t1).With(axis1, bound1));
    };
    // The triangle's cross-section with face plane x[a] = bound: the corners in the plane and the
    // edges' crossings, two in all (one where a corner only touches it). A triangle lying in the
    // plane has no segment: the faces across its edges find its corners there.
    const auto face = [&](int a, float bound) {
        const float d0 = t.v0[a] - bound, d1 = t.v1[a] - bound, d2 = t.v2[a] - bound;
        if ((d0 > 0.0f && d1 > 0.0f && d2 > 0.0f) || (d0 < 0.0f && d1 < 0.0f && d2 < 0.0f)) return;
        if (d0 == 0.0f && d1 == 0.0f && d2 == 0.0f) return;
        Vec3 ends[2] = {Vec3(0.0f), Vec3(0.0f)};
        int count = 0;
        const auto end = [&](const Vec3& p) {
            ends[0] = count == 0 ? p : ends[0];
            ends[1] = p;
            ++count;
        };
        if (d0 == 0.0f) end(t.v0.With(a, bound));
        if (d1 == 0.0f) end(t.v1.With(a, bound));
        if (d2 == 0.0f) end(t.v2.With(a, bound));
        if ((d0 < 0.0f && d1 > 0.0f) || (d0 > 0.0f && d1 < 0.0f)) end(crossing(t.v0, t.v1, a, bound));
        if ((d1 < 0.0f && d2 > 0.0f) || (d1 > 0.0f && d2 < 0.0f)) end(crossing(t.v1, t.v2, a, bound));
        if ((d2 < 0.0f && d0 > 0.0f) || (d2 > 0.0f && d0 < 0.0f)) end(crossing(t.v2, t.v0, a, bound));
        cut_to_face(ends[0], ends[1], a);
    };
    face(0, box.lo.x);
    face(0, box.hi.x);
    face(1, box.lo.y);
    face(1, box.hi.y);
    face(2, box.lo.z);
    face(2, box.hi.z);
    if (result.Empty()) return result;
    // Widen by about 2^-20 of each coordinate's magnitude plus the extent, far above the rounding
    // of the crossings above and far below anything that changes a split.
    const Vec3 lo = result.lo, hi = result.hi;
    const Vec3 slack =
        Vec3(fabsf(lo.x) + fabsf(hi.x), fabsf(lo.y) + fabsf(hi.y), fabsf(lo.z) + fabsf(hi.z)) * 9.5367431640625e-7f;
    return Aabb(lo - slack, hi + slack);
}

// Whether triangle t meets the box, widened as WidenedClippedTriangleBounds widens its result so
// that rounding never separates a triangle that touches it: the separating axis test of
// Akenine-Moller 2001 (the box's three axes, the triangle's normal, the nine products of an edge
// and an axis), without the clipped polygon's arrays, which a GPU thread keeps in slow local memory.
// A corner inside the box meets it without the thirteen axes.
CA_HD inline bool TriangleMeetsWidenedBox(const Triangle& t, const Aabb& box) {
    if (box.Contains(t.v0) || box.Contains(t.v1) || box.Contains(t.v2)) return true;
    constexpr float kSlack = 3.814697265625e-6f;  // 2^-18 of each magnitude
    const Vec3 c = box.Center();
    Vec3 h = box.Extent() * 0.5f;
    for (int a = 0; a < 3; ++a) h[a] += (fabsf(c[a]) + h[a]) * kSlack;
    const Vec3 v0 = t.v0 - c, v1 = t.v1 - c, v2 = t.v2 - c;
    // Separated along an axis when the corners' projections lie beyond the box's radius r.
    const auto apart = [](float p0, float p1, float p2, float r) {
        const float lo = p0 < p1 ? (p0 < p2 ? p0 : p2) : (p1 < p2 ? p1 : p2);
        const float hi = p0 > p1 ? (p0 > p2 ? p0 : p2) : (p1 > p2 ? p1 : p2);
        return lo > r || hi < -r;
    };
    if (apart(v0.x, v1.x, v2.x, h.x) || apart(v0.y, v1.y, v2.y, h.y) || apart(v0.z, v1.z, v2.z, h.z)) return false;
    // Along n, whose box radius is widened a little more. Written out edge by edge and axis by axis:
    // an array of the edges, or a unit axis set through operator[], would live in local memory.
    const auto radius = [&h](const Vec3& n) {
        return (h.x * fabsf(n.x) + h.y * fabsf(n.y) + h.z * fabsf(n.z)) * (1.0f + 64.0f * kSlack);
    };
    const auto separates = [&](const Vec3& n) { return apart(Dot(v0, n), Dot(v1, n), Dot(v2, n), radius(n)); };
    // The products of edge e and the box's axes: e x (1, 0, 0), e x (0, 1, 0), e x (0, 0, 1).
    const auto edge_separates = [&](const Vec3& e) {
        return separates(Vec3(0.0f, e.z, -e.y)) || separates(Vec3(-e.z, 0.0f, e.x)) || separates(Vec3(e.y, -e.x, 0.0f));
    };
    const Vec3 e0 = v1 - v0, e1 = v2 - v1, e2 = v0 - v2;
    if (edge_separates(e0) || edge_separates(e1) || edge_separates(e2)) return false;
    const Vec3 n = Cross(e0, e1);
    return !(fabsf(Dot(n, v0)) > radius(n));
}

}  // namespace caustica
