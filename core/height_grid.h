// The grid of a height field (shape `heightfield`, docs/scenes.md): (quads_x + 1) (quads_z + 1)
// vertices over size_x by size_z centred on the origin, row by row along x, each quad split along
// its first diagonal. The host's shape generation (renderer/scene/shapes.cpp) and the device's
// per-frame pass (shaders_cuda/heightfield_pass.cpp) both place vertices and shading normals with
// it, so their triangles are the same.
#pragma once

#include <cstdint>

#include "core/hd.h"
#include "core/vec.h"

namespace caustica {

struct HeightGrid {
    uint32_t quads_x = 0, quads_z = 0;
    float size_x = 0, size_z = 0;

    CA_HD uint32_t Vertex(uint32_t i, uint32_t j) const { return j * (quads_x + 1) + i; }
    CA_HD float X(uint32_t i) const { return (float(i) / float(quads_x) - 0.5f) * size_x; }
    CA_HD float Z(uint32_t j) const { return (float(j) / float(quads_z) - 0.5f) * size_z; }
    CA_HD Vec2 Uv(uint32_t i, uint32_t j) const { return Vec2(float(i) / float(quads_x), float(j) / float(quads_z)); }

    // The shading normal at vertex (i, j): central differences of the heights (one-sided at the
    // border).
    CA_HD Vec3 Normal(const float* heights, uint32_t i, uint32_t j) const {
        const uint32_t i0 = i > 0 ? i - 1 : 0, i1 = i < quads_x ? i + 1 : quads_x;
        const uint32_t j0 = j > 0 ? j - 1 : 0, j1 = j < quads_z ? j + 1 : quads_z;
        const float dhdx = (heights[Vertex(i1, j)] - heights[Vertex(i0, j)]) / (X(i1) - X(i0));
        const float dhdz = (heights[Vertex(i, j1)] - heights[Vertex(i, j0)]) / (Z(j1) - Z(j0));
        return Normalize(Vec3(-dhdx, 1, -dhdz));
    }
};

// Corner c of quad (i, j) is vertex (i + QuadCornerI(c), j + QuadCornerJ(c)): counter-clockwise
// seen from +y, (i, j), (i, j+1), (i+1, j+1), (i+1, j); the quad's triangles are corners (0, 1, 2)
// and (0, 2, 3).
CA_HD CA_INLINE uint32_t QuadCornerI(int c) { return c >= 2 ? 1u : 0u; }
CA_HD CA_INLINE uint32_t QuadCornerJ(int c) { return c == 1 || c == 2 ? 1u : 0u; }

}  // namespace caustica
