// The scene as the photon tracer and the render passes read it on either backend: triangles and
// their kd-tree, per-triangle shading data, materials and textures, the environment and the colour
// of single wavelengths. All spans are in the backend's memory; the view is passed by value into
// per-item functors.
#pragma once

#include <cstdint>

#include "core/hd.h"
#include "core/span.h"
#include "core/vec.h"
#include "kdtree/triangle/ray.h"
#include "kdtree/triangle/sah_tree.h"
#include "kdtree/triangle/traversal.h"
#include "kdtree/triangle/triangle.h"
#include "photon/environment.h"
#include "photon/spectrum.h"
#include "photon/surface.h"

namespace caustica {

// What a ray found where it hit: the point, its normals and the surface's material.
struct SurfacePoint {
    Vec3 position;
    Vec3 geometric_normal;  // unit, facing against the incoming ray
    Vec3 shading_normal;    // unit, interpolated, on the same side as geometric_normal
    Vec2 uv;
    bool entering;          // the ray arrived from the side the triangle's winding faces
    const SurfaceMaterial* material;
};

struct SceneView {
    Span<const Triangle> triangles;
    Span<const TriangleShading> shading;
    Span<const SurfaceMaterial> materials;
    Span<const TextureView> textures;
    Span<const uint32_t> texels;  // RGBA8 sRGB, all textures one after another
    SahTreeView tree;
    EnvironmentView environment;  // what rays that leave the scene see
    SpectrumView spectrum;        // the colour of light of one wavelength: empty unless some glass disperses

    bool Disperses() const { return !spectrum.rgb.empty(); }
    // Light of all wavelengths (wavelength 0) takes one where it first meets dispersive glass:
    // SampleVisibleWavelength(u), its weight then the colour of that wavelength (spectrum.h).
    CA_HD bool TakesWavelength(const SurfaceMaterial& m, float wavelength) const {
        return wavelength == 0.0f && m.Dispersive();
    }
    CA_HD void TakeWavelength(float u, float* wavelength, Rgb* weight) const {
        *wavelength = SampleVisibleWavelength(u);
        *weight *= spectrum.SampledWeight(*wavelength);
    }

    CA_HD Hit Closest(const Ray& ray) const { return FindClosestHit(tree, triangles.data(), ray); }
    CA_HD bool Occluded(const Ray& ray) const { return IsOccluded(tree, triangles.data(), ray); }

    CA_HD SurfacePoint Describe(const Ray& ray, const Hit& hit) const {
        const Triangle& tri = triangles[hit.triangle];
        const TriangleShading& s = shading[hit.triangle];
        const float w = 1.0f - hit.u - hit.v;
        SurfacePoint p;
        p.position = tri.v0 * w + tri.v1 * hit.u + tri.v2 * hit.v;
        Vec3 ng = Normalize(Cross(tri.v1 - tri.v0, tri.v2 - tri.v0));
        p.entering = Dot(ng, ray.direction) < 0.0f;
        if (!p.entering) ng = -ng;
        Vec3 ns = s.n0 * w + s.n1 * hit.u + s.n2 * hit.v;
        const float len = Length(ns);
        ns = len > 0.0f && isfinite(len) ? ns / len : ng;
        if (Dot(ns, ng) < 0.0f) ns = -ns;
        p.geometric_normal = ng;
        p.shading_normal = ns;
        p.uv = Vec2(s.uv0.x * w + s.uv1.x * hit.u + s.uv2.x * hit.v, s.uv0.y * w + s.uv1.y * hit.u + s.uv2.y * hit.v);
        p.material = &materials[s.material];
        return p;
    }

    // The diffuse albedo at a point: texture, checkerboard or constant colour.
    CA_HD Rgb Albedo(const SurfaceMaterial& m, Vec2 uv) const {
        if (m.texture >= 0) return SampleTexture(textures[m.texture], texels, uv) * m.color;
        if (m.checker) {
            const int cx = int(floorf(uv.x * m.checker_scale)), cy = int(floorf(uv.y * m.checker_scale));
            return ((cx + cy) & 1) ? m.checker_b : m.checker_a;
        }
        return m.color;
    }
};

// Offsets a ray origin off a surface along the geometric normal, toward the side the new
// direction goes, so the new ray does not hit the surface it leaves.
CA_HD CA_INLINE Vec3 OffsetOrigin(Vec3 p, Vec3 geometric_normal, Vec3 direction) {
    const float scale = 1e-4f * Max(1.0f, MaxComponent(Vec3(fabsf(p.x), fabsf(p.y), fabsf(p.z))));
    return p + geometric_normal * (Dot(direction, geometric_normal) >= 0.0f ? scale : -scale);
}

}  // namespace caustica
