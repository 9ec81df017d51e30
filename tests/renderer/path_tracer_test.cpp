// The reference path tracer (--integrator path) against the photon mapper with indirect light, on
// a small closed diffuse box lit by an area light: the two integrators estimate the same light
// paths (direct light by the same shadow rays, diffuse interreflection by global photons or by
// paths), so their images agree up to the photon maps' blur and the Monte Carlo noise.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "renderer/frame_renderer.h"
#include "renderer/scene/scene_loader.h"
#include "renderer/scene_to_frame.h"
#include "tests/renderer/render_still.h"

namespace caustica {
namespace {

// The Cornell box's walls, closed by a front wall behind the camera, with a box on the floor and a
// rect lamp under the ceiling.
const char* kBoxScene = R"(
camera: {position: [0, 1, 0.95], look_at: [0, 0.9, -1], fov: 80, resolution: [32, 32]}
settings: {ambient: [0, 0, 0], indirect: true, progressive: false, global_k: 64}
materials:
  white: {type: diffuse, color: [0.73, 0.73, 0.73]}
  red: {type: diffuse, color: [0.63, 0.065, 0.05]}
  green: {type: diffuse, color: [0.14, 0.45, 0.09]}
lights: [{type: rect, position: [0, 1.99, 0], width: 0.5, height: 0.4, power: 60}]
objects:
  - {shape: {type: plane, size: [2, 2]}, material: white}
  - {shape: {type: plane, size: [2, 2]}, material: white, transform: {translate: [0, 2, 0], rotate: [180, 0, 0]}}
  - {shape: {type: plane, size: [2, 2]}, material: white, transform: {translate: [0, 1, -1], rotate: [90, 0, 0]}}
  - {shape: {type: plane, size: [2, 2]}, material: white, transform: {translate: [0, 1, 1], rotate: [-90, 0, 0]}}
  - {shape: {type: plane, size: [2, 2]}, material: red, transform: {translate: [-1, 1, 0], rotate: [0, 0, -90]}}
  - {shape: {type: plane, size: [2, 2]}, material: green, transform: {translate: [1, 1, 0], rotate: [0, 0, 90]}}
  - {shape: {type: box, size: [0.5, 0.6, 0.5]}, material: white, transform: {translate: [0.3, 0.3, -0.4], rotate: [0, 20, 0]}}
)";

// The mean of each channel over a block of the image (block bx, by of n x n blocks).
Rgb BlockMean(const Image& image, int bx, int by, int n) {
    Rgb sum(0.0f);
    const int w = image.width / n, h = image.height / n;
    for (int y = by * h; y < (by + 1) * h; ++y)
        for (int x = bx * w; x < (bx + 1) * w; ++x) sum += image.at(x, y);
    return sum / float(w * h);
}

// The worst relative difference of any channel of any 8x8 block between the images.
double WorstBlockError(const Image& photon, const Image& path) {
    double worst = 0.0;
    for (int by = 0; by < 4; ++by)
        for (int bx = 0; bx < 4; ++bx) {
            const Rgb p = BlockMean(photon, bx, by, 4), q = BlockMean(path, bx, by, 4);
            for (int c = 0; c < 3; ++c) {
                const double error = std::fabs(double(p[c]) - double(q[c])) / double(q[c]);
                worst = std::fmax(worst, error);
            }
        }
    return worst;
}

// The path tracer's image of the box (512 samples), rendered once for the tests below.
const Image& PathImage() {
    static const Image image = [] {
        const Scene scene = testing::SceneFromYaml(kBoxScene, "path-tracer-test.yaml");
        RenderOptions options = testing::SmallFrame(1000, 32, 32);
        options.shadow_samples = 4;
        options.integrator = "path";
        return testing::RenderStill(Backend::Cpu(), scene, options, 512)->CurrentImage();
    }();
    return image;
}

Image PhotonImage(int gather_rays) {
    const Scene scene = testing::SceneFromYaml(kBoxScene, "path-tracer-test.yaml");
    RenderOptions options = testing::SmallFrame(1000, 32, 32);
    options.shadow_samples = 4;
    options.global_photons = 100000;
    options.gather_rays = gather_rays;
    return testing::RenderStill(Backend::Cpu(), scene, options, 8)->CurrentImage();
}

TEST(PathTracer, AgreesWithThePhotonMapperOnADiffuseBoxUnderAnAreaLight) {
    EXPECT_LT(WorstBlockError(PhotonImage(0), PathImage()), 0.05);  // 2.8% when written
}

// Final gathering reads the maps one bounce away from the eye: the same light.
TEST(PathTracer, AgreesWithFinalGatheringOnADiffuseBoxUnderAnAreaLight) {
    EXPECT_LT(WorstBlockError(PhotonImage(16), PathImage()), 0.05);  // 3.4% when written
}

}  // namespace
}  // namespace caustica
