// Watertight ray-triangle intersection (Woop, Benthin and Wald 2013, "Watertight Ray/Triangle
// Intersection", JCGT 2(1)): the ray is sheared so that it points along +z, and the 2D edge
// functions are evaluated in that frame; an edge shared by two triangles gets the same edge
// function value, with opposite signs, from both, so a ray through a shared edge or vertex hits
// at least one of them. Edge functions that round to zero are recomputed in double, as the paper
// does. Backfaces are hit too.
//
// Every operation rounds explicitly (no fused multiply-add), so the CPU and the GPU compute
// bit-identical t, u and v, and tree traversal on either backend agrees exactly with brute force.
#pragma once

#include "core/hd.h"
#include "core/vec.h"
#include "kdtree/triangle/ray.h"
#include "kdtree/triangle/triangle.h"

namespace caustica {

namespace exact_rounding {
// Single operations that nvcc may not contract into fused multiply-adds.
#if CA_DEVICE_CODE
CA_HD CA_INLINE float Mul(float a, float b) { return __fmul_rn(a, b); }
CA_HD CA_INLINE float Add(float a, float b) { return __fadd_rn(a, b); }
CA_HD CA_INLINE float Sub(float a, float b) { return __fsub_rn(a, b); }
CA_HD CA_INLINE double Mul(double a, double b) { return __dmul_rn(a, b); }
CA_HD CA_INLINE double Sub(double a, double b) { return __dsub_rn(a, b); }
#else
CA_HD CA_INLINE float Mul(float a, float b) { return a * b; }
CA_HD CA_INLINE float Add(float a, float b) { return a + b; }
CA_HD CA_INLINE float Sub(float a, float b) { return a - b; }
CA_HD CA_INLINE double Mul(double a, double b) { return a * b; }
CA_HD CA_INLINE double Sub(double a, double b) { return a - b; }
#endif
}  // namespace exact_rounding

// The per-ray part of the test (Woop et al. 2013: dominant axis, winding-preserving axis swap, shear).
struct WatertightRay {
    Vec3 origin;
    int kx, ky, kz;    // kz: the direction's dominant axis; kx, ky: the others, in winding order
    float sx, sy, sz;  // the shear that maps the direction to +z

    CA_HD explicit WatertightRay(const Ray& ray) : origin(ray.origin) {
        const Vec3 d = ray.direction;
        const float ax = fabsf(d.x), ay = fabsf(d.y), az = fabsf(d.z);
        kz = (ax >= ay && ax >= az) ? 0 : (ay >= az ? 1 : 2);
        kx = kz == 2 ? 0 : kz + 1;
        ky = kx == 2 ? 0 : kx + 1;
        // Swapping kx and ky keeps the triangles' winding for a direction along -kz.
        if (d[kz] < 0.0f) {
            const int k = kx;
            kx = ky;
            ky = k;
        }
        sx = d[kx] / d[kz];
        sy = d[ky] / d[kz];
        sz = 1.0f / d[kz];
    }
};

// Whether the line of the ray meets the triangle; on success t (unclipped: the caller checks the
// ray's range) and the barycentric weights u (of v1) and v (of v2).
CA_HD CA_INLINE bool IntersectTriangle(const WatertightRay& r, const Triangle& tri, float* t, float* u, float* v) {
    using namespace exact_rounding;
    const Vec3 a = tri.v0 - r.origin, b = tri.v1 - r.origin, c = tri.v2 - r.origin;
    const float ax = Sub(a[r.kx], Mul(r.sx, a[r.kz])), ay = Sub(a[r.ky], Mul(r.sy, a[r.kz]));
    const float bx = Sub(b[r.kx], Mul(r.sx, b[r.kz])), by = Sub(b[r.ky], Mul(r.sy, b[r.kz]));
    const float cx = Sub(c[r.kx], Mul(r.sx, c[r.kz])), cy = Sub(c[r.ky], Mul(r.sy, c[r.kz]));
    float eu = Sub(Mul(cx, by), Mul(cy, bx));
    float ev = Sub(Mul(ax, cy), Mul(ay, cx));
    float ew = Sub(Mul(bx, ay), Mul(by, ax));
    if (eu == 0.0f || ev == 0.0f || ew == 0.0f) {
        eu = float(Sub(Mul(double(cx), double(by)), Mul(double(cy), double(bx))));
        ev = float(Sub(Mul(double(ax), double(cy)), Mul(double(ay), double(cx))));
        ew = float(Sub(Mul(double(bx), double(ay)), Mul(double(by), double(ax))));
    }
    if ((eu < 0.0f || ev < 0.0f || ew < 0.0f) && (eu > 0.0f || ev > 0.0f || ew > 0.0f)) return false;
    const float det = Add(Add(eu, ev), ew);
    if (det == 0.0f) return false;
    const float az = Mul(r.sz, a[r.kz]), bz = Mul(r.sz, b[r.kz]), cz = Mul(r.sz, c[r.kz]);
    const float tt = Add(Add(Mul(eu, az), Mul(ev, bz)), Mul(ew, cz));
    const float inv_det = 1.0f / det;
    *t = Mul(tt, inv_det);
    *u = Mul(ev, inv_det);
    *v = Mul(ew, inv_det);
    return true;
}

}  // namespace caustica
