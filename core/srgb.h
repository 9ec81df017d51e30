// The sRGB transfer function between linear light and 8-bit codes, for host and device code.
#pragma once

#include <cmath>
#include <cstdint>
#include <math.h>  // isfinite in the global namespace, as device code has it

#include "core/hd.h"
#include "core/vec.h"

namespace caustica {

// Linear value, clamped to [0, 1], to an 8-bit sRGB code (non-finite values give 0).
CA_HD CA_INLINE uint32_t EncodeSrgb8(float linear) {
    const float c = isfinite(linear) ? Min(Max(linear, 0.0f), 1.0f) : 0.0f;
    const float s = c <= 0.0031308f ? 12.92f * c : 1.055f * powf(c, 1.0f / 2.4f) - 0.055f;
    return uint32_t(s * 255.0f + 0.5f);
}

CA_HD CA_INLINE float DecodeSrgb8(uint32_t code) {
    const float s = float(code) * (1.0f / 255.0f);
    return s <= 0.04045f ? s * (1.0f / 12.92f) : powf((s + 0.055f) * (1.0f / 1.055f), 2.4f);
}

}  // namespace caustica
