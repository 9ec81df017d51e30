// Objects that move as a whole (keyframes, an orbit), placed on the device every frame: the frame
// renderer uploads their object-space triangles and shading once, and the pass writes them, placed
// at the frame's time (core/object_placement.h), into the scene's arrays, where the host left room
// for them. A scene whose objects move thus uploads no geometry per frame.
#pragma once

#include <cstdint>
#include <vector>

#include "core/backend.h"
#include "core/object_placement.h"
#include "core/span.h"
#include "kdtree/triangle/triangle.h"
#include "photon/surface.h"

namespace caustica {

struct MovingObjectView {
    uint32_t object = 0;          // its index in the scene
    ObjectPlacement placement;    // at the frame's time
    uint32_t first_base = 0;      // its object-space triangles and shading in the base arrays
    uint32_t first_triangle = 0;  // where its triangles go in the scene's arrays
    uint32_t triangle_count = 0;
};

// Writes each moving object's placed triangles and shading into the scene's arrays (in the backend's
// memory, as the base arrays).
void RunMovingObjectPasses(const Backend& backend, const std::vector<MovingObjectView>& objects,
                           Span<const Triangle> base, Span<const TriangleShading> base_shading,
                           Span<Triangle> triangles, Span<TriangleShading> shading);

}  // namespace caustica
