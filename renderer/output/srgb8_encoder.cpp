#include "renderer/output/srgb8_encoder.h"

#include <cstring>
#include <limits>

#include "core/error.h"
#include "core/srgb.h"

namespace caustica {
namespace {

constexpr uint32_t kOneBits = 0x3F800000u;  // 1.0f

float FloatOf(uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, sizeof(f));
    return f;
}

uint32_t BitsOf(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof(bits));
    return bits;
}

}  // namespace

const Srgb8Encoder& Srgb8Encoder::Get() {
    static const Srgb8Encoder encoder;
    return encoder;
}

// EncodeSrgb8 does not decrease on [0, 1] (powf does not), so each code's least value is found by
// bisecting the bit patterns of [0, 1], which order as the floats do.
Srgb8Encoder::Srgb8Encoder() {
    first_value_[0] = 0.0f;
    for (uint32_t code = 1; code < 256; ++code) {
        uint32_t low = 0, high = kOneBits;  // EncodeSrgb8(low) < code <= EncodeSrgb8(high)
        while (high - low > 1) {
            const uint32_t mid = low + (high - low) / 2;
            (EncodeSrgb8(FloatOf(mid)) >= code ? high : low) = mid;
        }
        first_value_[code] = FloatOf(high);
    }
    first_value_[256] = std::numeric_limits<float>::infinity();
    bucket_code_.resize((kOneBits >> kBucketShift) + 1);
    for (uint32_t b = 0; b < bucket_code_.size(); ++b) {
        bucket_code_[b] = uint8_t(EncodeSrgb8(FloatOf(b << kBucketShift)));
        const uint32_t last = std::min(((b + 1) << kBucketShift) - 1, kOneBits);
        CA_CHECK_MSG(EncodeSrgb8(FloatOf(last)) <= bucket_code_[b] + 1u, "two sRGB codes start in bucket ", b);
    }
}

uint8_t Srgb8Encoder::operator()(float linear) const {
    if (!(linear > 0.0f) || linear == std::numeric_limits<float>::infinity()) return 0;  // as EncodeSrgb8
    if (linear >= 1.0f) return 255;
    const uint8_t code = bucket_code_[BitsOf(linear) >> kBucketShift];
    return uint8_t(code + (linear >= first_value_[code + 1]));
}

}  // namespace caustica
