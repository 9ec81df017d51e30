#include "renderer/bench/ray_sets.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/rng.h"
#include "photon/scene_view.h"

namespace caustica {
namespace {

// The box's centre and half diagonal (at least a tiny size for degenerate boxes).
void CentreAndRadius(const Aabb& scene, Vec3* centre, float* radius) {
    if (scene.Empty()) {
        *centre = Vec3(0.0f);
        *radius = 1.0f;
        return;
    }
    *centre = scene.Center();
    *radius = std::max(0.5f * Length(scene.Extent()), 1e-6f);
}

}  // namespace

std::vector<Ray> CameraRays(const Aabb& scene, int width, int height) {
    CA_CHECK(width > 0 && height > 0);
    Vec3 centre;
    float radius;
    CentreAndRadius(scene, &centre, &radius);
    const float fov = 45.0f * 3.14159265f / 180.0f;
    // Framed so that the box's largest side about fills the image height (most rays hit
    // something), from outside the box's bounding sphere.
    const float half_side = scene.Empty() ? radius : std::max(0.5f * MaxComponent(scene.Extent()), 1e-6f);
    const float distance = std::max(half_side / std::tan(0.5f * fov), 1.05f * radius);
    const Vec3 forward = Normalize(Vec3(-0.35f, -0.45f, -0.82f));
    const Vec3 eye = centre - forward * distance;
    const Vec3 right = Normalize(Cross(forward, Vec3(0, 0, 1)));
    const Vec3 up = Cross(right, forward);
    const float half_h = std::tan(0.5f * fov), half_w = half_h * float(width) / float(height);
    std::vector<Ray> rays;
    rays.reserve(size_t(width) * height);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const float sx = (2.0f * (float(x) + 0.5f) / float(width) - 1.0f) * half_w;
            const float sy = (1.0f - 2.0f * (float(y) + 0.5f) / float(height)) * half_h;
            rays.emplace_back(eye, Normalize(forward + right * sx + up * sy));
        }
    return rays;
}

std::vector<Ray> RandomRays(const Aabb& scene, size_t count, uint64_t seed) {
    Vec3 centre;
    float radius;
    CentreAndRadius(scene, &centre, &radius);
    const Aabb box = scene.Empty() ? Aabb(centre - Vec3(radius), centre + Vec3(radius)) : scene;
    std::vector<Ray> rays(count);
    for (size_t i = 0; i < count; ++i) {
        Rng rng(seed, 0, 1, i);
        const Vec3 o = box.lo + box.Extent() * Vec3(rng.NextFloat(), rng.NextFloat(), rng.NextFloat());
        const float z = 2.0f * rng.NextFloat() - 1.0f, phi = 2.0f * 3.14159265f * rng.NextFloat();
        const float r = std::sqrt(std::max(0.0f, 1.0f - z * z));
        rays[i] = Ray(o, Vec3(r * std::cos(phi), r * std::sin(phi), z));
    }
    return rays;
}

std::vector<Ray> SurfaceRays(const std::vector<Triangle>& triangles, size_t count, uint64_t seed) {
    if (triangles.empty()) return {};
    std::vector<Ray> rays(count);
    for (size_t i = 0; i < count; ++i) {
        Rng rng(seed, 0, 3, i);
        const Triangle& t = triangles[rng.NextU32() % triangles.size()];
        float a = rng.NextFloat(), b = rng.NextFloat();
        if (a + b > 1.0f) {  // folded back into the triangle
            a = 1.0f - a;
            b = 1.0f - b;
        }
        const Vec3 p = t.v0 + (t.v1 - t.v0) * a + (t.v2 - t.v0) * b;
        const float z = 2.0f * rng.NextFloat() - 1.0f, phi = 2.0f * 3.14159265f * rng.NextFloat();
        const float r = std::sqrt(std::max(0.0f, 1.0f - z * z));
        const Vec3 d(r * std::cos(phi), r * std::sin(phi), z);
        // Off the surface as the renderer's rays leave it, along the direction itself where they
        // go along the normal (a degenerate triangle has none).
        rays[i] = Ray(OffsetOrigin(p, d, d), d);
    }
    return rays;
}

Vec3 PointLightFor(const Aabb& scene) {
    Vec3 centre;
    float radius;
    CentreAndRadius(scene, &centre, &radius);
    return centre + Vec3(0.3f, 0.5f, 1.5f) * radius;
}

std::vector<Ray> ShadowRays(const std::vector<Ray>& rays, const std::vector<Hit>& hits, Vec3 light) {
    CA_CHECK_EQ(rays.size(), hits.size());
    std::vector<Ray> out;
    for (size_t i = 0; i < rays.size(); ++i) {
        if (!hits[i].Valid()) continue;
        const Vec3 p = rays[i].At(hits[i].t);
        out.emplace_back(p, light - p, 1e-4f, 1.0f - 1e-4f);
    }
    return out;
}

}  // namespace caustica
