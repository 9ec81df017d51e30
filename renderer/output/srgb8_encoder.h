// EncodeSrgb8 (core/srgb.h) for the millions of values of an image on the host, bit for bit, by
// tables in place of powf: each 8-bit code's least linear value, and the code at the start of each
// bucket of float bit patterns, buckets so fine that no two codes start within one. With powf the
// sRGB codes of a 1080p frame took about 80 ms on the development machine, longer than compressing
// its PNG.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace caustica {

class Srgb8Encoder {
public:
    // The tables, made once.
    static const Srgb8Encoder& Get();
    uint8_t operator()(float linear) const;

private:
    Srgb8Encoder();
    static constexpr int kBucketShift = 15;  // a bucket: floats whose bits agree above bit 15
    std::array<float, 257> first_value_;     // code k's least linear value; [256]: past every value
    std::vector<uint8_t> bucket_code_;       // the code at each bucket's first float, [0, 1]
};

}  // namespace caustica
