// Triangles as the geometry tree sees them: three world-space vertices, no materials.
#pragma once

#include "core/hd.h"
#include "core/vec.h"

namespace caustica {

struct Triangle {
    Vec3 v0, v1, v2;

    CA_HD Aabb Bounds() const {
        Aabb b(v0, v0);
        b.Extend(v1);
        b.Extend(v2);
        return b;
    }
};

}  // namespace caustica
