// Floats as unsigned integers in the same order (negative floats flipped, the sign bit set on the
// others): radix sorts and integer atomic min/max then order by value, and -0 sorts below +0, so
// a minimum or maximum found through keys has the same bits in any order of evaluation.
#pragma once

#include <cstdint>
#include <cstring>

#include "core/hd.h"

namespace caustica {

CA_HD inline uint32_t FloatKey(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

CA_HD inline float KeyFloat(uint32_t k) {
    const uint32_t u = (k & 0x80000000u) ? (k & 0x7fffffffu) : ~k;
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

}  // namespace caustica
