// Direct light from one light at a diffuse point: the irradiance if unshadowed, and the shadow
// ray that decides whether it arrives. Shared by the shadow and shading passes.
#pragma once

#include "core/hd.h"
#include "core/vec.h"
#include "kdtree/triangle/ray.h"
#include "photon/light.h"
#include "photon/scene_view.h"
#include "shaders_cuda/eye_state.h"

namespace caustica {

struct LightSample {
    Rgb irradiance;  // W/m^2 on the surface, before shadowing
    Ray shadow_ray;  // from the point toward the light, ending just before it
};

CA_HD CA_INLINE LightSample SampleLight(const LightSource& light, const DiffusePoint& d) {
    LightSample s;
    Vec3 wi;
    float distance = INFINITY;
    if (light.kind == LightKind::Directional) {
        wi = -light.direction;
        s.irradiance = light.power;
    } else {
        const Vec3 to = light.position - d.position;
        distance = Length(to);
        wi = to / distance;
        s.irradiance = light.Intensity(-wi) / (distance * distance);
    }
    const float cos_theta = Dot(d.normal, wi);
    if (!(cos_theta > 0.0f) || Dot(d.offset_normal, wi) <= 0.0f) {
        s.irradiance = Rgb(0.0f);
        s.shadow_ray = Ray(d.position, wi, 0.0f, 0.0f);
        return s;
    }
    s.irradiance *= cos_theta;
    const Vec3 origin = OffsetOrigin(d.position, d.offset_normal, wi);
    s.shadow_ray = Ray(origin, wi, 0.0f, distance == INFINITY ? INFINITY : Length(light.position - origin) * (1.0f - 1e-4f));
    return s;
}

}  // namespace caustica
