// Indirect light from the global photon map in whole frames (CPU backend) against analytic answers.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>
#include <string>

#include "core/error.h"
#include "renderer/frame_renderer.h"
#include "renderer/scene/scene_loader.h"
#include "renderer/scene_to_frame.h"
#include "tests/renderer/render_still.h"

namespace caustica {
namespace {

Scene Load(const std::string& yaml) { return testing::SceneFromYaml(yaml, "indirect-light-test.yaml"); }

double MeanRed(const Image& image) {
    double sum = 0.0;
    for (const Rgb& p : image.pixels) sum += p.x;
    return sum / double(image.pixels.size());
}

// A closed sphere of albedo a with a point light at its centre (the furnace): every point of the
// wall sees the whole inside alike, so its exitance B obeys B = a (E + B), E the light's irradiance,
// and the wall's radiance is the direct term a E / pi divided by (1 - a). The mean over the image
// of the wall with indirect light, against the same without, is 1 / (1 - a), within the Monte Carlo
// error of the global photons (several hundred thousand stores over the image's estimates: well
// under 1%) and the cut after kMaxDiffuseBounces (0.08% at a = 0.8). With final gathering
// (gather_rays > 0) the same holds: each gather hit's direct and global irradiance is the end's.
double FurnaceRatio(double albedo, int gather_rays) {
    const std::string a = std::to_string(albedo);
    const Scene scene = Load(R"(
camera: {position: [0, 0, 0.4], look_at: [0, -0.3, -1], fov: 70, resolution: [24, 24]}
settings: {indirect: true}
materials: {wall: {type: diffuse, color: [)" + a + ", " + a + ", " + a + R"(]}}
lights: [{type: point, position: [0, 0, 0], power: 100}]
objects: [{shape: {type: sphere, radius: 1, segments: 96, rings: 48}, material: wall}]
)");
    RenderOptions options = testing::SmallFrame(1000, 24, 24);
    options.global_photons = 200000;
    options.gather_rays = gather_rays;
    const double with = MeanRed(testing::RenderStill(Backend::Cpu(), scene, options, 2)->CurrentImage());
    options.indirect = "off";
    const double without = MeanRed(testing::RenderStill(Backend::Cpu(), scene, options, 1)->CurrentImage());
    return with / without;
}

TEST(IndirectLight, FurnaceWallIsTheDirectTermOverOneMinusTheAlbedo) {
    for (const double albedo : {0.3, 0.8})
        EXPECT_NEAR(FurnaceRatio(albedo, 0), 1.0 / (1.0 - albedo), 0.015 / (1.0 - albedo)) << "albedo " << albedo;
}

TEST(IndirectLight, FurnaceWallWithFinalGatheringIsTheDirectTermOverOneMinusTheAlbedo) {
    for (const double albedo : {0.3, 0.8})
        EXPECT_NEAR(FurnaceRatio(albedo, 8), 1.0 / (1.0 - albedo), 0.015 / (1.0 - albedo)) << "albedo " << albedo;
}

// Red over green of the Cornell box's white back wall, in a patch of the image (fractions of its
// width and height) above the spheres.
double RedOverGreen(const Image& image, double x0, double x1) {
    double red = 0.0, green = 0.0;
    for (int y = int(0.3 * image.height); y < int(0.45 * image.height); ++y)
        for (int x = int(x0 * image.width); x < int(x1 * image.width); ++x) {
            red += image.at(x, y).x;
            green += image.at(x, y).y;
        }
    return red / green;
}

// Colour bleeding: the white back wall is lit white, directly; with indirect light its side by the
// red wall turns red and its side by the green wall green.
TEST(IndirectLight, CornellBoxWallsBleedTheirColour) {
    const Scene scene = LoadScene(std::string(CAUSTICA_SOURCE_DIR) + "/scenes/cornell-glass.yaml");
    RenderOptions options = testing::SmallFrameWithIndirectLight(20000, 60, 60, 100000);
    const Image with = testing::RenderStill(Backend::Cpu(), scene, options, 2)->CurrentImage();
    options.indirect = "off";
    const Image without = testing::RenderStill(Backend::Cpu(), scene, options, 2)->CurrentImage();
    EXPECT_NEAR(RedOverGreen(without, 0.2, 0.3), RedOverGreen(without, 0.7, 0.8), 0.01);
    EXPECT_GT(RedOverGreen(with, 0.2, 0.3), 1.2 * RedOverGreen(without, 0.2, 0.3));
    EXPECT_LT(RedOverGreen(with, 0.7, 0.8), 0.97 * RedOverGreen(without, 0.7, 0.8));
}

// The global photons are keyed by (seed, sample, photon), and stored in emission order: the same
// frame twice is the same image, bit for bit.
TEST(IndirectLight, FramesAreDeterministic) {
    const Scene scene = LoadScene(std::string(CAUSTICA_SOURCE_DIR) + "/scenes/cornell-glass.yaml");
    RenderOptions options = testing::SmallFrameWithIndirectLight(5000, 32, 32, 20000);
    const auto first = testing::RenderStill(Backend::Cpu(), scene, options, 2);
    const auto second = testing::RenderStill(Backend::Cpu(), scene, options, 2);
    const std::vector<Photon> a = first->StoredGlobalPhotons(), b = second->StoredGlobalPhotons();
    ASSERT_GT(a.size(), 0u);
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(Photon)), 0);
    EXPECT_EQ(first->CurrentImage().pixels, second->CurrentImage().pixels);
}

// Final gathering's rays are keyed by (seed, sample, end, ray) and each sums its own light: the same
// frame twice is the same image, bit for bit, and it differs from the density estimate's.
TEST(IndirectLight, FinalGatheringIsDeterministic) {
    const Scene scene = LoadScene(std::string(CAUSTICA_SOURCE_DIR) + "/scenes/cornell-glass.yaml");
    RenderOptions options = testing::SmallFrameWithIndirectLight(5000, 24, 24, 20000);
    const Image density = testing::RenderStill(Backend::Cpu(), scene, options, 2)->CurrentImage();
    options.gather_rays = 4;
    const Image first = testing::RenderStill(Backend::Cpu(), scene, options, 2)->CurrentImage();
    const Image second = testing::RenderStill(Backend::Cpu(), scene, options, 2)->CurrentImage();
    EXPECT_EQ(first.pixels, second.pixels);
    EXPECT_NE(first.pixels, density.pixels);
}

// The options and the scene together: gather rays from the scene unless --gather-rays says, the
// filter only where asked (render and bench: "off"; the viewer: "scene").
TEST(IndirectLight, SettingsTakeGatherRaysAndDenoise) {
    Scene scene = Load("settings: {gather_rays: 8, denoise: true}\n");
    RenderOptions options;
    RenderSettings s = MakeRenderSettings(scene, options, false);
    EXPECT_EQ(s.gather_rays, 8u);
    EXPECT_FALSE(s.denoise);
    options.gather_rays = 0;
    options.denoise = "scene";
    s = MakeRenderSettings(scene, options, false);
    EXPECT_EQ(s.gather_rays, 0u);
    EXPECT_TRUE(s.denoise);
    scene.settings.denoise = false;
    EXPECT_FALSE(MakeRenderSettings(scene, options, false).denoise);
    options.gather_rays = 2000;
    EXPECT_THROW(MakeRenderSettings(scene, options, false), InputError);
}

}  // namespace
}  // namespace caustica
