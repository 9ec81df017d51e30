// Photon tracing against scenes with known answers (CPU backend): energy through a glass slab,
// the nephroid cusp of a mirror ring, and no photons without specular objects.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "renderer/frame_renderer.h"
#include "renderer/render_options.h"
#include "renderer/scene_eval.h"
#include "renderer/scene_loader.h"

namespace caustica {
namespace {

std::vector<Photon> TracePhotons(const std::string& yaml, int photons, uint64_t seed = 1) {
    SceneLoadOptions quiet;
    quiet.print_warnings = false;
    const Scene scene = LoadSceneFromString(yaml, "test.yaml", quiet);
    const Backend cpu = Backend::Cpu();
    RenderOptions options;
    options.photons = photons;
    options.seed = int(seed);
    options.width = 8;
    options.height = 8;
    FrameRenderer renderer(cpu);
    PrepareFrame(renderer, scene, options, cpu, 0.0);
    renderer.AddSample();
    return renderer.StoredPhotons();
}

TEST(PhotonPhysics, NoSpecularObjectsStoreNoPhotons) {
    const std::vector<Photon> photons = TracePhotons(R"(
lights: [{type: point, position: [0, 2, 0], power: 100}]
materials: {white: {type: diffuse}}
objects:
  - {shape: {type: plane, size: [4, 4]}, material: white}
  - {shape: {type: sphere, radius: 0.5}, material: white, transform: {translate: [0, 0.5, 0]}}
)",
                                                     50000);
    EXPECT_TRUE(photons.empty()) << photons.size() << " photons stored";
}

// Light falling straight down through a glass slab: at normal incidence each face reflects
// R = ((n - 1) / (n + 1))^2, and summing the light that bounces inside the slab any number of
// times, the slab transmits (1 - R) / (1 + R) of what falls on it. Everything transmitted lands on
// the floor after two refractions, so the stored photons carry irradiance * area * that fraction.
TEST(PhotonPhysics, GlassSlabTransmitsTheFresnelFraction) {
    const float ior = 1.5f;
    const std::string yaml = R"(
lights: [{type: directional, direction: [0, -1, 0], power: 1000}]
materials:
  floor: {type: diffuse}
  glass: {type: glass, ior: 1.5}
objects:
  - {shape: {type: plane, size: [6, 6]}, material: floor}
  - {shape: {type: box, size: [1, 0.1, 1]}, material: glass, transform: {translate: [0, 1, 0]}}
)";
    const std::vector<Photon> photons = TracePhotons(yaml, 400000);
    ASSERT_FALSE(photons.empty());
    double stored = 0.0;
    for (const Photon& p : photons) {
        EXPECT_NEAR(p.position.y, 0.0f, 1e-3f);
        EXPECT_LE(std::fabs(p.position.x), 0.5f + 1e-3f);
        EXPECT_LE(std::fabs(p.position.z), 0.5f + 1e-3f);
        stored += p.power.x;
    }
    // The light's irradiance: its power through the disc of the scene's bounding sphere (the
    // floor, 6 x 6 with the slab above it).
    SceneLoadOptions quiet;
    quiet.print_warnings = false;
    const SceneFrame frame = EvaluateScene(LoadSceneFromString(yaml, "test.yaml", quiet), 0.0);
    const double r = 0.5 * Length(frame.bounds.Extent());
    const double irradiance = 1000.0 / (M_PI * r * r);
    const double reflectance = std::pow((ior - 1.0) / (ior + 1.0), 2.0);
    const double expected = irradiance * 1.0 * (1.0 - reflectance) / (1.0 + reflectance);
    EXPECT_NEAR(stored, expected, 0.01 * expected) << "stored power " << stored << " W, expected " << expected;
}

// A mirror ring under distant light grazing the floor: the light reflected inside the ring forms
// a nephroid on the floor whose cusp lies half the ring's radius from its centre, toward the wall
// that reflects it (the paraxial focus of a circular mirror).
TEST(PhotonPhysics, MirrorRingFocusesANephroidWithItsCuspAtHalfTheRadius) {
    const std::vector<Photon> photons = TracePhotons(R"(
lights: [{type: directional, direction: [0.94, -0.342, 0], power: 1000}]
materials:
  floor: {type: diffuse}
  mirror: {type: mirror, color: [1, 1, 1]}
objects:
  - {shape: {type: plane, size: [6, 6]}, material: floor}
  - {shape: {type: ring, inner_radius: 1.0, outer_radius: 1.02, height: 0.6, segments: 720}, material: mirror,
     transform: {translate: [0, 0.3, 0]}}
)",
                                                     400000);
    // Photon power along the x axis inside the ring (a narrow strip |z| < 0.02), in bins of 0.02.
    constexpr int kBins = 90;
    std::vector<double> power(kBins, 0.0);
    for (const Photon& p : photons) {
        if (std::fabs(p.position.z) >= 0.02f || std::fabs(p.position.x) >= 0.9f) continue;
        const int bin = int((p.position.x + 0.9f) / 0.02f);
        if (bin >= 0 && bin < kBins) power[bin] += p.power.x;
    }
    int peak = 0;
    for (int b = 1; b < kBins; ++b)
        if (power[b] > power[peak]) peak = b;
    const float peak_x = -0.9f + (peak + 0.5f) * 0.02f;
    EXPECT_NEAR(peak_x, 0.5f, 0.05f) << "the brightest point on the axis is at x = " << peak_x;
}

}  // namespace
}  // namespace caustica
