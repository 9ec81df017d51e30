// Scattering at diffuse (Lambertian) surfaces, shared by global photon tracing, final gathering and
// the path tracer, so that all three see the same physics: cosine-distributed directions and
// Russian roulette by albedo (Jensen 2001, "Realistic Image Synthesis Using Photon Mapping",
// section 5.2: a photon goes on with the probability of its surface's reflectance, so the stored
// photons keep their power and their number stays bounded).
#pragma once

#include "core/hd.h"
#include "core/rng.h"
#include "core/vec.h"
#include "photon/light.h"

namespace caustica {

// Diffuse bounces of a path (a global photon's, the path tracer's) before it stops whatever its
// albedo says: Russian roulette ends nearly all paths long before (an albedo of 0.8 leaves
// 0.8^32 = 0.08% of the power here).
constexpr int kMaxDiffuseBounces = 32;

// A direction about unit normal n with density cos(theta) / pi, for (a, b) uniform in the unit
// square: the concentric disc lifted onto the hemisphere (Malley's method).
CA_HD CA_INLINE Vec3 CosineDirection(Vec3 n, float a, float b) {
    const Vec2 d = ConcentricDisc(a, b);
    const float z = sqrtf(Max(0.0f, 1.0f - d.x * d.x - d.y * d.y));
    Vec3 t, s;
    OrthonormalBasis(n, &t, &s);
    return Normalize(t * d.x + s * d.y + n * z);
}

// Russian roulette by albedo: the path goes on with probability q, the largest channel of the albedo
// (at most 1), when xi < q, and then carries albedo / q. Cosine sampling cancels the cosine and
// the 1 / pi of the BRDF, so albedo / q is the whole factor of the bounce.
CA_HD CA_INLINE bool SurvivesDiffuse(Rgb albedo, float xi, Rgb* factor) {
    const float q = Min(1.0f, MaxComponent(albedo));
    if (!(xi < q)) return false;
    *factor = albedo / q;
    return true;
}

// A cosine direction about the shading normal that also leaves on the side of the geometric one,
// or false where an interpolated normal would send it below the surface (the path ends there; the
// energy lost is that of the few directions between the two tangent planes).
CA_HD CA_INLINE bool DiffuseDirection(Vec3 shading_normal, Vec3 geometric_normal, float a, float b, Vec3* out) {
    *out = CosineDirection(shading_normal, a, b);
    return Dot(*out, geometric_normal) > 0.0f;
}

// One diffuse bounce of a path: Russian roulette, then the direction (three random numbers);
// false where the path ends, else *factor is what its weight takes on.
CA_HD CA_INLINE bool ScatterDiffuse(Rgb albedo, Vec3 shading_normal, Vec3 geometric_normal, Rng& rng, Vec3* direction,
                                    Rgb* factor) {
    if (!SurvivesDiffuse(albedo, rng.NextFloat(), factor)) return false;
    const float a = rng.NextFloat(), b = rng.NextFloat();
    return DiffuseDirection(shading_normal, geometric_normal, a, b, direction);
}

}  // namespace caustica
