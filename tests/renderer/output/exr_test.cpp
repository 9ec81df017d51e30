// OpenEXR files: 32-bit floats that come back bit for bit, the sample range's attributes, and
// damaged or foreign files reported by name.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "core/error.h"
#include "renderer/output/exr.h"
#include "renderer/output/image.h"
#include "tests/test_support.h"

namespace caustica {
namespace {

Image Gradient(int w, int h) {
    Image image(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            image.at(x, y) = Rgb(std::ldexp(1.0f + x * 1e-3f, y - 20), 1.0f / float(3 + x + y), x == y ? 1e30f : 0.0f);
    return image;
}

TEST(Exr, FloatsComeBackBitForBitTopRowFirst) {
    const Image image = Gradient(37, 23);
    const ExrImage back = DecodeExr(EncodeExr(image), "test.exr");
    ASSERT_EQ(back.image.width, 37);
    ASSERT_EQ(back.image.height, 23);
    EXPECT_EQ(std::memcmp(back.image.pixels.data(), image.pixels.data(), image.pixels.size() * sizeof(Rgb)), 0);
    EXPECT_FALSE(back.range);
    EXPECT_EQ(EncodeImage(image, ImageFormat::exr).substr(0, 4), "\x76\x2f\x31\x01") << "the OpenEXR magic number";
}

TEST(Exr, SampleRangeIsKeptInTheHeader) {
    const ExrImage back = DecodeExr(EncodeExr(Gradient(4, 3), SampleRange{16, 8, 64, 2.5f}), "part.exr");
    ASSERT_TRUE(back.range);
    EXPECT_EQ(back.range->first, 16u);
    EXPECT_EQ(back.range->count, 8u);
    EXPECT_EQ(back.range->total, 64u);
    EXPECT_EQ(back.range->scale, 2.5f);
}

TEST(Exr, DamagedFilesAreInputErrorsNamingTheFile) {
    const std::string bytes = EncodeExr(Gradient(16, 16));
    EXPECT_EQ(testing::InputErrorOf([] { DecodeExr("not an exr", "a.exr"); }).rfind("a.exr: error: ", 0), 0u);
    EXPECT_THROW(DecodeExr(bytes.substr(0, bytes.size() / 2), "half.exr"), InputError);
    std::string flipped = bytes;
    for (size_t i = 40; i < flipped.size(); i += 7) flipped[i] = char(flipped[i] ^ 0x5a);
    EXPECT_THROW(DecodeExr(flipped, "flipped.exr"), InputError);
}

TEST(Exr, WrittenByExtensionThroughTheOutputModule) {
    const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "caustica-exr-test";
    std::filesystem::remove_all(dir);
    const OutputFile file = CheckOutputFile("-o", (dir / "f.EXR").string());
    EXPECT_EQ(ImageFormatOf(file), ImageFormat::exr);
    const Image image = Gradient(8, 5);
    WriteImage(image, file);
    const Image back = ReadImage((dir / "f.EXR").string());
    EXPECT_EQ(std::memcmp(back.pixels.data(), image.pixels.data(), image.pixels.size() * sizeof(Rgb)), 0);
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1) << "a temporary file was left";
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace caustica
