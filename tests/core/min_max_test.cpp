// Min and Max (core/vec.h) inline the host's fminf and fmaxf: every answer must be libm's, bit for
// bit, except the sign of a zero between two zeros and the NaN returned for two NaNs.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include <gtest/gtest.h>

#include "core/vec.h"

namespace caustica {
namespace {

uint32_t Bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

float FromBits(uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

bool IsSignalingNan(float f) { return std::isnan(f) && (Bits(f) & 0x00400000u) == 0; }

// Signaling NaNs (which arithmetic never makes) are left out: glibc quiets them.
void ExpectSameAsLibm(float x, float y) {
    const float libm_min = std::fmin(x, y), libm_max = std::fmax(x, y);
    if (std::isnan(x) && std::isnan(y)) {
        EXPECT_TRUE(std::isnan(Min(x, y)) && std::isnan(Max(x, y)));
        return;
    }
    if (x == 0.0f && y == 0.0f) {
        EXPECT_TRUE(Min(x, y) == 0.0f && Max(x, y) == 0.0f);
        return;
    }
    EXPECT_EQ(Bits(Min(x, y)), Bits(libm_min)) << x << " " << y;
    EXPECT_EQ(Bits(Max(x, y)), Bits(libm_max)) << x << " " << y;
}

TEST(MinMax, SpecialValuesAsLibm) {
    const float values[] = {0.0f, -0.0f, 1.0f, -1.0f, 1e-45f, -1e-45f, 3.4e38f, INFINITY, -INFINITY, NAN, -NAN};
    for (float x : values)
        for (float y : values) ExpectSameAsLibm(x, y);
    EXPECT_EQ(Max(NAN, 2.0f), 2.0f);
    EXPECT_EQ(Min(2.0f, NAN), 2.0f);
}

TEST(MinMax, RandomBitPatternsAsLibm) {
    std::mt19937 rng(7);
    for (int i = 0; i < 2000000; ++i) {
        const float x = FromBits(rng());
        const float y = i % 4 == 0 ? x : i % 4 == 1 ? -x : FromBits(rng());
        if (IsSignalingNan(x) || IsSignalingNan(y)) continue;
        ExpectSameAsLibm(x, y);
        if (HasFailure()) return;
    }
}

}  // namespace
}  // namespace caustica
