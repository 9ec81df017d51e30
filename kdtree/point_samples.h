// Synthetic point sets for tests and benchmarks, from a fixed seed (host memory).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/vec.h"

namespace caustica {

enum class PointDistribution {
    Uniform,    // uniform in the unit cube
    Clustered,  // caustic-like: 90% on a thin cardioid curve on the plane z = 0, 10% spread over it
    Plane,      // on the plane z = 0 with a caustic-like density: the clustered set, flat
    Duplicates, // every point at one place
};

// "uniform", "clustered", "plane" or "duplicates"; false for anything else.
bool ParsePointDistribution(const std::string& name, PointDistribution* out);

std::vector<Vec3> MakePoints(PointDistribution distribution, uint32_t count, uint64_t seed);

// Query points: `count` points near the set's bounds (a little outside too), either in image-like
// coherent order (a raster over the xy extent, rows of nearby points) or shuffled.
std::vector<Vec3> MakeQueries(const std::vector<Vec3>& points, uint32_t count, bool coherent, uint64_t seed);

}  // namespace caustica
