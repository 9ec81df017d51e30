// What happens at a mirror or glass surface, shared by photon tracing and the eye passes, so that
// photons and eye rays see the same physics.
#pragma once

#include "core/hd.h"
#include "core/vec.h"
#include "photon/scene_view.h"
#include "photon/specular.h"

namespace caustica {

// Both ways light can leave a specular surface point: the mirror direction and, at glass, the
// refracted one, with the share of the light each takes.
struct SpecularBranches {
    Vec3 reflected, refracted;  // unit; refracted is valid when reflectance < 1
    float reflectance;          // Fresnel's share of the reflection: 1 at mirrors, under total internal
                                // reflection, and where refraction would leave on the wrong side
    Rgb weight;                 // the factor on both branches: a mirror's tint, or the transmittance of
                                // the glass the ray travelled through
};

// The branches of direction d at a specular surface point. segment_length is the distance travelled
// to reach it: when the ray arrives from inside glass it travelled through the glass, which absorbs
// (Beer-Lambert). wavelength (nm) picks dispersive glass's index; 0 is light of all wavelengths (glass
// that disperses must not meet it: it takes a wavelength first). The eye passes may follow both
// branches (weights reflectance and 1 - reflectance); ScatterSpecular picks one.
CA_HD CA_INLINE SpecularBranches SplitSpecular(const SurfacePoint& p, Vec3 d, float segment_length,
                                               float wavelength = 0.0f) {
    const SurfaceMaterial& m = *p.material;
    const Vec3 n = p.shading_normal;
    SpecularBranches b;
    b.weight = Rgb(1.0f);
    b.reflectance = 1.0f;
    b.reflected = Reflect(d, n);
    // A shading normal far from the geometric one can reflect below the surface: fall back.
    if (Dot(b.reflected, p.geometric_normal) <= 0.0f) b.reflected = Reflect(d, p.geometric_normal);
    if (m.type == SurfaceType::Mirror) {
        b.weight = m.color;
        return b;
    }
    if (!p.entering) b.weight = Transmittance(m.absorption, segment_length);
    const float ior = m.IorAt(wavelength);
    const float eta = p.entering ? ior : 1.0f / ior;
    const float cos_i = Min(1.0f, Max(0.0f, -Dot(d, n)));
    if (Refract(d, n, eta, &b.refracted) && Dot(b.refracted, p.geometric_normal) < 0.0f)
        b.reflectance = FresnelDielectric(cos_i, eta);
    return b;
}

struct SpecularEvent {
    Vec3 direction;  // the continuing direction (unit)
    Rgb weight;      // the factor on the carried power or throughput
};

// Scatters direction d at a specular surface point into one branch: xi in [0, 1) chooses
// reflection with the Fresnel probability (Russian roulette, so the weight needs no Fresnel
// factor). Photon tracing uses it, and eye rays past the depth where they split.
CA_HD CA_INLINE SpecularEvent ScatterSpecular(const SurfacePoint& p, Vec3 d, float segment_length, float xi,
                                              float wavelength = 0.0f) {
    const SpecularBranches b = SplitSpecular(p, d, segment_length, wavelength);
    return {xi < b.reflectance ? b.reflected : b.refracted, b.weight};
}

}  // namespace caustica
