// Height fields whose waves move (the pool's water), generated on the device every frame from
// their parameters: the frame renderer uploads each one's grid, static heights and waves once, and
// the pass writes its world-space triangles and shading at the frame's time into the scene's
// arrays, where the host left room for them. The triangles are those of the host's shape
// generation (renderer/scene/shapes.cpp): both follow core/height_grid.h.
#pragma once

#include <cstdint>
#include <vector>

#include "core/backend.h"
#include "core/height_grid.h"
#include "core/object_placement.h"
#include "core/sine_waves.h"
#include "core/span.h"
#include "core/vec.h"
#include "kdtree/triangle/triangle.h"
#include "photon/surface.h"

namespace caustica {

struct HeightfieldView {
    HeightGrid grid;
    uint32_t first_base_height = 0;  // the grid's static heights (an image's), one a vertex
    uint32_t first_wave = 0, wave_count = 0;
    uint32_t object = 0;             // its index in the scene
    ObjectPlacement placement;       // the object's, at the frame's time
    uint32_t first_triangle = 0;     // where its 2 quads_x quads_z triangles go in the scene's arrays
    uint32_t material = 0;
};

// Writes each height field's triangles and shading at time_seconds into the scene's arrays (in
// the backend's memory, as base_heights and waves). heights is scratch of at least the largest
// grid's vertices.
void RunHeightfieldPasses(const Backend& backend, const std::vector<HeightfieldView>& views,
                          Span<const float> base_heights, Span<const SineWave> waves, double time_seconds,
                          Span<float> heights, Span<Triangle> triangles, Span<TriangleShading> shading);

}  // namespace caustica
