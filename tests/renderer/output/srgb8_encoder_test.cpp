#include "renderer/output/srgb8_encoder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "core/srgb.h"

namespace caustica {
namespace {

float FloatOf(uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, sizeof(f));
    return f;
}

// The tables give EncodeSrgb8's code bit for bit: where codes change, at bucket edges, at every
// 61st float of [0, 1], at random, and for values outside [0, 1].
TEST(Srgb8Encoder, GivesEncodeSrgb8sCodes) {
    const Srgb8Encoder& encode = Srgb8Encoder::Get();
    const auto expect_same = [&](float x) { ASSERT_EQ(encode(x), EncodeSrgb8(x)) << "at " << x; };
    const uint32_t one = 0x3F800000u;
    for (uint32_t code = 1; code < 256; ++code) {  // the least float of each code and its neighbours
        uint32_t low = 0, high = one;
        while (high - low > 1) {
            const uint32_t mid = low + (high - low) / 2;
            (EncodeSrgb8(FloatOf(mid)) >= code ? high : low) = mid;
        }
        for (uint32_t b = high - 3; b <= high + 3; ++b) expect_same(FloatOf(b));
    }
    for (uint32_t bits = 0; bits <= one; bits += 61) expect_same(FloatOf(bits));
    for (uint32_t edge = 1u << 15; edge <= one; edge += 1u << 15)
        for (const uint32_t b : {edge - 1, edge}) expect_same(FloatOf(b));
    std::mt19937 random(3);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    for (int i = 0; i < 1000000; ++i) expect_same(unit(random));
    for (const float x : {0.0f, -0.0f, -1.0f, 1.0f, 1.5f, 1e30f, std::numeric_limits<float>::denorm_min(),
                          std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN(), 0.0031308f, std::nextafter(1.0f, 0.0f)})
        expect_same(x);
}

}  // namespace
}  // namespace caustica
