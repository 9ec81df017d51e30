// The per-pixel state that flows through the eye passes of one sample (Zhou et al. 2008,
// section 4): each pixel follows one path from the camera through mirrors and glass to its first
// diffuse surface, so every array is indexed by pixel and the passes work on compacted lists of
// pixel indices. Pixels are numbered in PixelOrder (8x4 tiles), so that neighbouring items are
// neighbours on screen; the composite pass writes the image row by row.
#pragma once

#include <cstdint>

#include "core/backend.h"
#include "core/buffer.h"
#include "core/pixel_order.h"
#include "core/vec.h"
#include "kdtree/point/knn_batch.h"
#include "kdtree/triangle/ray.h"

namespace caustica {

// Where a path ends on a diffuse surface: what shading needs.
struct DiffusePoint {
    Vec3 position;
    Vec3 normal;   // shading normal, facing the viewer
    Vec3 offset_normal;  // geometric normal facing the viewer, for shadow ray origins
    Rgb weight;    // albedo times the path's throughput
};

// What a pixel's eye ray meets first, for error statistics by material (bench quality).
enum class FirstHit : uint8_t { Background, Diffuse, Glass, Metal };
constexpr int kFirstHitKinds = 4;

struct EyeState {
    PixelOrder order;                        // of the camera's pixels, set by RunEyePass
    Buffer<Ray> rays;
    Buffer<Rgb> throughput;
    Buffer<Hit> hits;
    Buffer<uint32_t> active, next_active;   // pixels whose path goes on
    Buffer<uint8_t> continues;               // per active pixel: 1 when its path goes on
    Buffer<uint32_t> all_pixels;             // 0, 1, ..., pixels - 1
    Buffer<DiffusePoint> diffuse;            // per pixel
    Buffer<uint8_t> ends_diffuse;            // per pixel: 1 when diffuse[pixel] is set
    Buffer<FirstHit> first_hit;              // per pixel
    Buffer<uint32_t> diffuse_pixels;         // compacted pixels with a diffuse end
    Buffer<uint8_t> visible;                 // per diffuse pixel and light: 1 when lit
    Buffer<Rgb> radiance;                    // this sample's radiance per pixel
    Buffer<Vec3> caustic_queries;            // per diffuse end: where the photons are gathered
    KnnResults knn;                          // the KNN's scratch, where neighbours do not stay on chip
    Buffer<Rgb> caustic;                     // per diffuse end: caustic irradiance
    Buffer<float> caustic_radius;            // per diffuse end: the radius of its photon query
    Buffer<float> caustic_nearest2;          // per diffuse end: squared distance to its nearest photon
    uint32_t active_count = 0, diffuse_count = 0;

    explicit EyeState(const Backend& b)
        : rays(b), throughput(b), hits(b), active(b), next_active(b), continues(b), all_pixels(b), diffuse(b),
          ends_diffuse(b), first_hit(b), diffuse_pixels(b), visible(b), radiance(b), caustic_queries(b), knn(b), caustic(b),
          caustic_radius(b), caustic_nearest2(b) {}
};

}  // namespace caustica
