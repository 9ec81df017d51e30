// Area lights in whole frames (CPU backend) against analytic answers: the irradiance under a small,
// far light is a point light's, a disc light's penumbra behind a sphere spans the tangent lines',
// and eye rays see a light's emitting side.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "renderer/frame_renderer.h"
#include "renderer/scene/scene_loader.h"
#include "renderer/scene_to_frame.h"
#include "tests/renderer/render_still.h"

namespace caustica {
namespace {

Scene Load(const std::string& yaml) { return testing::SceneFromYaml(yaml, "area-light-test.yaml"); }

Image Render(const Scene& scene, int width, int height, int samples, int shadow_samples) {
    RenderOptions options = testing::SmallFrame(1000, width, height);
    options.shadow_samples = shadow_samples;
    return testing::RenderStill(Backend::Cpu(), scene, options, samples)->CurrentImage();
}

// A white floor seen from above, lit by one light 5 m over its centre: the centre pixel's radiance
// is albedo / pi times the irradiance there.
double IrradianceBelow(const std::string& light) {
    const Scene scene = Load(R"(
camera: {position: [0, 3, 0], look_at: [0, 0, 0], up: [0, 0, -1], fov: 2, resolution: [9, 9]}
settings: {ambient: [0, 0, 0]}
materials: {white: {type: diffuse, color: [1, 1, 1]}}
objects: [{shape: {type: plane, size: [4, 4]}, material: white}]
lights: [)" + light + "]\n");
    return Render(scene, 9, 9, 4, 64).at(4, 4).x * M_PI;
}

TEST(AreaLight, SmallFarLightsGiveThePointLightsIrradiance) {
    const double point = IrradianceBelow("{type: point, position: [0, 5, 0], power: 100}");
    EXPECT_NEAR(point, 100.0 / (4.0 * M_PI * 25.0), 1e-4 * point);
    for (const std::string light : {"{type: rect, position: [0, 5, 0], width: 0.1, height: 0.06, power: 100}",
                                    "{type: disc, position: [0, 5, 0], radius: 0.05, power: 100}",
                                    "{type: sphere, position: [0, 5, 0], radius: 0.05, power: 100}"})
        EXPECT_NEAR(IrradianceBelow(light), point, 0.01 * point) << light;
}

// Where the tangent from (qx, qy) to the circle (0, cy) of radius r that passes on its +x side
// meets the floor y = 0.
double TangentOnTheFloor(double qx, double qy, double cy, double r) {
    const double dx = -qx, dy = cy - qy, d = std::hypot(dx, dy);
    const double angle = std::atan2(dy, dx) + std::asin(r / d);  // turned toward +x (the light is above)
    return qx - qy * std::cos(angle) / std::sin(angle);
}

// The fraction of the irradiance from a disc light (centre (lx, ly, 0), radius a, facing down) that
// reaches floor point (x, 0, 0) past a sphere of radius r at (0, sy, 0): a polar grid of the disc,
// equal areas per point, each weighted by cos * cos / distance^2.
double VisibleFraction(double x, double lx, double ly, double a, double sy, double r) {
    constexpr int kRings = 150, kSpokes = 300;
    double seen = 0.0, all = 0.0;
    for (int i = 0; i < kRings; ++i)
        for (int j = 0; j < kSpokes; ++j) {
            const double rho = a * std::sqrt((i + 0.5) / kRings), phi = (j + 0.5) * 2.0 * M_PI / kSpokes;
            // The segment from the floor point to the light point against the sphere.
            const double dx = lx + rho * std::cos(phi) - x, dy = ly, dz = rho * std::sin(phi);
            const double len2 = dx * dx + dy * dy + dz * dz;
            const double t = std::fmin(1.0, std::fmax(0.0, (-x * dx + sy * dy) / len2));  // closest to the centre
            const double cx = x + t * dx, cy = t * dy - sy, cz = t * dz;
            const double weight = dy * dy / (len2 * len2);
            all += weight;
            if (cx * cx + cy * cy + cz * cz > r * r) seen += weight;
        }
    return seen / all;
}

// A disc light of radius a at height 2, its centre above x = -0.8, facing down; a sphere of radius r
// at height 0.8 above x = 0 shadows the floor. In the plane through both centres the umbra ends (on
// the side away from the light) where the tangent from the disc's nearer rim point meets the floor,
// and the penumbra where the tangent from its farther rim point does. A camera high above looks
// down along that line; the lit fraction is the image with the sphere over the image without it
// (the same shadow rays, so the ratio has no noise of its own). It must follow the fraction of the
// disc each point sees, and light must start and end arriving where the tangents say (thresholds
// of 0.5% shift each end a little inward: the first sliver of the disc grows as its depth^1.5).
TEST(AreaLight, DiscLightPenumbraBehindASphereSpansTheTangentLines) {
    const double a = 0.3, light_x = -0.8, light_y = 2.0, r = 0.2, sphere_y = 0.8;
    const std::string common = R"(
camera: {position: [0.8, 3, 0], look_at: [0.8, 0, 0], up: [0, 0, -1], fov: 1, resolution: [1024, 16]}
settings: {ambient: [0, 0, 0]}
materials: {white: {type: diffuse, color: [0.5, 0.5, 0.5]}}
lights: [{type: disc, position: [-0.8, 2, 0], radius: 0.3, power: 100}]
objects:
  - {shape: {type: plane, size: [6, 6]}, material: white}
)";
    const Scene free = Load(common);
    const Scene shadowed =
        Load(common + "  - {shape: {type: sphere, radius: 0.2, segments: 256, rings: 128}, material: white, "
                      "transform: {translate: [0, 0.8, 0]}}\n");
    const Image lit = Render(free, 1024, 16, 1, 256), shaded = Render(shadowed, 1024, 16, 1, 256);
    const CameraView camera = ToFrameInput(free, EvaluateScene(free, 0.0), {1024, 16}).camera;
    // The floor's x under each pixel of the middle row.
    auto floor_x = [&](int x) {
        const Ray ray = camera.Generate(x + 0.5f, 8.0f);
        return double(ray.origin.x + ray.direction.x * (-ray.origin.y / ray.direction.y));
    };
    const double umbra = TangentOnTheFloor(light_x + a, light_y, sphere_y, r);
    const double penumbra = TangentOnTheFloor(light_x - a, light_y, sphere_y, r);
    const double width = penumbra - umbra;
    ASSERT_GT(width, 0.3);
    // From inside the umbra outward: where light first arrives, and where all of it does.
    double first_light = NAN, all_light = NAN;
    for (int x = 0; x < 1024; ++x) {
        const double at = floor_x(x);
        if (at < umbra - 0.1 || at > penumbra + 0.1) continue;
        const double fraction = shaded.at(x, 8).x / lit.at(x, 8).x;
        EXPECT_NEAR(fraction, VisibleFraction(at, light_x, light_y, a, sphere_y, r), 0.02) << "at x = " << at;
        if (std::isnan(first_light) && fraction > 0.005) first_light = at;
        if (std::isnan(all_light) && fraction > 0.995) all_light = at;
    }
    ASSERT_FALSE(std::isnan(first_light) || std::isnan(all_light));
    EXPECT_NEAR(first_light, umbra, 0.03 * width);
    EXPECT_NEAR(all_light, penumbra, 0.04 * width);
    EXPECT_NEAR(all_light - first_light, width, 0.05 * width)
        << "penumbra from " << first_light << " to " << all_light << " m, expected " << umbra << " to " << penumbra;
}

// A rect light overhead, seen from below: its radiance, power / (4 pi area); from above, nothing
// (it emits downward only, and lights block no ray: the floor under it shows through).
TEST(AreaLight, EyeRaysSeeTheEmittingSideOnly) {
    const std::string lights = "lights: [{type: rect, position: [0, 2, 0], width: 1, height: 0.5, power: 40}]\n";
    const Scene below = Load("camera: {position: [0, 0, 0], look_at: [0, 1, 0], up: [0, 0, -1], fov: 5, "
                             "resolution: [8, 8]}\n" + lights);
    const Rgb seen = Render(below, 8, 8, 1, 1).at(4, 4);
    EXPECT_NEAR(seen.x, 40.0 / (4.0 * M_PI * 0.5), 1e-4);
    const Scene above = Load("camera: {position: [0, 4, 0], look_at: [0, 0, 0], up: [0, 0, -1], fov: 5, "
                             "resolution: [8, 8]}\nsettings: {ambient: [0, 0, 0]}\n"
                             "materials: {black: {type: diffuse, color: [0, 0, 0]}}\n"
                             "objects: [{shape: {type: plane, size: [4, 4]}, material: black}]\n" + lights);
    EXPECT_EQ(Render(above, 8, 8, 1, 1).at(4, 4), Rgb(0.0f));
}

}  // namespace
}  // namespace caustica
