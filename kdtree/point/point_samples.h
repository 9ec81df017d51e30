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
    Room,       // a Cornell box's photons: on five walls of the unit cube (floor y = 0, ceiling y = 1,
                // back z = 0, sides x = 0 and x = 1), half of them in a bright spot on the floor
};

// "uniform", "clustered", "plane", "duplicates" or "room"; false for anything else.
bool ParsePointDistribution(const std::string& name, PointDistribution* out);

std::vector<Vec3> MakePoints(PointDistribution distribution, uint32_t count, uint64_t seed);

// Query points: `count` points near the set's bounds (a little outside too), either in image-like
// coherent order (a raster over the xy extent in the renderer's pixel order, 8x4 tiles of nearby
// points) or shuffled.
std::vector<Vec3> MakeQueries(const std::vector<Vec3>& points, uint32_t count, bool coherent, uint64_t seed);

// Queries for a distribution: for the room, the walls a camera at the open side (z = 1) sees, one
// per pixel of a raster; MakeQueries for the others.
std::vector<Vec3> MakeQueries(PointDistribution distribution, const std::vector<Vec3>& points, uint32_t count,
                              bool coherent, uint64_t seed);

}  // namespace caustica
