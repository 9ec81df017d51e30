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
// result is widened by a few units in the last place so that rounding in the clipped vertices
// never drops a part of the triangle; callers intersect it with the box they clip against. In
// float, for the BFS builder on either backend; the exact builder's host version in double is
// triangle_box.h's ClippedTriangleBounds (one name for both let the linker pick either for both).
CA_HD inline Aabb WidenedClippedTriangleBounds(const Triangle& t, const Aabb& box) {
    constexpr int kMaxVertices = 9;  // a triangle clipped by six planes has at most 3 + 6 corners
    Vec3 a[kMaxVertices], b[kMaxVertices];
    a[0] = t.v0;
    a[1] = t.v1;
    a[2] = t.v2;
    int n = 3;
    Vec3* in = a;
    Vec3* out = b;
    for (int plane = 0; plane < 6 && n > 0; ++plane) {
        const int axis = plane >> 1;
        const bool keep_above = (plane & 1) == 0;  // even planes: box.lo (keep x >= lo); odd: box.hi
        const float bound = keep_above ? box.lo[axis] : box.hi[axis];
        // A plane that keeps every corner would copy the polygon as it is: skipped, as most are (a
        // triangle seldom crosses more than one or two of a cell's planes), which on the GPU spares
        // the copies through local memory.
        bool keeps_all = true;
        for (int i = 0; i < n; ++i)
            keeps_all = keeps_all && (keep_above ? in[i][axis] - bound : bound - in[i][axis]) >= 0.0f;
        if (keeps_all) continue;
        int m = 0;
        for (int i = 0; i < n; ++i) {
            const Vec3 p = in[i];
            const Vec3 q = in[(i + 1) % n];
            const float dp = keep_above ? p[axis] - bound : bound - p[axis];
            const float dq = keep_above ? q[axis] - bound : bound - q[axis];
            if (dp >= 0.0f) out[m++] = p;
            if ((dp >= 0.0f) != (dq >= 0.0f)) {
                // The edge crosses the plane: add the crossing, snapped onto the plane.
                const float s = dp / (dp - dq);
                Vec3 x = p + (q - p) * s;
                x[axis] = bound;
                out[m++] = x;
            }
        }
        n = m;
        Vec3* swap = in;
        in = out;
        out = swap;
    }
    // Min and max by comparison rather than fminf/fmaxf, whose choice between -0 and +0 differs
    // between host and device: the CPU and GPU builds must agree bit for bit.
    Aabb result;
    for (int i = 0; i < n; ++i)
        for (int axis = 0; axis < 3; ++axis) {
            const float x = in[i][axis];
            if (x < result.lo[axis]) result.lo[axis] = x;
            if (x > result.hi[axis]) result.hi[axis] = x;
        }
    if (n == 0) return result;
    // Widen by about 2^-20 of each coordinate's magnitude plus the extent, far above the rounding
    // of the crossings above and far below anything that changes a split.
    for (int axis = 0; axis < 3; ++axis) {
        const float slack = (fabsf(result.lo[axis]) + fabsf(result.hi[axis])) * 9.5367431640625e-7f;
        result.lo[axis] -= slack;
        result.hi[axis] += slack;
    }
    return result;
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
    for (int a = 0; a < 3; ++a)
        if (apart(v0[a], v1[a], v2[a], h[a])) return false;
    const Vec3 edges[3] = {v1 - v0, v2 - v1, v0 - v2};
    for (const Vec3& e : edges)
        for (int a = 0; a < 3; ++a) {
            Vec3 unit(0.0f, 0.0f, 0.0f);
            unit[a] = 1.0f;
            const Vec3 n = Cross(e, unit);
            const float r = (h.x * fabsf(n.x) + h.y * fabsf(n.y) + h.z * fabsf(n.z)) * (1.0f + 64.0f * kSlack);
            if (apart(Dot(v0, n), Dot(v1, n), Dot(v2, n), r)) return false;
        }
    const Vec3 n = Cross(edges[0], edges[1]);
    const float r = (h.x * fabsf(n.x) + h.y * fabsf(n.y) + h.z * fabsf(n.z)) * (1.0f + 64.0f * kSlack);
    return !(fabsf(Dot(n, v0)) > r);
}

}  // namespace caustica
