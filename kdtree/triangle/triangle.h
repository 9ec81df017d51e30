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

// A triangle read by traversal: through the read-only cache on the GPU.
CA_HD CA_INLINE Triangle LoadTriangle(const Triangle* triangles, uint32_t i) {
#if CA_DEVICE_CODE
    const float* f = reinterpret_cast<const float*>(triangles + i);
    return {Vec3(__ldg(f), __ldg(f + 1), __ldg(f + 2)), Vec3(__ldg(f + 3), __ldg(f + 4), __ldg(f + 5)),
            Vec3(__ldg(f + 6), __ldg(f + 7), __ldg(f + 8))};
#else
    return triangles[i];
#endif
}

}  // namespace caustica
