// Photon tracing against scenes with known answers (CPU backend): energy through a glass slab,
// the nephroid cusp of a mirror ring, and no photons without specular objects.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "photon/specular.h"
#include "renderer/frame_renderer.h"
#include "renderer/scene/scene_eval.h"
#include "renderer/scene/scene_loader.h"
#include "renderer/scene_to_frame.h"
#include "tests/renderer/render_still.h"

namespace caustica {
namespace {

std::vector<Photon> TracePhotons(const std::string& yaml, int photons, uint64_t seed = 1) {
    SceneLoadOptions quiet;
    quiet.print_warnings = false;
    const Scene scene = LoadSceneFromString(yaml, "test.yaml", quiet);
    RenderOptions options = testing::SmallFrame(photons, 8, 8);
    options.seed = int(seed);
    return testing::RenderStill(Backend::Cpu(), scene, options, 1)->StoredPhotons();
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

// Area lights emit caustic photons from their surface with the right power in the right directions:
// a small light 5 m above a glass slab (a rect or disc turned so that the slab lies 45 degrees off
// its axis), as a point of intensity I(theta) at its centre (I0 cos theta for a rect or disc, I0 for
// a sphere; exact to about (size / distance)^2), sends I(theta) cos(incidence) / distance^2 onto
// each piece of the slab's top, of which the slab transmits (1 - R) / (1 + R) (R: Fresnel's
// reflectance at that incidence) to the floor.
TEST(PhotonPhysics, AreaLightsSendTheirPowerThroughAGlassSlab) {
    const float ior = 1.5f, power = 1000.0f, height = 5.0f;  // from the light to the slab's top
    for (const std::string light : {"{type: rect, position: [0, 6.05, 0], width: 0.2, height: 0.15, rotate: [0, 0, 45], "
                                    "power: 1000}",
                                    "{type: disc, position: [0, 6.05, 0], radius: 0.1, rotate: [0, 0, 45], power: 1000}",
                                    "{type: sphere, position: [0, 6.05, 0], radius: 0.1, power: 1000}"}) {
        const std::string yaml = "lights: [" + light + R"(]
materials:
  floor: {type: diffuse}
  glass: {type: glass, ior: 1.5}
objects:
  - {shape: {type: plane, size: [20, 20]}, material: floor}
  - {shape: {type: box, size: [1, 0.1, 1]}, material: glass, transform: {translate: [0, 1, 0]}}
)";
        double stored = 0.0;
        for (const Photon& p : TracePhotons(yaml, 400000)) {
            EXPECT_NEAR(p.position.y, 0.0f, 1e-3f);
            stored += p.power.x;
        }
        const bool lambertian = light.find("sphere") == std::string::npos;
        constexpr int kSteps = 400;
        double expected = 0.0;
        for (int i = 0; i < kSteps; ++i)
            for (int j = 0; j < kSteps; ++j) {
                const double x = (i + 0.5) / kSteps - 0.5, z = (j + 0.5) / kSteps - 0.5;
                const double d2 = x * x + z * z + double(height) * height, d = std::sqrt(d2);
                const double cos_incidence = height / d;
                // The turned light faces (sin 45, -cos 45, 0).
                const double cos_light = (x + height) * std::sqrt(0.5) / d;
                const double intensity = power / (4.0 * M_PI) * (lambertian ? std::fmax(0.0, cos_light) : 1.0);
                const double r = FresnelDielectric(float(cos_incidence), ior);
                expected += intensity * cos_incidence / d2 * (1.0 - r) / (1.0 + r) / (kSteps * kSteps);
            }
        EXPECT_NEAR(stored, expected, 0.01 * expected) << light << ": stored power " << stored << " W, expected "
                                                        << expected;
    }
}

// Light falling straight down on a glass sphere above a wide floor. A ray at impact parameter b
// meets the sphere at angle theta (sin theta = b / r) and refracts to theta_t; by the sphere's
// symmetry every later hit inside is at theta_t too, with the same Fresnel reflectance R. The
// part that leaves after k internal reflections carries (1 - R)^2 R^k (k = -1: the part reflected
// outside, R) and has turned by D = 2 (theta - theta_t) + k (pi - 2 theta_t) (pi - 2 theta for the
// outside reflection); it reaches the floor when it goes down, cos D > 0. Summed over the disc the
// light crosses (and up to the bounce limit of 8 specular interactions), that is the power the
// floor's photons must carry.
TEST(PhotonPhysics, GlassSphereSendsTheFresnelFractionToTheFloor) {
    const double ior = 1.5, radius = 0.5;
    const std::string yaml = R"(
lights: [{type: directional, direction: [0, -1, 0], power: 1000}]
materials:
  floor: {type: diffuse}
  glass: {type: glass, ior: 1.5}
settings: {max_bounces: 8}
objects:
  - {shape: {type: plane, size: [40, 40]}, material: floor}
  - {shape: {type: sphere, radius: 0.5, segments: 128, rings: 64}, material: glass, transform: {translate: [0, 1, 0]}}
)";
    SceneLoadOptions quiet;
    quiet.print_warnings = false;
    const SceneFrame frame = EvaluateScene(LoadSceneFromString(yaml, "test.yaml", quiet), 0.0);
    const double scene_radius = 0.5 * Length(frame.bounds.Extent());
    const double irradiance = 1000.0 / (M_PI * scene_radius * scene_radius);

    auto fresnel = [](double cos_i, double eta) {
        const double sin2_t = (1.0 - cos_i * cos_i) / (eta * eta);
        const double cos_t = std::sqrt(1.0 - sin2_t);
        const double rp = (eta * cos_i - cos_t) / (eta * cos_i + cos_t), rs = (cos_i - eta * cos_t) / (cos_i + eta * cos_t);
        return 0.5 * (rp * rp + rs * rs);
    };
    constexpr int kSteps = 20000;
    double expected = 0.0;
    for (int i = 0; i < kSteps; ++i) {
        const double b = (i + 0.5) / kSteps * radius;
        const double theta = std::asin(b / radius), theta_t = std::asin(std::sin(theta) / ior);
        const double r = fresnel(std::cos(theta), ior);
        double down = std::cos(M_PI - 2.0 * theta) > 0.0 ? r : 0.0;
        for (int k = 0; k + 2 <= 8; ++k) {  // entry, k reflections inside, exit
            const double d = 2.0 * (theta - theta_t) + k * (M_PI - 2.0 * theta_t);
            if (std::cos(d) > 0.0) down += (1.0 - r) * (1.0 - r) * std::pow(r, k);
        }
        expected += down * 2.0 * M_PI * b * (radius / kSteps);
    }
    expected *= irradiance;

    double stored = 0.0;
    for (const Photon& p : TracePhotons(yaml, 400000)) stored += p.power.x;
    EXPECT_NEAR(stored, expected, 0.02 * expected) << "stored power " << stored << " W, expected " << expected;
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
