// What the indirect-light passes of one sample keep (indirect_passes.h): the indirect irradiance of
// every diffuse end, the maps' KNN scratch, and final gathering's hits, a batch of ends at a time.
#pragma once

#include "core/backend.h"
#include "core/buffer.h"
#include "core/vec.h"
#include "kdtree/point/knn_batch.h"
#include "kdtree/point/knn_join.h"
#include "shaders_cuda/denoise.h"
#include "shaders_cuda/eye_state.h"

namespace caustica {

struct IndirectState {
    Buffer<Rgb> irradiance;  // per diffuse end: indirect irradiance (W/m^2)
    KnnResults knn;          // the maps' KNN scratch
    // The density estimate's search of the global map, its chunks handed out slowest first by the
    // last sample's times (no launch joins it).
    KnnJoin estimate_chunks;
    // Per gather ray of the batch: the diffuse point it hit (its weight: the specular factors on
    // the way times the albedo; 0 where it hit none), that point (the KNN queries), and the
    // irradiance it brings to its end (its weight times the hit's irradiance, summed as the passes
    // find it).
    Buffer<DiffusePoint> gather_hits;
    Buffer<Vec3> gather_queries;
    Buffer<Rgb> gather_light;
    // The denoiser's (denoise.h), per pixel row by row: each camera ray's diffuse end's guide, its
    // end (all ones: none) and the irradiance, in two buffers that the iterations alternate.
    Buffer<DenoiseGuide> denoise_guides;
    Buffer<uint32_t> denoise_pixel_end;
    Buffer<Rgb> denoise_values[2];

    explicit IndirectState(const Backend& b)
        : irradiance(b), knn(b), estimate_chunks(b), gather_hits(b), gather_queries(b), gather_light(b),
          denoise_guides(b), denoise_pixel_end(b), denoise_values{Buffer<Rgb>(b), Buffer<Rgb>(b)} {}
};

}  // namespace caustica
