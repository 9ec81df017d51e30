// What happens at a mirror or glass surface, shared by photon tracing and the eye passes, so that
// photons and eye rays see the same physics.
#pragma once

#include "core/hd.h"
#include "core/vec.h"
#include "photon/scene_view.h"
#include "photon/specular.h"

namespace caustica {

struct SpecularEvent {
    Vec3 direction;  // the continuing direction (unit)
    Rgb weight;      // the factor on the carried power or throughput
};

// Scatters direction d at a specular surface point. segment_length is the distance travelled to
// reach it: when the ray arrives from inside glass it travelled through the glass, which absorbs
// (Beer-Lambert). At glass, xi in [0, 1) chooses reflection with the Fresnel probability (Russian
// roulette, so the weight needs no Fresnel factor); total internal reflection always reflects.
CA_HD CA_INLINE SpecularEvent ScatterSpecular(const SurfacePoint& p, Vec3 d, float segment_length, float xi) {
    const SurfaceMaterial& m = *p.material;
    const Vec3 n = p.shading_normal;
    SpecularEvent e;
    e.weight = Rgb(1.0f);
    Vec3 reflected = Reflect(d, n);
    // A shading normal far from the geometric one can reflect below the surface: fall back.
    if (Dot(reflected, p.geometric_normal) <= 0.0f) reflected = Reflect(d, p.geometric_normal);
    if (m.type == SurfaceType::Mirror) {
        e.direction = reflected;
        e.weight = m.color;
        return e;
    }
    if (!p.entering) e.weight = Transmittance(m.absorption, segment_length);
    const float eta = p.entering ? m.ior : 1.0f / m.ior;
    const float cos_i = Min(1.0f, Max(0.0f, -Dot(d, n)));
    Vec3 refracted;
    if (xi < FresnelDielectric(cos_i, eta) || !Refract(d, n, eta, &refracted) ||
        Dot(refracted, p.geometric_normal) >= 0.0f) {
        e.direction = reflected;
    } else {
        e.direction = refracted;
    }
    return e;
}

}  // namespace caustica
