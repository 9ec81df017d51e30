// Small vector math shared by host and device code: 3-vectors, 2-vectors, colours, boxes.
#pragma once

#include <cmath>
#include <math.h>  // isfinite, isinf in the global namespace, as device code has them
#include <cstdint>

#include "core/hd.h"

namespace caustica {

struct Vec2 {
    float x = 0, y = 0;
    CA_HD Vec2() = default;
    CA_HD Vec2(float x_, float y_) : x(x_), y(y_) {}
};

struct Vec3 {
    float x = 0, y = 0, z = 0;
    CA_HD Vec3() = default;
    CA_HD constexpr Vec3(float x_, float y_, float z_) : x(x_), y(y_), z(z_) {}
    CA_HD explicit constexpr Vec3(float s) : x(s), y(s), z(s) {}
    CA_HD float operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }
    CA_HD float& operator[](int i) { return i == 0 ? x : (i == 1 ? y : z); }
    // This vector with component i set to v, by selects: a store through operator[] with an i
    // known only at run time makes a GPU thread keep the vector in slow local memory.
    CA_HD Vec3 With(int i, float v) const { return {i == 0 ? v : x, i == 1 ? v : y, i == 2 ? v : z}; }
};

// Colours are linear RGB triples with the same arithmetic as vectors.
using Rgb = Vec3;

CA_HD CA_INLINE Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
CA_HD CA_INLINE Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
CA_HD CA_INLINE Vec3 operator-(Vec3 a) { return {-a.x, -a.y, -a.z}; }
CA_HD CA_INLINE Vec3 operator*(Vec3 a, Vec3 b) { return {a.x * b.x, a.y * b.y, a.z * b.z}; }
CA_HD CA_INLINE Vec3 operator*(Vec3 a, float s) { return {a.x * s, a.y * s, a.z * s}; }
CA_HD CA_INLINE Vec3 operator*(float s, Vec3 a) { return a * s; }
CA_HD CA_INLINE Vec3 operator/(Vec3 a, float s) { return a * (1.0f / s); }
CA_HD CA_INLINE Vec3& operator+=(Vec3& a, Vec3 b) { return a = a + b; }
CA_HD CA_INLINE Vec3& operator-=(Vec3& a, Vec3 b) { return a = a - b; }
CA_HD CA_INLINE Vec3& operator*=(Vec3& a, Vec3 b) { return a = a * b; }
CA_HD CA_INLINE Vec3& operator*=(Vec3& a, float s) { return a = a * s; }
CA_HD CA_INLINE bool operator==(Vec3 a, Vec3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
CA_HD CA_INLINE bool operator!=(Vec3 a, Vec3 b) { return !(a == b); }

CA_HD CA_INLINE float Dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
CA_HD CA_INLINE Vec3 Cross(Vec3 a, Vec3 b) {
    return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
CA_HD CA_INLINE float LengthSquared(Vec3 a) { return Dot(a, a); }
CA_HD CA_INLINE float Length(Vec3 a) { return sqrtf(Dot(a, a)); }
CA_HD CA_INLINE Vec3 Normalize(Vec3 a) { return a * (1.0f / Length(a)); }
// fminf and fmaxf, inlined on the host: g++ calls glibc for them (no single SSE instruction returns
// the other operand where one is NaN), and those calls took 14% of a CPU frame (ray-box slabs and
// the KNN's box distances). Same answers: the smaller (larger) operand, the other one where one is
// NaN; where both are zeros, either zero (IEEE 754 leaves the sign open, and glibc and the GPU
// already differ there, so no code depends on it). The GPU keeps its own instructions.
CA_HD CA_INLINE float Min(float x, float y) {
#if CA_DEVICE_CODE
    return fminf(x, y);
#else
    return (x < y || y != y) ? x : y;
#endif
}
CA_HD CA_INLINE float Max(float x, float y) {
#if CA_DEVICE_CODE
    return fmaxf(x, y);
#else
    return (x > y || y != y) ? x : y;
#endif
}
CA_HD CA_INLINE Vec3 Min(Vec3 a, Vec3 b) { return {Min(a.x, b.x), Min(a.y, b.y), Min(a.z, b.z)}; }
CA_HD CA_INLINE Vec3 Max(Vec3 a, Vec3 b) { return {Max(a.x, b.x), Max(a.y, b.y), Max(a.z, b.z)}; }
CA_HD CA_INLINE float MaxComponent(Vec3 a) { return Max(a.x, Max(a.y, a.z)); }
CA_HD CA_INLINE float Luminance(Rgb c) { return 0.2126f * c.x + 0.7152f * c.y + 0.0722f * c.z; }
#if defined(__CUDACC__)
CA_HD CA_INLINE bool IsFinite(Vec3 a) { return isfinite(a.x) && isfinite(a.y) && isfinite(a.z); }
#else
// g++'s <cmath> declares isfinite in std only.
CA_HD CA_INLINE bool IsFinite(Vec3 a) { return std::isfinite(a.x) && std::isfinite(a.y) && std::isfinite(a.z); }
#endif
CA_HD CA_INLINE Vec3 Lerp(Vec3 a, Vec3 b, float t) { return a * (1.0f - t) + b * t; }

// Mirror reflection of direction d about normal n (both unit length).
CA_HD CA_INLINE Vec3 Reflect(Vec3 d, Vec3 n) { return d - n * (2.0f * Dot(d, n)); }

// An orthonormal basis around unit vector n (Duff et al. 2017, "Building an Orthonormal Basis,
// Revisited").
CA_HD CA_INLINE void OrthonormalBasis(Vec3 n, Vec3* t, Vec3* b) {
    const float sign = copysignf(1.0f, n.z);
    const float a = -1.0f / (sign + n.z);
    const float c = n.x * n.y * a;
    *t = Vec3(1.0f + sign * n.x * n.x * a, sign * c, -sign * n.x);
    *b = Vec3(c, sign + n.y * n.y * a, -n.y);
}

// An axis-aligned box; the default box is empty (lo > hi) so that Extend starts from nothing.
struct Aabb {
    Vec3 lo{INFINITY, INFINITY, INFINITY};
    Vec3 hi{-INFINITY, -INFINITY, -INFINITY};

    CA_HD Aabb() = default;
    CA_HD Aabb(Vec3 lo_, Vec3 hi_) : lo(lo_), hi(hi_) {}
    CA_HD bool Empty() const { return lo.x > hi.x || lo.y > hi.y || lo.z > hi.z; }
    CA_HD void Extend(Vec3 p) { lo = Min(lo, p); hi = Max(hi, p); }
    CA_HD void Extend(const Aabb& b) { lo = Min(lo, b.lo); hi = Max(hi, b.hi); }
    CA_HD Vec3 Extent() const { return hi - lo; }
    CA_HD Vec3 Center() const { return (lo + hi) * 0.5f; }
    CA_HD int LongestAxis() const {
        const Vec3 e = Extent();
        return (e.x >= e.y && e.x >= e.z) ? 0 : (e.y >= e.z ? 1 : 2);
    }
    CA_HD float SurfaceArea() const {
        if (Empty()) return 0.0f;
        const Vec3 e = Extent();
        return 2.0f * (e.x * e.y + e.y * e.z + e.z * e.x);
    }
    CA_HD bool Contains(Vec3 p) const {
        return p.x >= lo.x && p.x <= hi.x && p.y >= lo.y && p.y <= hi.y && p.z >= lo.z && p.z <= hi.z;
    }
    CA_HD Aabb Intersect(const Aabb& b) const { return Aabb(Max(lo, b.lo), Min(hi, b.hi)); }
    // The part below (side 0) or above (side 1) the plane at p on axis: a kd-tree cell's child.
    CA_HD Aabb Half(int axis, float p, int side) const {
        return side == 0 ? Aabb(lo, hi.With(axis, p)) : Aabb(lo.With(axis, p), hi);
    }
};

}  // namespace caustica
