// The PNG encoder's files read back by an independent decoder (stb_image) to the same pixels, with
// the chunks the PNG specification asks for and their CRCs, and one zlib stream made of the bands.
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
    // Heights of one band, of a few (the last one whole or not) and of one row past a band.
    for (const auto& [width, height] : {std::pair{1, 1}, {2, 1}, {1, 3}, {17, 5}, {64, 36}, {333, 7},
                                        {5, kPngBandRows}, {3, kPngBandRows + 1}, {40, 3 * kPngBandRows},
                                        {19, 4 * kPngBandRows - 9}}) {
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

// The IDAT data is one zlib stream that zlib itself inflates, checking its Adler-32, to the filtered
// rows: a filter byte and three bytes a pixel for each row, whatever the bands it was made in.
TEST(Png, TheBandsJoinIntoOneZlibStreamWithItsChecksum) {
    constexpr int kWidth = 23, kHeight = 3 * kPngBandRows + 5;
    std::vector<uint8_t> rgb(size_t(kWidth) * kHeight * 3);
    for (size_t i = 0; i < rgb.size(); ++i) rgb[i] = uint8_t((i * 13) ^ (i >> 7));
    const std::string png = EncodePng(rgb.data(), kWidth, kHeight);
    EXPECT_EQ(png, EncodePng(rgb.data(), kWidth, kHeight)) << "the same bytes every time";
    std::string stream;
    for (size_t at = 8; at + 12 <= png.size();) {
        const uint32_t length = BigEndian(png, at);
        if (png.compare(at + 4, 4, "IDAT") == 0) stream += png.substr(at + 8, length);
        at += 12 + length;
    }
    const size_t filtered = size_t(kHeight) * (3 * kWidth + 1);
    std::vector<unsigned char> rows(filtered + 1);
    uLongf size = uLongf(rows.size());
    const auto* deflated = reinterpret_cast<const Bytef*>(stream.data());
    ASSERT_EQ(uncompress(rows.data(), &size, deflated, uLong(stream.size())), Z_OK);
    EXPECT_EQ(size_t(size), filtered);
    for (int y = 0; y < kHeight; ++y) {
        const unsigned char* row = rows.data() + size_t(y) * (3 * kWidth + 1);
        ASSERT_EQ(row[0], 1) << "row " << y << "'s filter";
        EXPECT_EQ(row[1], rgb[size_t(y) * 3 * kWidth]) << "row " << y << "'s first byte";
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
