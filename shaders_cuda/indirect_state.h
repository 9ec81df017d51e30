// What the indirect-light passes of one sample keep (indirect_passes.h): the indirect irradiance of
// every diffuse end and the global map's KNN scratch.
#pragma once

#include "core/backend.h"
#include "core/buffer.h"
#include "core/vec.h"
#include "kdtree/point/knn_batch.h"

namespace caustica {

struct IndirectState {
    Buffer<Rgb> irradiance;  // per diffuse end: indirect irradiance (W/m^2)
    KnnResults knn;          // the global map's KNN scratch

    explicit IndirectState(const Backend& b) : irradiance(b), knn(b) {}
};

}  // namespace caustica
