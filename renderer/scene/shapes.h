// Built-in shapes as object-space triangle meshes: plane, box, sphere, cylinder, ring (a thick
// open tube), surface of revolution and height field. Closed shapes have outward-facing
// counter-clockwise triangles and share vertex indices along every edge (seams included), so that
// each edge is used exactly twice, in opposite directions.
#pragma once

#include <cstddef>

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

}  // namespace caustica
