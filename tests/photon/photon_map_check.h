// The photon map's leaf order, checked on either backend: photons whose power and normal carry
// their index, so that each copy shows which photon it came from.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "core/backend.h"
#include "core/buffer.h"
#include "core/memory.h"
#include "kdtree/point/point_samples.h"
#include "photon/photon_map.h"

namespace caustica::testing {

// n photons on a caustic-like cluster; photon i has power (i, 1, 2) and normal (i, 1, 0).
inline std::vector<Photon> IndexedPhotons(uint32_t n, std::vector<Vec3>* normals) {
    const std::vector<Vec3> positions = MakePoints(PointDistribution::Clustered, n, 20081210);
    std::vector<Photon> photons(n);
    normals->resize(n);
    for (uint32_t i = 0; i < n; ++i) {
        photons[i] = Photon{positions[i], Rgb(float(i), 1.0f, 2.0f), Vec3(0.0f, 0.0f, -1.0f)};
        (*normals)[i] = Vec3(float(i), 1.0f, 0.0f);
    }
    return photons;
}

// Host photons and normals in a backend's memory.
struct UploadedPhotons {
    UploadedPhotons(const Backend& backend, const std::vector<Photon>& p, const std::vector<Vec3>& n)
        : photons(backend), normals(backend) {
        photons.Upload(Span<const Photon>(p));
        normals.Upload(Span<const Vec3>(n));
    }
    Buffer<Photon> photons;
    Buffer<Vec3> normals;
};

template <class T>
std::vector<T> ToHost(const Backend& backend, const T* data, size_t n) {
    std::vector<T> out(n);
    if (n > 0) CopyBytes(out.data(), MemorySpace::Host, data, SpaceOf(backend), n * sizeof(T));
    return out;
}

// Every tree point j names place j, where the map holds the arrival (and normal) of the photon at
// that position, each input photon once. Returns the map's arrivals.
inline std::vector<PhotonArrival> ExpectLeafOrder(const Backend& backend, const PhotonMap& map,
                                           const std::vector<Photon>& photons, const std::vector<Vec3>& normals) {
    const PointTreeView tree = map.Tree();
    const std::vector<TreePoint> points = ToHost(backend, tree.points, tree.point_count);
    const std::vector<PhotonArrival> ordered = ToHost(backend, map.Arrivals().data(), map.Arrivals().size());
    const std::vector<Vec3> ordered_normals = ToHost(backend, map.Normals().data(), map.Normals().size());
    EXPECT_EQ(points.size(), photons.size());
    EXPECT_EQ(ordered.size(), photons.size());
    EXPECT_EQ(ordered_normals.size(), normals.size());
    std::vector<bool> seen(photons.size(), false);
    int failures = 0;
    for (uint32_t j = 0; j < points.size() && j < ordered.size() && failures < 5; ++j) {
        const uint32_t i = uint32_t(ordered[j].power.x);
        const bool fine = points[j].index == j && i < photons.size() && !seen[i] &&
                          std::memcmp(&ordered[j].power, &photons[i].power, sizeof(Rgb)) == 0 &&
                          std::memcmp(&ordered[j].direction, &photons[i].direction, sizeof(Vec3)) == 0 &&
                          std::memcmp(&points[j].position, &photons[i].position, sizeof(Vec3)) == 0 &&
                          (normals.empty() || std::memcmp(&ordered_normals[j], &normals[i], sizeof(Vec3)) == 0);
        if (!fine) {
            ++failures;
            ADD_FAILURE() << "place " << j << ": point index " << points[j].index << ", photon " << i;
        }
        if (i < photons.size()) seen[i] = true;
    }
    return ordered;
}

}  // namespace caustica::testing
