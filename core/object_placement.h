// Where an object's mesh lies in the world at one moment: the affine map of its points, the map of
// its normals (the inverse transpose, up to scale), and whether it mirrors. The host's scene
// evaluation (renderer/scene/scene_eval.cpp) and the device's per-frame passes (moving objects,
// height fields) place triangles with it, so that both give the same world-space triangles.
#pragma once

#include <cstdint>

#include "core/hd.h"
#include "core/vec.h"

namespace caustica {

struct ObjectPlacement {
    Vec3 rows[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};  // world = rows . p + translate
    Vec3 translate{0, 0, 0};
    Vec3 normal_rows[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};  // proportional to the inverse transpose's rows
    bool mirrored = false;  // a negative determinant: normals flip to keep their side, corners swap to
                            // keep the winding

    CA_HD Vec3 Point(Vec3 p) const {
        return Vec3(Dot(rows[0], p), Dot(rows[1], p), Dot(rows[2], p)) + translate;
    }
    CA_HD Vec3 Normal(Vec3 n) const {
        Vec3 m = normal_rows[0] * n.x + normal_rows[1] * n.y + normal_rows[2] * n.z;
        if (mirrored) m = -m;
        const float length = Length(m);
        return length > 0 ? m / length : n;
    }
    // The object-space corner that world corner c of a triangle comes from: a mirroring placement
    // swaps the last two, so that the triangle still winds counter-clockwise seen from outside.
    CA_HD int Corner(int c) const { return mirrored && c > 0 ? 3 - c : c; }

    // Places an object-space triangle: its corners p, unit shading normals n and texture
    // coordinates uv, in world space and in winding order.
    CA_HD void Place(const Vec3 p[3], const Vec3 n[3], const Vec2 uv[3], Vec3 world_p[3], Vec3 world_n[3],
                     Vec2 world_uv[3]) const {
        for (int c = 0; c < 3; ++c) {
            const int k = Corner(c);
            world_p[c] = Point(p[k]);
            world_n[c] = Normal(n[k]);
            world_uv[c] = uv[k];
        }
    }
};

}  // namespace caustica
