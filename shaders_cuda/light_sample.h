// Direct light from one light at a diffuse point: the irradiance if unshadowed, and the shadow
// ray that decides whether it arrives. Shared by the shadow and shading passes. Area lights are
// sampled light.shadow_rays times a sample, stratified over the light: the i-th shadow ray of a
// (diffuse end, light) takes the i-th point of a rank-1 lattice shifted at random for that pair
// (a Cranley-Patterson rotation: each point is uniform, so the average is unbiased).
#pragma once

#include "core/hd.h"
#include "core/rng.h"
#include "core/vec.h"
#include "kdtree/triangle/ray.h"
#include "photon/light.h"
#include "photon/scene_view.h"
#include "shaders_cuda/eye_state.h"

namespace caustica {

struct LightSample {
    Rgb irradiance;  // W/m^2 on the surface, before shadowing (for an area light: one sample's
                     // estimate, the integrand over its probability)
    Ray shadow_ray;  // from the point toward the light, ending just before it
};

constexpr uint32_t kShadowPass = 8;

// The i-th of n points in the unit square for one (diffuse end, light) of a sample: the lattice
// (i / n, i g / n) with g near n / golden ratio^2, both coordinates shifted by the pair's random
// numbers (modulo 1). Each coordinate alone is stratified in n strata.
CA_HD CA_INLINE Vec2 ShadowSamplePoint(uint64_t seed, uint32_t sample, uint32_t end, uint32_t light, uint32_t lights,
                                       uint32_t i, uint32_t n) {
    Rng rng(seed, sample, kShadowPass, uint64_t(end) * lights + light);
    const float shift_u = rng.NextFloat(), shift_v = rng.NextFloat();
    const uint32_t g = n > 2 ? uint32_t(float(n) * 0.381966f + 0.5f) : 1u;
    const float u = float(i) / float(n) + shift_u, v = float((uint64_t(i) * g) % n) / float(n) + shift_v;
    // Kept below 1 where rounding would reach it.
    return Vec2(Min(u - floorf(u), 0.99999994f), Min(v - floorf(v), 0.99999994f));
}

// The light arriving at d from light, through the light point chosen by (a, b) in the unit square
// for area lights (point, spot and directional lights have one way to arrive: a and b are unused).
CA_HD CA_INLINE LightSample SampleLight(const LightSource& light, const DiffusePoint& d, float a, float b) {
    LightSample s;
    Vec3 wi;
    float distance = INFINITY;
    Vec3 target;  // the point the shadow ray ends at
    switch (light.kind) {
        case LightKind::Directional:
            wi = -light.direction;
            s.irradiance = light.power;
            break;
        case LightKind::Point:
        case LightKind::Spot: {
            target = light.position;
            const Vec3 to = target - d.position;
            distance = Length(to);
            wi = to / distance;
            s.irradiance = light.Intensity(-wi) / (distance * distance);
            break;
        }
        case LightKind::Rect:
        case LightKind::Disc: {
            // A point by area: E = L cos_light A / distance^2 (times cos at d, below).
            target = PointOnFlatLight(light, a, b);
            const Vec3 to = target - d.position;
            distance = Length(to);
            wi = to / distance;
            const float cos_light = -Dot(wi, light.direction);
            s.irradiance = cos_light > 0.0f ? light.Radiance() * (cos_light * light.Area() / (distance * distance))
                                            : Rgb(0.0f);
            break;
        }
        case LightKind::Sphere: {
            // A direction in the cone the sphere fills, uniform by solid angle: E = L * solid angle
            // (times cos at d, below).
            const Vec3 to_centre = light.position - d.position;
            const float centre_distance2 = LengthSquared(to_centre);
            const float sin2_max = light.radius * light.radius / centre_distance2;
            if (!(sin2_max < 1.0f)) {  // inside the light
                s.irradiance = Rgb(0.0f);
                s.shadow_ray = Ray(d.position, d.normal, 0.0f, 0.0f);
                return s;
            }
            const float cos_max = sqrtf(1.0f - sin2_max);
            const float one_minus_cos_max = sin2_max / (1.0f + cos_max);  // without cancellation
            const float cos_theta = 1.0f - a * one_minus_cos_max;
            const float sin_theta = sqrtf(Max(0.0f, 1.0f - cos_theta * cos_theta));
            const float phi = 2.0f * kLightPi * b;
            const float centre_distance = sqrtf(centre_distance2);
            const Vec3 axis = to_centre / centre_distance;
            Vec3 t, u;
            OrthonormalBasis(axis, &t, &u);
            wi = Normalize(axis * cos_theta + t * (sin_theta * cosf(phi)) + u * (sin_theta * sinf(phi)));
            // The near side of the sphere along wi.
            const float along = centre_distance * cos_theta;
            distance = along - sqrtf(Max(0.0f, light.radius * light.radius - centre_distance2 + along * along));
            target = d.position + wi * distance;
            s.irradiance = light.Radiance() * (2.0f * kLightPi * one_minus_cos_max);
            break;
        }
    }
    const float cos_theta = Dot(d.normal, wi);
    if (!(cos_theta > 0.0f) || Dot(d.offset_normal, wi) <= 0.0f || !(MaxComponent(s.irradiance) > 0.0f)) {
        s.irradiance = Rgb(0.0f);
        s.shadow_ray = Ray(d.position, wi, 0.0f, 0.0f);
        return s;
    }
    s.irradiance *= cos_theta;
    const Vec3 origin = OffsetOrigin(d.position, d.offset_normal, wi);
    s.shadow_ray = Ray(origin, wi, 0.0f, distance == INFINITY ? INFINITY : Length(target - origin) * (1.0f - 1e-4f));
    return s;
}

// Direct light at a diffuse point from one shadow ray per light (an area light's toward a point
// drawn from rng): where the light is not the frame's shadow pass's (the path tracer's vertices,
// final gathering's hits).
CA_HD CA_INLINE Rgb DirectIrradiance(const SceneView& scene, Span<const LightSource> lights, const DiffusePoint& d,
                                     Rng& rng) {
    Rgb sum(0.0f);
    for (size_t l = 0; l < lights.size(); ++l) {
        const float a = rng.NextFloat(), b = rng.NextFloat();
        const LightSample s = SampleLight(lights[l], d, a, b);
        if (MaxComponent(s.irradiance) > 0.0f && !scene.Occluded(s.shadow_ray)) sum += s.irradiance;
    }
    return sum;
}

}  // namespace caustica
