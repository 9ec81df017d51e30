// bench quality's error measures on images with known differences.
#include <gtest/gtest.h>

#include <cmath>

#include "renderer/bench/image_error.h"

namespace caustica {
namespace {

TEST(ImageError, MeasuresAllPixelsAndEachFirstHitApart) {
    Image reference(4, 1), image(4, 1);
    for (Rgb& c : reference.pixels) c = Rgb(0.5f);
    image.pixels = {Rgb(0.5f), Rgb(0.7f), Rgb(0.55f), Rgb(3.0f)};  // the last is shown clamped to 1
    const std::vector<FirstHit> hits = {FirstHit::Diffuse, FirstHit::Glass, FirstHit::Glass, FirstHit::Metal};
    const std::vector<ImageError> e = MeasureImageError(image, reference, hits);
    ASSERT_EQ(e.size(), size_t(1 + kFirstHitKinds));
    EXPECT_EQ(e[0].pixels, 4u);
    EXPECT_NEAR(e[0].mean_absolute, (0.0 + 0.2 + 0.05 + 0.5) / 4, 1e-6);
    EXPECT_NEAR(e[0].root_mean_square, std::sqrt((0.04 + 0.0025 + 0.25) / 4), 1e-6);
    EXPECT_DOUBLE_EQ(e[0].far_fraction, 0.5);
    const ImageError& glass = e[1 + size_t(FirstHit::Glass)];
    EXPECT_EQ(glass.pixels, 2u);
    EXPECT_NEAR(glass.mean_absolute, 0.125, 1e-6);
    EXPECT_DOUBLE_EQ(glass.far_fraction, 0.5);
    EXPECT_DOUBLE_EQ(e[1 + size_t(FirstHit::Diffuse)].far_fraction, 0.0);
    EXPECT_DOUBLE_EQ(e[1 + size_t(FirstHit::Metal)].far_fraction, 1.0);
    EXPECT_EQ(e[1 + size_t(FirstHit::Background)].pixels, 0u);
}

TEST(ImageError, ChannelsAreAveragedBeforeTheThreshold) {
    Image reference(1, 1), image(1, 1);
    image.pixels[0] = Rgb(0.25f, 0.0f, 0.0f);  // one channel off by 0.25: 0.083 on average
    const std::vector<ImageError> e = MeasureImageError(image, reference, {FirstHit::Diffuse});
    EXPECT_DOUBLE_EQ(e[0].far_fraction, 0.0);
}

// The relative error per pixel: the channels' absolute differences, unclamped, over the reference's
// sum; black reference pixels have none.
TEST(ImageError, RelativeErrorIsPerPixelOverTheReferenceAndSkipsBlack) {
    Image reference(3, 1), image(3, 1);
    reference.pixels = {Rgb(1.0f, 0.5f, 0.5f), Rgb(4.0f), Rgb(0.0f)};
    image.pixels = {Rgb(1.2f, 0.5f, 0.4f), Rgb(5.0f), Rgb(0.3f)};
    const std::vector<ImageError> e =
        MeasureImageError(image, reference, {FirstHit::Diffuse, FirstHit::Diffuse, FirstHit::Glass});
    const ImageError& diffuse = e[1 + size_t(FirstHit::Diffuse)];
    EXPECT_EQ(diffuse.relative_pixels, 2u);
    EXPECT_NEAR(diffuse.mean_relative, (0.3 / 2.0 + 3.0 / 12.0) / 2, 1e-6);
    EXPECT_NEAR(diffuse.root_mean_square_relative, std::sqrt((0.15 * 0.15 + 0.25 * 0.25) / 2), 1e-6);
    EXPECT_EQ(e[1 + size_t(FirstHit::Glass)].relative_pixels, 0u);
    EXPECT_DOUBLE_EQ(e[1 + size_t(FirstHit::Glass)].mean_relative, 0.0);
    EXPECT_EQ(e[0].relative_pixels, 2u);
}

}  // namespace
}  // namespace caustica
