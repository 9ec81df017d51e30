// The caustic radiance estimate from the k nearest photons (Jensen 2001, section 7.2; Zhou et al.
// 2008, section 5.3): the photons' power, weighted by a filter kernel over the disc of the k-th
// photon's radius, divided by the kernel's integral over that disc, is the irradiance; a diffuse
// surface reflects albedo / pi of it.
#pragma once

#include <cstdint>

#include "core/hd.h"
#include "core/span.h"
#include "core/vec.h"
#include "kdtree/point/point_queries.h"
#include "photon/photon.h"

namespace caustica {

enum class PhotonFilter : uint8_t {
    Cone,          // w = 1 - d / r (Jensen's cone filter with k = 1); integral pi r^2 / 3
    Epanechnikov,  // w = 1 - d^2 / r^2; integral pi r^2 / 2
};

// The photons a filter reads at once: a GPU thread then waits once for a batch's loads, where it
// stalled on each photon's (as ForEachLeafPoint batches a leaf's points).
constexpr int kFilterBatch = 4;

// Irradiance (W/m^2) at a point with normal n from the count photons of a KNN's slot within
// radius: arrivals[neighbours.indices[j * stride]] at squared distance neighbours.dist2[j * stride]
// from the point. Photons that arrived from behind the surface do not count, nor those for which
// on_surface(index) is false.
template <class OnSurface>
CA_HD CA_INLINE Rgb PhotonIrradiance(Span<const PhotonArrival> arrivals, KnnSlot neighbours, int count, float radius,
                                     Vec3 n, PhotonFilter filter, OnSurface on_surface) {
    if (count == 0 || !(radius > 0.0f)) return Rgb(0.0f);
    Rgb sum(0.0f);
    const float inv_r2 = 1.0f / (radius * radius);
    for (int first = 0; first < count; first += kFilterBatch) {
        // Past the count the last photon is read again (no branch), and not counted.
        uint32_t index[kFilterBatch];
        float d2[kFilterBatch];
        PhotonArrival p[kFilterBatch];
        for (int j = 0; j < kFilterBatch; ++j) {
            const uint32_t at = uint32_t(first + j < count ? first + j : count - 1) * neighbours.stride;
            index[j] = neighbours.indices[at];
            d2[j] = neighbours.dist2[at] * inv_r2;
            p[j] = arrivals[index[j]];
        }
        for (int j = 0; j < kFilterBatch; ++j) {
            if (first + j >= count || d2[j] > 1.0f) continue;
            if (Dot(p[j].direction, n) >= 0.0f || !on_surface(index[j])) continue;
            const float w = filter == PhotonFilter::Cone ? 1.0f - sqrtf(d2[j]) : 1.0f - d2[j];
            sum += p[j].power * w;
        }
    }
    const float integral = (filter == PhotonFilter::Cone ? 1.0f / 3.0f : 0.5f) * 3.14159265358979f * radius * radius;
    return sum / integral;
}

// The caustic estimate: every photon within the radius that arrived from the front counts.
CA_HD CA_INLINE Rgb CausticIrradiance(Span<const PhotonArrival> arrivals, KnnSlot neighbours, int count, float radius,
                                      Vec3 n, PhotonFilter filter) {
    return PhotonIrradiance(arrivals, neighbours, count, radius, n, filter, [](uint32_t) { return true; });
}

}  // namespace caustica
