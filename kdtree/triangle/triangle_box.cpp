#include "kdtree/triangle/triangle_box.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace caustica {
namespace {

struct DVec {
    double v[3];
    double operator[](int i) const { return v[i]; }
    double& operator[](int i) { return v[i]; }
};

DVec ToD(Vec3 p) { return {{double(p.x), double(p.y), double(p.z)}}; }
DVec Sub(const DVec& a, const DVec& b) { return {{a[0] - b[0], a[1] - b[1], a[2] - b[2]}}; }
DVec Cross(const DVec& a, const DVec& b) {
    return {{a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]}};
}
double Dot(const DVec& a, const DVec& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

// A convex polygon with room for a triangle clipped by six planes.
struct Polygon {
    std::array<DVec, 9> p;
    int n = 0;
};

// Keeps the part of the polygon with sign * (x[axis] - bound) <= 0 (sign +1: below the bound).
Polygon ClipAgainstPlane(const Polygon& in, int axis, double bound, double sign) {
    Polygon out;
    for (int i = 0; i < in.n; ++i) {
        const DVec& a = in.p[i];
        const DVec& b = in.p[(i + 1) % in.n];
        const double da = sign * (a[axis] - bound), db = sign * (b[axis] - bound);
        if (da <= 0.0) out.p[out.n++] = a;
        if ((da < 0.0 && db > 0.0) || (da > 0.0 && db < 0.0)) {
            const double s = da / (da - db);
            DVec x{{a[0] + (b[0] - a[0]) * s, a[1] + (b[1] - a[1]) * s, a[2] + (b[2] - a[2]) * s}};
            x[axis] = bound;  // exactly on the plane
            out.p[out.n++] = x;
        }
    }
    return out;
}

// The largest float <= x and the smallest float >= x.
float RoundDown(double x) {
    float f = float(x);
    if (double(f) > x) f = std::nextafter(f, -INFINITY);
    return f;
}
float RoundUp(double x) {
    float f = float(x);
    if (double(f) < x) f = std::nextafter(f, INFINITY);
    return f;
}

}  // namespace

Aabb ClippedTriangleBounds(const Triangle& triangle, const Aabb& box) {
    Polygon poly;
    poly.p[0] = ToD(triangle.v0);
    poly.p[1] = ToD(triangle.v1);
    poly.p[2] = ToD(triangle.v2);
    poly.n = 3;
    for (int axis = 0; axis < 3 && poly.n > 0; ++axis) {
        poly = ClipAgainstPlane(poly, axis, double(box.hi[axis]), 1.0);
        if (poly.n > 0) poly = ClipAgainstPlane(poly, axis, double(box.lo[axis]), -1.0);
    }
    if (poly.n == 0) return Aabb();
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < poly.n; ++i)
        for (int a = 0; a < 3; ++a) {
            lo[a] = std::min(lo[a], poly.p[i][a]);
            hi[a] = std::max(hi[a], poly.p[i][a]);
        }
    Aabb out(Vec3(RoundDown(lo[0]), RoundDown(lo[1]), RoundDown(lo[2])),
             Vec3(RoundUp(hi[0]), RoundUp(hi[1]), RoundUp(hi[2])));
    return out.Intersect(box);
}

bool TriangleOverlapsBox(const Triangle& triangle, const Aabb& box) {
    if (box.Empty()) return false;
    const DVec c{{(double(box.lo.x) + box.hi.x) * 0.5, (double(box.lo.y) + box.hi.y) * 0.5,
                  (double(box.lo.z) + box.hi.z) * 0.5}};
    const DVec h{{(double(box.hi.x) - box.lo.x) * 0.5, (double(box.hi.y) - box.lo.y) * 0.5,
                  (double(box.hi.z) - box.lo.z) * 0.5}};
    // The triangle relative to the box centre.
    const DVec v[3] = {Sub(ToD(triangle.v0), c), Sub(ToD(triangle.v1), c), Sub(ToD(triangle.v2), c)};
    // True when axis separates the triangle from the box (projections do not meet).
    const auto separates = [&](const DVec& axis) {
        const double p0 = Dot(v[0], axis), p1 = Dot(v[1], axis), p2 = Dot(v[2], axis);
        const double r = h[0] * std::fabs(axis[0]) + h[1] * std::fabs(axis[1]) + h[2] * std::fabs(axis[2]);
        return std::min({p0, p1, p2}) > r || std::max({p0, p1, p2}) < -r;
    };
    // The box's face normals.
    for (int a = 0; a < 3; ++a) {
        DVec axis{{0.0, 0.0, 0.0}};
        axis[a] = 1.0;
        if (separates(axis)) return false;
    }
    const DVec e[3] = {Sub(v[1], v[0]), Sub(v[2], v[1]), Sub(v[0], v[2])};
    // The triangle's normal (zero for a degenerate triangle: then it separates nothing).
    if (separates(Cross(e[0], e[1]))) return false;
    // Edge x box-axis cross products.
    for (int i = 0; i < 3; ++i)
        for (int a = 0; a < 3; ++a) {
            DVec unit{{0.0, 0.0, 0.0}};
            unit[a] = 1.0;
            if (separates(Cross(e[i], unit))) return false;
        }
    return true;
}

}  // namespace caustica
