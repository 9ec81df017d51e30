// Ray batches for the kd-tree benchmark and tests: coherent camera rays, incoherent random rays,
// rays that leave the surfaces and shadow rays toward a point light. All are reproducible from
// their arguments.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/vec.h"
#include "kdtree/triangle/ray.h"
#include "kdtree/triangle/triangle.h"

namespace caustica {

// A pinhole camera outside the box, looking at its centre with a 45 degree vertical field of
// view, close enough that the box fills most of the image; one ray per pixel through the pixel centre, row by row (the coherent order of a frame).
std::vector<Ray> CameraRays(const Aabb& scene, int width, int height);

// Origins uniform in the box, directions uniform on the sphere.
std::vector<Ray> RandomRays(const Aabb& scene, size_t count, uint64_t seed);

// Rays that leave the surfaces, as a renderer's reflected and refracted rays and its photons do:
// each from a point uniform on a triangle picked uniformly by its index (so finely tessellated
// objects, where glass and metal usually are, weigh more than a floor of two triangles), in a
// direction uniform on the sphere, starting a small offset off the surface (OffsetOrigin, as the
// renderer's rays) so that it does not meet the triangle it leaves. None for no triangles.
std::vector<Ray> SurfaceRays(const std::vector<Triangle>& triangles, size_t count, uint64_t seed);

// A point light above and in front of the box (the camera's side).
Vec3 PointLightFor(const Aabb& scene);

// For each valid hit of rays[i], a segment ray from the hit point toward the light: direction =
// light - point, so t in (1e-4, 1 - 1e-4) covers the segment without its ends. Rays that missed
// give no shadow ray.
std::vector<Ray> ShadowRays(const std::vector<Ray>& rays, const std::vector<Hit>& hits, Vec3 light);

}  // namespace caustica
