// The environment's radiance by direction: constant, gradient, and equirectangular images at
// texel centres, the poles, the seam and when turned.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "photon/environment.h"

namespace caustica {
namespace {

// The direction through the centre of texel (x, y) of a width x height equirectangular image.
Vec3 TexelDirection(int x, int y, int width, int height) {
    const double phi = ((x + 0.5) / width - 0.5) * 2.0 * M_PI, theta = (y + 0.5) / height * M_PI;
    return Vec3(float(std::sin(theta) * std::sin(phi)), float(std::cos(theta)),
                float(-std::sin(theta) * std::cos(phi)));
}

void ExpectNear(Rgb a, Rgb b, float tolerance) {
    EXPECT_NEAR(a.x, b.x, tolerance);
    EXPECT_NEAR(a.y, b.y, tolerance);
    EXPECT_NEAR(a.z, b.z, tolerance);
}

// An 8 x 4 image whose texels all differ; its top and bottom rows are uniform, as at a real
// image's poles.
struct TestImage {
    static constexpr int kWidth = 8, kHeight = 4;
    std::vector<Rgb> texels;
    EnvironmentView view;
    TestImage() {
        for (int y = 0; y < kHeight; ++y)
            for (int x = 0; x < kWidth; ++x)
                texels.push_back(y == 0 ? Rgb(0.9f, 0.8f, 0.7f)
                                 : y == kHeight - 1 ? Rgb(0.1f, 0.2f, 0.3f)
                                                    : Rgb(float(x), float(y), float(x * y)));
        view.kind = EnvironmentKind::Image;
        view.width = kWidth;
        view.height = kHeight;
        view.texels = Span<const Rgb>(texels);
    }
    Rgb At(int x, int y) const { return texels[size_t(y) * kWidth + x]; }
};

TEST(Environment, ConstantAndGradient) {
    EnvironmentView constant;
    constant.color = Rgb(0.2f, 0.3f, 0.4f);
    constant.intensity = 2.0f;
    ExpectNear(constant.Radiance(Normalize(Vec3(1, -2, 3))), Rgb(0.4f, 0.6f, 0.8f), 1e-6f);

    EnvironmentView gradient;
    gradient.kind = EnvironmentKind::Gradient;
    gradient.color = Rgb(1.0f, 0.5f, 0.0f);  // the horizon
    gradient.zenith = Rgb(0.0f, 0.0f, 1.0f);
    ExpectNear(gradient.Radiance(Vec3(1, 0, 0)), gradient.color, 1e-6f);
    ExpectNear(gradient.Radiance(Vec3(0, 1, 0)), gradient.zenith, 1e-6f);
    ExpectNear(gradient.Radiance(Normalize(Vec3(0, -1, 1))), gradient.color, 1e-6f);  // below: the horizon's
    ExpectNear(gradient.Radiance(Vec3(0.8f, 0.6f, 0.0f)), Rgb(0.4f, 0.2f, 0.6f), 1e-6f);
}

TEST(Environment, ImageTexelAtItsCentreDirection) {
    const TestImage image;
    for (int y = 0; y < TestImage::kHeight; ++y)
        for (int x = 0; x < TestImage::kWidth; ++x)
            ExpectNear(image.view.Radiance(TexelDirection(x, y, TestImage::kWidth, TestImage::kHeight)), image.At(x, y),
                       1e-4f);
}

TEST(Environment, ImagePolesAreTheTopAndBottomRows) {
    const TestImage image;
    ExpectNear(image.view.Radiance(Vec3(0, 1, 0)), image.At(0, 0), 1e-6f);
    ExpectNear(image.view.Radiance(Vec3(0, -1, 0)), image.At(0, TestImage::kHeight - 1), 1e-6f);
    // Near a pole, all around it.
    for (int k = 0; k < 16; ++k) {
        const float a = k * 0.3927f;
        ExpectNear(image.view.Radiance(Normalize(Vec3(0.01f * std::cos(a), 1.0f, 0.01f * std::sin(a)))), image.At(0, 0),
                   1e-6f);
    }
}

TEST(Environment, ImageSeamBlendsTheFirstAndLastColumns) {
    const TestImage image;
    const int w = TestImage::kWidth, y = 1;
    const Vec3 centre = TexelDirection(0, y, w, TestImage::kHeight);
    // Toward +z (u = 0 = 1): halfway between the last column and the first.
    const Vec3 seam = Normalize(Vec3(0.0f, centre.y, std::sqrt(1.0f - centre.y * centre.y)));
    ExpectNear(image.view.Radiance(seam), (image.At(w - 1, y) + image.At(0, y)) * 0.5f, 1e-4f);
    // Just either side of the seam, still between the same two columns: toward -x the first column
    // (u near 0) weighs more, toward +x the last (u near 1).
    const Rgb minus_x = image.view.Radiance(Normalize(seam + Vec3(-0.01f, 0, 0)));
    const Rgb plus_x = image.view.Radiance(Normalize(seam + Vec3(0.01f, 0, 0)));
    EXPECT_LT(minus_x.x, 0.5f * (image.At(w - 1, y).x + image.At(0, y).x));
    EXPECT_GT(minus_x.x, image.At(0, y).x);
    EXPECT_GT(plus_x.x, 0.5f * (image.At(w - 1, y).x + image.At(0, y).x));
    EXPECT_LT(plus_x.x, image.At(w - 1, y).x);
}

TEST(Environment, TurnedImageLooksTheWayAnObjectTurns) {
    TestImage image;
    const Vec3 ahead = TexelDirection(4, 1, TestImage::kWidth, TestImage::kHeight);  // toward -z
    const Rgb seen = image.view.Radiance(ahead);
    image.view.cos_turn = 0.0f;  // turned by [0, 90, 0]: -z goes to -x
    image.view.sin_turn = 1.0f;
    ExpectNear(image.view.Radiance(Vec3(ahead.z, ahead.y, -ahead.x)), seen, 1e-4f);
}

}  // namespace
}  // namespace caustica
