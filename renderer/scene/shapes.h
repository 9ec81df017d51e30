// Built-in shapes as object-space triangle meshes: plane, box, sphere, cylinder, ring (a thick
// open tube), surface of revolution and height field. Closed shapes have outward-facing
// counter-clockwise triangles and share vertex indices along every edge (seams included), so that
// each edge is used exactly twice, in opposite directions.
#pragma once

#include <cstddef>

#include "core/height_grid.h"
#include "renderer/scene/scene.h"

namespace caustica {

// Tessellation bounds the loader enforces (and the generators assume).
struct ShapeLimits {
    static constexpr int kMinSegments = 3, kMaxSegments = 4096;
    static constexpr int kMinRings = 2, kMaxRings = 4096;
    static constexpr int kMaxProfilePoints = 4096;
    static constexpr int kMaxHeightfieldResolution = 2048;
};

// The number of triangles GenerateShape will make, computed without making them.
std::size_t ShapeTriangleCount(const Shape& shape);

// The shape's mesh at 'time' seconds (only height-field waves depend on time). Every triangle's
// material is -1 (the object's own).
Mesh GenerateShape(const Shape& shape, double time);

// Height of a height field at object-space (x, z) and time, without its image.
float WaveHeight(const std::vector<Wave>& waves, float x, float z, double time);

// Whether a height field's surface changes with time.
bool ShapeIsAnimated(const Shape& shape);

// A height field's grid of vertices (core/height_grid.h).
HeightGrid HeightfieldGrid(const Shape& shape);

// A height field's static heights (its image's; 0 without one) at its (resolution_x + 1)
// (resolution_z + 1) grid vertices, row by row along x; the waves add to them.
std::vector<float> HeightfieldBaseHeights(const Shape& shape);

// An object-space box that holds a height field at every time: its waves lift or lower it by at
// most the sum of their amplitudes.
Aabb HeightfieldReach(const Shape& shape);

}  // namespace caustica
