// Reflection and refraction at smooth surfaces, shared by photon tracing and the eye passes.
#pragma once

#include "core/hd.h"
#include "core/vec.h"

namespace caustica {

// Fresnel reflectance of a smooth dielectric boundary for unpolarised light (the exact formula,
// e.g. Pharr, Jakob, Humphreys, "Physically Based Rendering", 4th ed., 9.3).
// cos_i: cosine of the incident angle (positive); eta: n_transmitted / n_incident.
CA_HD CA_INLINE float FresnelDielectric(float cos_i, float eta) {
    const float sin2_t = (1.0f - cos_i * cos_i) / (eta * eta);
    if (sin2_t >= 1.0f) return 1.0f;  // total internal reflection
    const float cos_t = sqrtf(1.0f - sin2_t);
    const float r_parallel = (eta * cos_i - cos_t) / (eta * cos_i + cos_t);
    const float r_perpendicular = (cos_i - eta * cos_t) / (cos_i + eta * cos_t);
    return 0.5f * (r_parallel * r_parallel + r_perpendicular * r_perpendicular);
}

// Refracts unit direction d through unit normal n facing against d (Dot(d, n) < 0);
// eta = n_transmitted / n_incident. Returns false on total internal reflection.
CA_HD CA_INLINE bool Refract(Vec3 d, Vec3 n, float eta, Vec3* out) {
    const float cos_i = -Dot(d, n);
    const float sin2_t = (1.0f - cos_i * cos_i) / (eta * eta);
    if (sin2_t >= 1.0f) return false;
    const float cos_t = sqrtf(1.0f - sin2_t);
    *out = Normalize(d / eta + n * (cos_i / eta - cos_t));
    return true;
}

// Beer-Lambert transmittance over a distance through a medium with absorption coefficients.
CA_HD CA_INLINE Rgb Transmittance(Rgb absorption, float distance) {
    return Rgb(expf(-absorption.x * distance), expf(-absorption.y * distance), expf(-absorption.z * distance));
}

}  // namespace caustica
