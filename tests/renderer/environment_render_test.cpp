// The environment in whole frames (CPU backend): rays that leave the scene bring its radiance,
// directly and in mirrors.
#include <gtest/gtest.h>

#include <stb/stb_image_write.h>

#include <cmath>
#include <fstream>
#include <string>

#include "renderer/frame_renderer.h"
#include "renderer/scene/scene_loader.h"
#include "renderer/scene_to_frame.h"
#include "tests/renderer/render_still.h"

namespace caustica {
namespace {

// Beside the test's image file.
Scene Load(const std::string& yaml) {
    return testing::SceneFromYaml(yaml, ::testing::TempDir() + "/environment-test.yaml");
}

// One sample: every eye ray goes through its pixel's centre.
Image RenderCentres(const Scene& scene, int width, int height) {
    return testing::RenderStill(Backend::Cpu(), scene, testing::SmallFrame(1000, width, height), 1)->CurrentImage();
}

TEST(EnvironmentRender, RaysLeavingTheSceneBringTheImageAtTheirDirection) {
    // A 16 x 8 image of distinct texels, as a Radiance HDR file beside the scene.
    constexpr int kWidth = 16, kHeight = 8;
    float texels[kWidth * kHeight * 3];
    for (int i = 0; i < kWidth * kHeight; ++i) {
        texels[3 * i] = float(i % kWidth) / kWidth;
        texels[3 * i + 1] = float(i / kWidth) / kHeight;
        texels[3 * i + 2] = 1.0f + float(i % 3);
    }
    const std::string path = ::testing::TempDir() + "/environment-test.hdr";
    ASSERT_TRUE(stbi_write_hdr(path.c_str(), kWidth, kHeight, 3, texels));
    // A wide camera that sees the zenith, the horizon all around its view and the seam behind +z.
    const Scene scene = Load(R"(
camera: {position: [0, 0, 0], look_at: [0.3, 0.2, 1], fov: 150, resolution: [48, 36]}
environment: {type: image, image: environment-test.hdr, rotate: 25, intensity: 1.5}
lights: [{type: point, position: [0, 5, 0]}]
)");
    const Image image = RenderCentres(scene, 48, 36);
    const FrameInput input = ToFrameInput(scene, EvaluateScene(scene, 0.0), {48, 36});
    const SceneMaterials materials = ToSceneMaterials(scene);
    EnvironmentView environment = materials.environment;
    environment.texels = Span<const Rgb>(materials.environment_texels);
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x) {
            const Rgb expected = environment.Radiance(input.camera.Generate(x + 0.5f, y + 0.5f).direction);
            const Rgb got = image.at(x, y);
            ASSERT_NEAR(got.x, expected.x, 1e-5f) << x << ", " << y;
            ASSERT_NEAR(got.y, expected.y, 1e-5f) << x << ", " << y;
            ASSERT_NEAR(got.z, expected.z, 1e-5f) << x << ", " << y;
        }
}

// A mirror ball seen from the horizon, against the ideal sphere's reflection of the gradient: at its
// silhouette the reflected rays graze it and go on almost as the eye rays came, horizontally, so
// they see the horizon's colour; halfway up the ball (normals 45 degrees up) they go straight up.
TEST(EnvironmentRender, MirrorSphereShowsTheHorizonAtItsSilhouette) {
    const Scene scene = Load(R"(
camera: {position: [0, 0, 8], look_at: [0, 0, 0], fov: 10, resolution: [128, 128]}
settings: {ambient: [0, 0, 0]}
environment: {type: gradient, horizon: [1, 0.5, 0], zenith: [0, 0.2, 1]}
materials: {mirror: {type: mirror, color: [1, 1, 1]}}
objects: [{shape: {type: sphere, radius: 0.5, segments: 512, rings: 256}, material: mirror}]
lights: [{type: point, position: [0, 5, 0]}]
)");
    constexpr int kSize = 128;
    const auto renderer = testing::RenderStill(Backend::Cpu(), scene, testing::SmallFrame(1000, kSize, kSize), 1);
    const Image image = renderer->CurrentImage();
    const std::vector<FirstHit> hits = renderer->FirstHits();
    const CameraView camera = ToFrameInput(scene, EvaluateScene(scene, 0.0), {kSize, kSize}).camera;
    const Rgb horizon(1, 0.5f, 0), zenith(0, 0.2f, 1);
    int ball = 0, rim = 0;
    Rgb rim_sum(0.0f);
    for (int y = 0; y < kSize; ++y)
        for (int x = 0; x < kSize; ++x) {
            if (hits[size_t(y) * kSize + x] != FirstHit::Metal) continue;
            // The ideal sphere's reflection through the pixel's centre.
            const Ray ray = camera.Generate(x + 0.5f, y + 0.5f);
            const float b = Dot(ray.origin, ray.direction), c = LengthSquared(ray.origin) - 0.25f;
            if (b * b - c < 0.0f) continue;  // the tessellated rim reaches past the ideal sphere by a hair
            const Vec3 n = Normalize(ray.At(-b - std::sqrt(b * b - c)));
            const Vec3 reflected = Reflect(ray.direction, n);
            const Rgb expected = Lerp(horizon, zenith, std::fmax(0.0f, reflected.y));
            const Rgb got = image.at(x, y);
            EXPECT_NEAR(got.x, expected.x, 0.03f) << x << ", " << y;
            EXPECT_NEAR(got.z, expected.z, 0.03f) << x << ", " << y;
            ++ball;
            if (Dot(n, -ray.direction) < 0.1f) {  // within 6 degrees of grazing
                ++rim;
                rim_sum += got;
            }
        }
    EXPECT_GT(ball, 1000);
    ASSERT_GT(rim, 30);
    const Rgb rim_mean = rim_sum / float(rim);
    EXPECT_NEAR(rim_mean.x, horizon.x, 0.1f);
    EXPECT_NEAR(rim_mean.z, horizon.z, 0.1f);
    // Halfway up: the sphere's image has a radius of 0.5 / (8 tan 5 degrees) half-heights.
    const float radius_pixels = 0.5f / (8.0f * std::tan(5.0f * 3.14159265f / 180.0f)) * 0.5f * kSize;
    const Rgb up = image.at(kSize / 2, int(0.5f * kSize - radius_pixels * std::sin(3.14159265f / 4.0f)));
    EXPECT_NEAR(up.x, zenith.x, 0.05f);
    EXPECT_NEAR(up.z, zenith.z, 0.05f);
}

}  // namespace
}  // namespace caustica
