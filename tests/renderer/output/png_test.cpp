// The PNG encoder's files read back by an independent decoder (stb_image) to the same pixels, with
// the chunks the PNG specification asks for and their CRCs.
#include "renderer/output/png.h"

#include <gtest/gtest.h>
#include <stb/stb_image.h>
#include <zlib.h>

#include <cstring>
#include <random>
#include <vector>

#include "core/error.h"

namespace caustica {
namespace {

uint32_t BigEndian(const std::string& s, size_t at) {
    uint32_t v = 0;
    for (size_t i = 0; i < 4; ++i) v = (v << 8) | uint8_t(s[at + i]);
    return v;
}

// Every chunk's type, with its CRC checked; fails the test on a CRC that does not match.
std::vector<std::string> ChunkTypes(const std::string& png) {
    std::vector<std::string> types;
    for (size_t at = 8; at + 12 <= png.size();) {
        const uint32_t length = BigEndian(png, at);
        const std::string type = png.substr(at + 4, 4);
        const auto* typed = reinterpret_cast<const unsigned char*>(png.data() + at + 4);
        EXPECT_EQ(BigEndian(png, at + 8 + length), uint32_t(crc32(0L, typed, 4 + length))) << type << "'s CRC";
        types.push_back(type);
        at += 12 + length;
    }
    return types;
}

TEST(Png, AnIndependentDecoderReadsTheSamePixels) {
    std::mt19937 random(7);
    for (const auto& [width, height] : {std::pair{1, 1}, {2, 1}, {1, 3}, {17, 5}, {64, 36}, {333, 7}}) {
        std::vector<uint8_t> rgb(size_t(width) * size_t(height) * 3);
        // Smooth ramps with noise, as rendered images are, and the extremes.
        for (size_t i = 0; i < rgb.size(); ++i) rgb[i] = uint8_t(i * 7 / 3 + random() % 5);
        rgb[0] = 255;
        rgb.back() = 0;
        const std::string png = EncodePng(rgb.data(), width, height);
        int w = 0, h = 0, channels = 0;
        unsigned char* back = stbi_load_from_memory(reinterpret_cast<const unsigned char*>(png.data()),
                                                    int(png.size()), &w, &h, &channels, 3);
        ASSERT_NE(back, nullptr) << width << "x" << height << ": " << stbi_failure_reason();
        EXPECT_EQ(w, width);
        EXPECT_EQ(h, height);
        EXPECT_EQ(channels, 3);
        EXPECT_EQ(std::memcmp(back, rgb.data(), rgb.size()), 0) << width << "x" << height;
        stbi_image_free(back);
    }
}

TEST(Png, HasTheSignatureHeaderDataAndEndChunks) {
    const uint8_t rgb[6] = {0, 128, 255, 1, 2, 3};
    const std::string png = EncodePng(rgb, 2, 1);
    EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
    EXPECT_EQ(ChunkTypes(png), (std::vector<std::string>{"IHDR", "IDAT", "IEND"}));
    EXPECT_EQ(BigEndian(png, 16), 2u) << "width";
    EXPECT_EQ(BigEndian(png, 20), 1u) << "height";
    EXPECT_EQ(png.substr(24, 5), std::string("\x08\x02\x00\x00\x00", 5)) << "8-bit truecolour, not interlaced";
    // The end chunk's CRC is the same in every PNG file.
    EXPECT_EQ(png.substr(png.size() - 12), std::string("\0\0\0\0IEND\xae\x42\x60\x82", 12));
}

TEST(Png, AnImageWithoutPixelsIsAnError) {
    const uint8_t rgb[3] = {};
    EXPECT_THROW(EncodePng(rgb, 0, 1), RuntimeError);
}

}  // namespace
}  // namespace caustica
