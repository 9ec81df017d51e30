// Progressive photon mapping in whole frames (CPU backend) against an analytic answer: a floor lit
// through a flat glass slab by a directional light, half of it in the sharp shadow of an opaque
// strip above the slab.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "renderer/frame_renderer.h"
#include "renderer/scene/scene_eval.h"
#include "renderer/scene/scene_loader.h"
#include "renderer/scene_to_frame.h"
#include "tests/renderer/render_still.h"

namespace caustica {
namespace {

// The camera looks straight down at a white floor from under the slab (y in [1, 1.1], glass of
// ior 1.5); the strip (y in [1.19, 1.21]) covers x < 0, so the caustic's edge runs along x = 0, the
// middle of the image.
const char* kSlabScene = R"(
camera: {position: [0, 0.9, 0], look_at: [0, 0, 0], up: [0, 0, -1], fov: 8, resolution: [64, 8]}
settings: {k: 50, ambient: [0, 0, 0], indirect: false}
materials:
  white: {type: diffuse, color: [1, 1, 1]}
  glass: {type: glass, ior: 1.5}
lights: [{type: directional, direction: [0, -1, 0], power: 100}]
objects:
  - {shape: {type: plane, size: [4, 4]}, material: white}
  - {shape: {type: box, size: [3, 0.1, 3]}, transform: {translate: [0, 1.05, 0]}, material: glass}
  - {shape: {type: box, size: [2, 0.02, 3]}, transform: {translate: [-1, 1.2, 0]}, material: white}
)";

// The slab's transmittance at normal incidence with its internal reflections: each face reflects
// F = ((n - 1) / (n + 1))^2, so T = (1 - F)^2 (1 + F^2 + F^4 + ...) = (1 - F) / (1 + F).
constexpr double kFresnel = 0.04;
constexpr double kTransmittance = (1.0 - kFresnel) / (1.0 + kFresnel);

struct SlabImage {
    std::vector<double> irradiance;  // per column (x grows to the right), the mean over its rows (W/m^2)
};

SlabImage RenderSlab(const Scene& scene, const char* progressive, int samples) {
    RenderOptions options = testing::SmallFrame(100000, 64, 8);
    options.view = "caustics";
    options.progressive = progressive;
    const Image image = testing::RenderStill(Backend::Cpu(), scene, options, samples)->CurrentImage();
    SlabImage out;
    // A diffuse surface of albedo 1 shows irradiance / pi.
    for (int x = 0; x < image.width; ++x) {
        double sum = 0.0;
        for (int y = 0; y < image.height; ++y) sum += image.at(x, y).x;
        out.irradiance.push_back(sum / image.height * M_PI);
    }
    return out;
}

// The mean relative error of the columns lit in full whose centres lie from 'from' to 'to' pixels
// past the edge; the lit side is the brighter half.
double EdgeError(const SlabImage& s, double expected, int from, int to) {
    const int n = int(s.irradiance.size()), half = n / 2;
    double left = 0.0, right = 0.0;
    for (int x = 0; x < half; ++x) left += s.irradiance[x], right += s.irradiance[n - 1 - x];
    const bool lit_right = right > left;
    double error = 0.0;
    for (int i = from; i < to; ++i) {
        const int x = lit_right ? half + i : half - 1 - i;
        error += (s.irradiance[x] - expected) / expected;
    }
    return error / (to - from);
}

// The columns next to the edge, where the fixed-k disc reaches into the shadow, against those far
// from it (within the photons' noise of the right value either way). Fixed k keeps its bias however
// many samples it takes; the progressive estimate's shrinks as its radii do.
TEST(Progressive, ConvergesToTheIrradianceThroughTheSlabWhereFixedKStaysBiased) {
    const Scene scene = testing::SceneFromYaml(kSlabScene, "progressive-test.yaml");
    const FrameInput input = ToFrameInput(scene, EvaluateScene(scene, 0.0), {64, 8});
    const double expected = double(input.lights[0].power.x) * kTransmittance;

    const SlabImage fixed_16 = RenderSlab(scene, "off", 16), fixed_64 = RenderSlab(scene, "off", 64);
    const SlabImage progressive_16 = RenderSlab(scene, "on", 16), progressive_64 = RenderSlab(scene, "on", 64);
    for (const SlabImage* s : {&fixed_64, &progressive_64}) EXPECT_NEAR(EdgeError(*s, expected, 12, 30), 0.0, 0.02);
    const double fixed_edge = EdgeError(fixed_64, expected, 1, 4);
    EXPECT_LT(fixed_edge, -0.05);
    EXPECT_NEAR(EdgeError(fixed_16, expected, 1, 4), fixed_edge, 0.015);
    const double progressive_edge = EdgeError(progressive_64, expected, 1, 4);
    EXPECT_LT(std::fabs(progressive_edge), 0.5 * std::fabs(fixed_edge));
    // Slowly, as the radii shrink (as the samples to the power -1/6 with alpha = 2/3): at 64 samples
    // -3.0%, at 16 -3.7%, where fixed k gives -7.3% and -6.7% (2-core CPU run of this test).
    EXPECT_LT(std::fabs(progressive_edge), std::fabs(EdgeError(progressive_16, expected, 1, 4)));
}

}  // namespace
}  // namespace caustica
