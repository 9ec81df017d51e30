// Morton (Z-order) codes: a point's cell in a 1024^3 grid over a box, its coordinates' bits
// interleaved, so that points with nearby codes lie near each other. Sorting by the code numbers
// points so that the points of a small region have nearby numbers.
#pragma once

#include <cstdint>

#include "core/hd.h"
#include "core/vec.h"

namespace caustica {

// The 10 low bits of v spread to every third bit.
CA_HD inline uint32_t SpreadBitsBy3(uint32_t v) {
    v &= 0x3ffu;
    v = (v | (v << 16)) & 0x030000ffu;
    v = (v | (v << 8)) & 0x0300f00fu;
    v = (v | (v << 4)) & 0x030c30c3u;
    v = (v | (v << 2)) & 0x09249249u;
    return v;
}

// The 30-bit code of p's cell in box (p inside it); a flat axis contributes zeros.
CA_HD inline uint32_t MortonCode(Vec3 p, const Aabb& box) {
    uint32_t code = 0;
    for (int a = 0; a < 3; ++a) {
        const float extent = box.hi[a] - box.lo[a];
        const float t = extent > 0.0f ? (p[a] - box.lo[a]) / extent : 0.0f;
        const float cell = t * 1024.0f;
        const uint32_t c = cell >= 1023.0f ? 1023u : (cell > 0.0f ? uint32_t(cell) : 0u);
        code |= SpreadBitsBy3(c) << a;
    }
    return code;
}

}  // namespace caustica
