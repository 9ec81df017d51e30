// Lights as photon emission and shading see them: one tagged type (point, spot, directional, and
// the area lights rect, disc and sphere), with the sampling of points on an area light's surface
// that shadow rays (light_sample.h) and photon emission (projection_map.h) share.
#pragma once

#include <cstdint>

#include "core/hd.h"
#include "core/span.h"
#include "core/vec.h"
#include "kdtree/triangle/ray.h"

namespace caustica {

enum class LightKind : uint8_t { Point, Spot, Directional, Rect, Disc, Sphere };

constexpr float kLightPi = 3.14159265358979f;

struct LightSource {
    LightKind kind = LightKind::Point;
    Vec3 position;                 // point, spot; the area lights' centre
    Vec3 direction{0, -1, 0};      // spot axis, the direction directional light travels, or the way a
                                   // rect or disc light faces (unit)
    Rgb power{100, 100, 100};      // point/spot: radiant flux (W) over the whole sphere; rect, disc: the
                                   // power of a point light that shines as brightly straight ahead
                                   // (intensity power / 4 pi along direction, falling with the cosine:
                                   // a Lambertian emitter, power / 4 in all); sphere: its flux;
                                   // directional: irradiance (W/m^2) on a plane facing it
    float cos_inner = 1.0f;        // spot: full intensity inside this cone
    float cos_outer = -1.0f;       // spot: no light outside this cone
    Vec3 half_u, half_v;           // rect: half its width and height along its plane; disc: its radius
                                   // along two axes of its plane (perpendicular)
    float radius = 0.0f;           // disc, sphere
    uint32_t shadow_rays = 1;      // per diffuse point and sample: 1, or an area light's shadow_samples

    CA_HD bool IsArea() const {
        return kind == LightKind::Rect || kind == LightKind::Disc || kind == LightKind::Sphere;
    }

    CA_HD float Area() const {
        switch (kind) {
            case LightKind::Rect: return 4.0f * Length(half_u) * Length(half_v);
            case LightKind::Disc: return kLightPi * radius * radius;
            case LightKind::Sphere: return 4.0f * kLightPi * radius * radius;
            default: return 0.0f;
        }
    }

    // The radius of a sphere about position that holds the light.
    CA_HD float BoundingRadius() const {
        return kind == LightKind::Rect ? Length(half_u + half_v) : (IsArea() ? radius : 0.0f);
    }

    // An area light's radiance (W/m^2/sr), the same at every point and toward every direction it
    // emits in: its intensity straight ahead over its area (a sphere's: over its cross-section).
    CA_HD Rgb Radiance() const {
        const float facing = kind == LightKind::Sphere ? kLightPi * radius * radius : Area();
        return power * (1.0f / (4.0f * kLightPi * facing));
    }

    // Radiant intensity (W/sr) toward unit direction w from the light (not directional).
    CA_HD Rgb Intensity(Vec3 w) const {
        const Rgb i = power * (1.0f / (4.0f * kLightPi));
        switch (kind) {
            case LightKind::Spot: return i * SpotFalloff(Dot(w, direction));
            case LightKind::Rect:
            case LightKind::Disc: return i * Max(0.0f, Dot(w, direction));
            default: return i;
        }
    }
    // Smooth falloff from the inner to the outer cone (a smoothstep in the cosine).
    CA_HD float SpotFalloff(float cos_angle) const {
        if (cos_angle >= cos_inner) return 1.0f;
        if (cos_angle <= cos_outer) return 0.0f;
        const float t = (cos_angle - cos_outer) / (cos_inner - cos_outer);
        return t * t * (3.0f - 2.0f * t);
    }
};

// Every field: a frame whose lights equal the last frame's keeps their projection maps.
inline bool operator==(const LightSource& a, const LightSource& b) {
    return a.kind == b.kind && a.position == b.position && a.direction == b.direction && a.power == b.power &&
           a.cos_inner == b.cos_inner && a.cos_outer == b.cos_outer && a.half_u == b.half_u && a.half_v == b.half_v &&
           a.radius == b.radius && a.shadow_rays == b.shadow_rays;
}

// Shirley and Chiu's concentric map of the unit square onto the unit disc: equal areas go to equal
// areas, and strata stay compact.
CA_HD CA_INLINE Vec2 ConcentricDisc(float a, float b) {
    const float x = 2.0f * a - 1.0f, y = 2.0f * b - 1.0f;
    if (x == 0.0f && y == 0.0f) return Vec2(0.0f, 0.0f);
    float r, phi;
    if (fabsf(x) > fabsf(y)) {
        r = x;
        phi = (kLightPi / 4.0f) * (y / x);
    } else {
        r = y;
        phi = kLightPi / 2.0f - (kLightPi / 4.0f) * (x / y);
    }
    return Vec2(r * cosf(phi), r * sinf(phi));
}

// A point on a rect or disc light, uniform by area for (a, b) uniform in the unit square.
CA_HD CA_INLINE Vec3 PointOnFlatLight(const LightSource& light, float a, float b) {
    if (light.kind == LightKind::Rect)
        return light.position + light.half_u * (2.0f * a - 1.0f) + light.half_v * (2.0f * b - 1.0f);
    const Vec2 p = ConcentricDisc(a, b);
    return light.position + light.half_u * p.x + light.half_v * p.y;
}

// Where a ray meets an area light's emitting surface, from the side it emits to, before max_t;
// 0 when it does not. Lights are not in the triangle tree: they block no ray (shadow rays and
// photons go through them); eye rays see them.
CA_HD CA_INLINE float HitAreaLight(const LightSource& light, const Ray& ray, float max_t) {
    if (light.kind == LightKind::Sphere) {
        const Vec3 to = ray.origin - light.position;
        const float b = Dot(to, ray.direction), c = LengthSquared(to) - light.radius * light.radius;
        if (c <= 0.0f) return 0.0f;  // from inside: its inner side emits nothing
        const float disc = b * b - c;
        if (disc < 0.0f) return 0.0f;
        const float t = -b - sqrtf(disc);
        return t > 0.0f && t < max_t ? t : 0.0f;
    }
    const float facing = Dot(ray.direction, light.direction);
    if (!(facing < 0.0f)) return 0.0f;  // from behind, or along its plane
    const float t = Dot(light.position - ray.origin, light.direction) / facing;
    if (!(t > 0.0f && t < max_t)) return 0.0f;
    const Vec3 p = ray.At(t) - light.position;
    if (light.kind == LightKind::Rect) {
        const float u = Dot(p, light.half_u) / LengthSquared(light.half_u);
        const float v = Dot(p, light.half_v) / LengthSquared(light.half_v);
        return fabsf(u) <= 1.0f && fabsf(v) <= 1.0f ? t : 0.0f;
    }
    return LengthSquared(p) <= light.radius * light.radius ? t : 0.0f;
}

// The area light whose emitting surface the ray meets first, before max_t, or -1.
CA_HD CA_INLINE int FirstAreaLightHit(Span<const LightSource> lights, const Ray& ray, float max_t) {
    int seen = -1;
    for (size_t l = 0; l < lights.size(); ++l) {
        if (!lights[l].IsArea()) continue;
        const float t = HitAreaLight(lights[l], ray, max_t);
        if (t > 0.0f) {
            max_t = t;
            seen = int(l);
        }
    }
    return seen;
}

}  // namespace caustica
