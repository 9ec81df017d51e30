// The tone maps against the formulas they follow, computed here independently in double precision,
// and the properties a display transform needs: black stays black, brighter stays brighter, and
// every result is a displayable value in [0, 1].
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/tone_map.h"

namespace caustica {
namespace {

constexpr ToneMap kCurves[] = {ToneMap::Filmic, ToneMap::Agx};

// Hable's Uncharted 2 curve with his constants, exposure bias 2 and white point 11.2.
double HableReference(double x) {
    const auto h = [](double v) {
        const double a = 0.15, b = 0.50, c = 0.10, d = 0.20, e = 0.02, f = 0.30;
        return (v * (a * v + c * b) + d * e) / (v * (a * v + b) + d * f) - e / f;
    };
    return std::min(h(2.0 * x) / h(11.2), 1.0);
}

// Wrensch's minimal AgX: inset, log2 over [-12.47393, 4.026069], the sixth-order sigmoid fit (its
// ends clipped), outset, 2.2 power.
std::vector<double> AgxReference(const std::vector<double>& c) {
    const double inset[3][3] = {{0.842479062253094, 0.0784335999999992, 0.0792237451477643},
                                {0.0423282422610123, 0.878468636469772, 0.0791661274605434},
                                {0.0423756549057051, 0.0784336, 0.879142973793104}};
    const double outset[3][3] = {{1.19687900512017, -0.0980208811401368, -0.0990297440797205},
                                 {-0.0528968517574562, 1.15190312990417, -0.0989611768448433},
                                 {-0.0529716355144438, -0.0980434501171241, 1.15107367264116}};
    double encoded[3];
    for (int r = 0; r < 3; ++r) {
        const double v = inset[r][0] * c[0] + inset[r][1] * c[1] + inset[r][2] * c[2];
        const double ev = v > 0 ? std::clamp(std::log2(v), -12.47393, 4.026069) : -12.47393;
        const double x = (ev + 12.47393) / (4.026069 + 12.47393);
        const double y = 15.5 * std::pow(x, 6) - 40.14 * std::pow(x, 5) + 31.96 * std::pow(x, 4) -
                         6.868 * std::pow(x, 3) + 0.4298 * x * x + 0.1191 * x - 0.00232;
        encoded[r] = std::clamp(y, 0.0, 1.0);
    }
    std::vector<double> out(3);
    for (int r = 0; r < 3; ++r) {
        const double v = outset[r][0] * encoded[0] + outset[r][1] * encoded[1] + outset[r][2] * encoded[2];
        out[r] = std::pow(std::clamp(v, 0.0, 1.0), 2.2);
    }
    return out;
}

TEST(ToneMap, FilmicFollowsHablesCurve) {
    for (const double x : {0.0, 0.01, 0.18, 0.5, 1.0, 2.0, 5.0, 5.6, 20.0}) {
        const Rgb c = ApplyToneMap(ToneMap::Filmic, Rgb(float(x), float(x) * 0.5f, float(x) * 2.0f));
        EXPECT_NEAR(c.x, HableReference(x), 1e-5) << "x = " << x;
        EXPECT_NEAR(c.y, HableReference(x * 0.5), 1e-5) << "x = " << x;  // per channel
        EXPECT_NEAR(c.z, HableReference(x * 2.0), 1e-5) << "x = " << x;
    }
    // Two of its values (the formula in double precision): mid grey 0.18 -> 0.128338, 1 -> 0.492919.
    EXPECT_NEAR(ApplyToneMap(ToneMap::Filmic, Rgb(0.18f)).x, 0.128338, 1e-5);
    EXPECT_NEAR(ApplyToneMap(ToneMap::Filmic, Rgb(1.0f)).x, 0.492919, 1e-5);
}

TEST(ToneMap, AgxFollowsTheMinimalFit) {
    const std::vector<std::vector<double>> inputs = {
        {0.0, 0.0, 0.0}, {0.18, 0.18, 0.18}, {1.0, 1.0, 1.0}, {5.0, 5.0, 5.0}, {1.0, 0.0, 0.0},
        {0.2, 0.5, 1.0}, {0.01, 0.002, 0.0}, {40.0, 2.0, 0.5}, {1e4, 1e4, 1e4}};
    for (const std::vector<double>& in : inputs) {
        const Rgb c = ApplyToneMap(ToneMap::Agx, Rgb(float(in[0]), float(in[1]), float(in[2])));
        const std::vector<double> expected = AgxReference(in);
        for (int k = 0; k < 3; ++k)
            EXPECT_NEAR(c[k], expected[k], 2e-5) << "input (" << in[0] << ", " << in[1] << ", " << in[2] << ")";
    }
}

TEST(ToneMap, BlackStaysBlack) {
    for (const ToneMap t : kCurves) EXPECT_EQ(ApplyToneMap(t, Rgb(0.0f)), Rgb(0.0f)) << ToneMapName(t);
}

// Along a grey ramp from 1e-5 to 1e5 every channel rises or stays (filmic's shoulder reaches 1 at
// 5.6 and stays; AgX's approaches its white, 0.9965). Filmic is per channel, so any colour ramp is
// monotonic too; AgX's outset matrix mixes channels, and where the dominant channel of a saturated
// colour clips at 1 before the others catch up, it comes back to the white by less than 1e-3.
TEST(ToneMap, BrighterIsNeverDarker) {
    for (const ToneMap t : kCurves) {
        Rgb previous = ApplyToneMap(t, Rgb(0.0f));
        for (int i = 0; i <= 1000; ++i) {
            const float x = std::pow(10.0f, -5.0f + 0.01f * float(i));
            const Rgb c = ApplyToneMap(t, Rgb(x));
            for (int k = 0; k < 3; ++k) ASSERT_GE(c[k], previous[k] - 1e-6f) << ToneMapName(t) << " at " << x;
            previous = c;
        }
    }
    for (const Rgb colour : {Rgb(1.0f, 0.05f, 0.02f), Rgb(0.2f, 0.5f, 1.0f), Rgb(0.0f, 1.0f, 0.3f)}) {
        Rgb filmic = Rgb(0.0f), agx = Rgb(0.0f);
        for (int i = 0; i <= 1000; ++i) {
            const Rgb c = colour * std::pow(10.0f, -5.0f + 0.01f * float(i));
            const Rgb f = ApplyToneMap(ToneMap::Filmic, c), a = ApplyToneMap(ToneMap::Agx, c);
            for (int k = 0; k < 3; ++k) {
                ASSERT_GE(f[k], filmic[k]) << "filmic at " << c[k];
                ASSERT_GE(a[k], agx[k] - 1e-3f) << "agx at " << c[k];
            }
            filmic = f;
            agx = a;
        }
    }
}

TEST(ToneMap, ResultsStayInTheUnitRange) {
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> values = {0.0f, -1.0f, -inf, inf, nan, 1e-30f, 1e30f, std::numeric_limits<float>::max()};
    for (int i = -60; i <= 60; ++i) values.push_back(std::pow(2.0f, float(i) * 0.5f));
    for (const ToneMap t : kCurves)
        for (const float r : values)
            for (const float g : {0.0f, 0.3f, 7.0f, nan})
                for (const float b : {0.0f, 1.0f, 1e6f, -2.0f}) {
                    const Rgb c = ApplyToneMap(t, Rgb(r, g, b));
                    for (int k = 0; k < 3; ++k)
                        ASSERT_TRUE(c[k] >= 0.0f && c[k] <= 1.0f)
                            << ToneMapName(t) << " of (" << r << ", " << g << ", " << b << ") gives " << c[k];
                }
}

TEST(ToneMap, NoneLeavesTheBitsAlone) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (const Rgb c : {Rgb(0.0f), Rgb(0.5f, 3.0f, -1.0f), Rgb(nan, 1e30f, 1e-30f)}) {
        const Rgb out = ApplyToneMap(ToneMap::None, c);
        EXPECT_EQ(std::memcmp(&out, &c, sizeof(Rgb)), 0);
    }
}

TEST(ToneMap, NamesFollowTheEnum) {
    EXPECT_STREQ(ToneMapName(ToneMap::None), "none");
    EXPECT_STREQ(ToneMapName(ToneMap::Filmic), "filmic");
    EXPECT_STREQ(ToneMapName(ToneMap::Agx), "agx");
}

}  // namespace
}  // namespace caustica
