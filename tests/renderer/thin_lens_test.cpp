// The thin-lens camera against its geometry: a point on the plane in focus is seen through one
// image position from every lens position; a point off it through a circle whose diameter is the
// analytic circle of confusion; and in a rendered frame, a small light off the plane in focus
// spreads over that circle. Aperture 0 is the pinhole, bit for bit.
//
// The circle of confusion, for a lens of diameter A focused at distance f (along the view
// direction): the ray from lens offset l through the focus-plane point P reaches depth d at
// l + (P - l) d / f, so a point Q at depth d is seen, from l, at the image position (in units of
// the image plane at depth 1) Q / d + l (1 / f - 1 / d). Over the lens disc |l| <= A / 2 that is a
// circle of diameter A |d - f| / (d f) around the pinhole's position, times height / (2 tan(fov / 2))
// pixels per unit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "renderer/frame_renderer.h"
#include "renderer/scene/scene_loader.h"
#include "renderer/scene_to_frame.h"
#include "tests/renderer/render_still.h"

namespace caustica {
namespace {

constexpr float kFov = 40, kAperture = 0.25f, kFocus = 4;
constexpr int kWidth = 160, kHeight = 120;

CameraView Lens(float aperture = kAperture, float focus = kFocus) {
    CameraView camera = CameraView::LookAt(Vec3(0.3f, 1.2f, 5), Vec3(0, 0.4f, 0), Vec3(0, 1, 0), kFov, kWidth, kHeight);
    camera.SetLens(aperture, focus);
    return camera;
}

double PixelsPerUnit() { return kHeight / (2.0 * std::tan(kFov * M_PI / 360.0)); }

double CircleOfConfusionPixels(double aperture, double focus, double depth) {
    return aperture * std::fabs(depth - focus) / (depth * focus) * PixelsPerUnit();
}

// Where a ray crosses the plane at 'depth' along the camera's forward direction.
Vec3 AtDepth(const CameraView& camera, const Ray& ray, float depth) {
    const float t = (depth - Dot(ray.origin - camera.origin, camera.forward)) / Dot(ray.direction, camera.forward);
    return ray.At(t);
}

// The lens positions on the disc's rim (the unit square's border) and inside it.
std::vector<Vec2> LensPositions() {
    std::vector<Vec2> lens;
    for (int i = 0; i <= 16; ++i)
        for (int j = 0; j <= 16; ++j) lens.push_back(Vec2(std::min(i / 16.0f, 0.9999f), std::min(j / 16.0f, 0.9999f)));
    return lens;
}

TEST(ThinLens, APointInFocusIsSeenThroughOnePixel) {
    const CameraView camera = Lens();
    for (const Vec2 pixel : {Vec2(80, 60), Vec2(3.5f, 7.25f), Vec2(150.5f, 110.0f)}) {
        const CameraView pinhole = Lens(0.0f);
        const Vec3 focused = AtDepth(camera, pinhole.Generate(pixel.x, pixel.y), kFocus);
        for (const Vec2 lens : LensPositions()) {
            const Ray ray = camera.Generate(pixel.x, pixel.y, lens);
            EXPECT_LT(Length(AtDepth(camera, ray, kFocus) - focused), 1e-5f * kFocus)
                << "pixel (" << pixel.x << ", " << pixel.y << "), lens (" << lens.x << ", " << lens.y << ")";
        }
    }
}

// The image position through which 'lens' sees 'point': the map from image positions to the rays'
// crossings of the point's depth plane is affine, so three rays give it and its inverse.
Vec2 SeenAt(const CameraView& camera, Vec2 lens, Vec3 point) {
    const float depth = Dot(point - camera.origin, camera.forward);
    const Vec3 right = Normalize(camera.right), up = Normalize(camera.up);
    auto plane = [&](float x, float y) {
        const Vec3 p = AtDepth(camera, camera.Generate(x, y, lens), depth) - camera.origin;
        return Vec2(Dot(p, right), Dot(p, up));
    };
    const Vec2 o = plane(0, 0), px = plane(kWidth, 0), py = plane(0, kHeight);
    const double ax = (px.x - o.x) / kWidth, ay = (px.y - o.y) / kWidth;   // per pixel along x
    const double bx = (py.x - o.x) / kHeight, by = (py.y - o.y) / kHeight;  // per pixel along y
    const Vec3 q = point - camera.origin;
    const double tx = Dot(q, right) - o.x, ty = Dot(q, up) - o.y, det = ax * by - bx * ay;
    return Vec2(float((tx * by - bx * ty) / det), float((ax * ty - tx * ay) / det));
}

TEST(ThinLens, APointOffThePlaneInFocusSpreadsOverTheCircleOfConfusion) {
    const CameraView camera = Lens();
    for (const float depth : {2.0f, 3.0f, 6.0f, 12.0f}) {
        for (const Vec2 pixel : {Vec2(80, 60), Vec2(40, 90)}) {
            const CameraView pinhole = Lens(0.0f);
            const Vec3 point = AtDepth(camera, pinhole.Generate(pixel.x, pixel.y), depth);
            const Vec2 centre = SeenAt(pinhole, Vec2(0.5f, 0.5f), point);
            ASSERT_NEAR(centre.x, pixel.x, 1e-2);
            ASSERT_NEAR(centre.y, pixel.y, 1e-2);
            const double expected = CircleOfConfusionPixels(kAperture, kFocus, depth);
            double widest = 0;
            for (const Vec2 lens : LensPositions()) {
                const Vec2 seen = SeenAt(camera, lens, point);
                const double radius = std::hypot(seen.x - centre.x, seen.y - centre.y);
                widest = std::max(widest, radius);
                ASSERT_LE(radius, 0.5 * expected + 0.02) << "depth " << depth;
            }
            // The rim of the unit square is the rim of the disc.
            EXPECT_NEAR(2 * widest, expected, 0.05) << "depth " << depth << ", pixel (" << pixel.x << ", " << pixel.y
                                                    << ")";
        }
    }
}

TEST(ThinLens, ApertureZeroIsThePinholeBitForBit) {
    const CameraView camera = Lens(0.0f, 2.5f);
    EXPECT_FALSE(camera.HasLens());
    for (const Vec2 pixel : {Vec2(0, 0), Vec2(80.25f, 60.5f), Vec2(159.9f, 119.9f)})
        for (const Vec2 lens : {Vec2(0.5f, 0.5f), Vec2(0, 0), Vec2(0.9f, 0.1f)}) {
            const Ray ray = camera.Generate(pixel.x, pixel.y, lens);
            // The pinhole's ray as the camera made it before it had a lens.
            const float sx = 2.0f * pixel.x / float(kWidth) - 1.0f, sy = 1.0f - 2.0f * pixel.y / float(kHeight);
            const Ray pinhole(camera.origin, Normalize(camera.forward + camera.right * sx + camera.up * sy));
            EXPECT_EQ(std::memcmp(&ray.origin, &pinhole.origin, sizeof(Vec3)), 0);
            EXPECT_EQ(std::memcmp(&ray.direction, &pinhole.direction, sizeof(Vec3)), 0);
        }
}

Scene Load(const std::string& yaml) { return testing::SceneFromYaml(yaml, "thin-lens-test.yaml"); }

// A scene file's aperture 0 renders the same bytes as one without a lens.
TEST(ThinLens, ApertureZeroRendersTheSameFrame) {
    const std::string ring = std::string(CAUSTICA_SOURCE_DIR) + "/scenes/ring.yaml";
    const Scene pinhole = LoadScene(ring);
    Scene zero = pinhole;
    zero.camera.aperture = 0;
    zero.camera.focus_distance = 1.5f;
    const RenderOptions options = testing::SmallFrame(5000, 48, 36);
    const auto a = testing::RenderStill(Backend::Cpu(), pinhole, options, 3);
    const auto b = testing::RenderStill(Backend::Cpu(), zero, options, 3);
    EXPECT_EQ(a->SampleSum().pixels.size(), b->SampleSum().pixels.size());
    EXPECT_EQ(std::memcmp(a->SampleSum().pixels.data(), b->SampleSum().pixels.data(),
                          a->SampleSum().pixels.size() * sizeof(Rgb)),
              0);
}

// The focus distance follows look_at unless the scene gives one.
TEST(ThinLens, FocusDistanceDefaultsToTheDistanceToLookAt) {
    const Scene scene = Load("camera: {position: [0, 3, 4], look_at: [0, 0, 0], aperture: 0.1}\n");
    EXPECT_FLOAT_EQ(EvaluateScene(scene, 0.0).camera.focus_distance, 5.0f);
    const Scene focused = Load("camera: {position: [0, 3, 4], look_at: [0, 0, 0], aperture: 0.1, focus_distance: 2}\n");
    EXPECT_FLOAT_EQ(EvaluateScene(focused, 0.0).camera.focus_distance, 2.0f);
    const Scene moving = Load("camera:\n  aperture: 0.1\n  animation:\n"
                              "    - {time: 0, position: [0, 0, 2], look_at: [0, 0, 0]}\n"
                              "    - {time: 1, position: [0, 0, 6], look_at: [0, 0, 0]}\n");
    EXPECT_FLOAT_EQ(EvaluateScene(moving, 0.5).camera.focus_distance, 4.0f);
}

// A small sphere light far behind the plane in focus, on black: its image is a disc whose radius
// adds (in squares: variances add under convolution) the circle of confusion's, the light's own
// image and the pixel's box. The blurred light's measured diameter is the analytic one within a
// pixel.
TEST(ThinLens, ABlurredLightSpansTheCircleOfConfusion) {
    const double depth = 10, radius = 0.1, aperture = 0.2, focus = 2;
    const Scene scene = Load(R"(
camera: {position: [0, 0, 0], look_at: [0, 0, -1], fov: 30, resolution: [96, 96], aperture: 0.2, focus_distance: 2}
settings: {ambient: [0, 0, 0]}
lights: [{type: sphere, position: [0, 0, -10], radius: 0.1, power: 10}]
)");
    RenderOptions options = testing::SmallFrame(1000, 96, 96);
    const Image image = testing::RenderStill(Backend::Cpu(), scene, options, 256)->CurrentImage();
    double total = 0, cx = 0, cy = 0;
    for (int y = 0; y < 96; ++y)
        for (int x = 0; x < 96; ++x) {
            const double v = image.at(x, y).x;
            total += v;
            cx += v * (x + 0.5);
            cy += v * (y + 0.5);
        }
    ASSERT_GT(total, 0.0);
    cx /= total;
    cy /= total;
    EXPECT_NEAR(cx, 48.0, 0.1);
    EXPECT_NEAR(cy, 48.0, 0.1);
    double spread = 0;  // mean squared distance from the centre, in pixels
    for (int y = 0; y < 96; ++y)
        for (int x = 0; x < 96; ++x) spread += image.at(x, y).x * (std::pow(x + 0.5 - cx, 2) + std::pow(y + 0.5 - cy, 2));
    spread /= total;
    const double pixels_per_unit = 96 / (2.0 * std::tan(30 * M_PI / 360.0));
    const double light_radius = radius / depth * pixels_per_unit;
    // A uniform disc of radius R has a mean squared distance R^2 / 2; a pixel's box, 1/6.
    const double measured = 2.0 * std::sqrt(2.0 * (spread - light_radius * light_radius / 2.0 - 1.0 / 6.0));
    const double expected = aperture * std::fabs(depth - focus) / (depth * focus) * pixels_per_unit;
    ASSERT_GT(expected, 10.0);
    EXPECT_NEAR(measured, expected, 1.0) << "the blurred light spans " << measured << " pixels";
}

}  // namespace
}  // namespace caustica
