// The eye rays' ray trees (CPU backend): splitting at glass conserves what the Fresnel branches
// carry, a closed mirror box ends every path at the depth limit, and the split tree's image is the
// mean of the one-path-per-pixel images.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "photon/scatter.h"
#include "renderer/frame_renderer.h"
#include "renderer/scene/scene_loader.h"
#include "renderer/scene_to_frame.h"
#include "tests/renderer/render_still.h"

namespace caustica {
namespace {

Scene Load(const std::string& yaml) { return testing::SceneFromYaml(yaml, "ray-tree-test.yaml"); }

std::unique_ptr<FrameRenderer> Render(const Scene& scene, int size, int samples, int splits, int seed = 1) {
    RenderOptions options = testing::SmallFrame(0, size, size);
    options.specular_splits = splits;
    options.seed = seed;
    return testing::RenderStill(Backend::Cpu(), scene, options, samples);
}

// The branches of a glass point share its weight: reflectance and 1 - reflectance of the
// transmittance of the glass the ray crossed; total internal reflection gives all to reflection.
TEST(RayTree, FresnelBranchesShareTheTransmittance) {
    SurfaceMaterial glass;
    glass.type = SurfaceType::Glass;
    glass.ior = 1.5f;
    glass.absorption = Rgb(0.5f, 1.0f, 2.0f);
    SurfacePoint p;
    p.geometric_normal = p.shading_normal = Vec3(0, 1, 0);
    p.material = &glass;
    p.entering = true;
    const Vec3 d = Normalize(Vec3(0.6f, -1.0f, 0.0f));
    const SpecularBranches in = SplitSpecular(p, d, 3.0f);
    EXPECT_EQ(in.weight, Rgb(1.0f));  // from outside: nothing absorbed
    EXPECT_GT(in.reflectance, 0.0f);
    EXPECT_LT(in.reflectance, 0.2f);
    EXPECT_NEAR(in.reflectance, FresnelDielectric(-Dot(d, p.shading_normal), 1.5f), 1e-7f);
    p.entering = false;  // leaving, after 0.2 m inside
    const SpecularBranches out = SplitSpecular(p, d, 0.2f);
    const Rgb kept = out.weight * out.reflectance + out.weight * (1.0f - out.reflectance);
    EXPECT_NEAR(kept.x, std::exp(-0.1f), 1e-6f);
    EXPECT_NEAR(kept.z, std::exp(-0.4f), 1e-6f);
    const SpecularBranches grazing = SplitSpecular(p, Normalize(Vec3(1.0f, -0.3f, 0.0f)), 0.2f);
    EXPECT_EQ(grazing.reflectance, 1.0f);  // past the critical angle from inside
}

// A glass slab seen face on under a uniform sky of radiance 1: the pixel gets R from the first
// reflection and (1 - R)^2 tau / (1 - R tau) from the light that crosses the slab and leaves on
// either side (tau = exp(-absorption * thickness), R = ((n - 1) / (n + 1))^2); the rest is
// absorbed.
TEST(RayTree, GlassSlabKeepsAllButWhatItAbsorbs) {
    const Scene scene = Load(R"(
camera: {position: [0, 0, 3], look_at: [0, 0, 0], fov: 2, resolution: [16, 16]}
settings: {photons: 0, ambient: [0, 0, 0], max_bounces: 16}
environment: {type: constant, color: [1, 1, 1]}
materials: {glass: {type: glass, ior: 1.5, absorption: [0, 1, 4]}}
objects: [{shape: {type: box, size: [4, 4, 0.2]}, material: glass}]
)");
    const double r = 0.04;
    for (const int splits : {16, 0}) {
        const Image image = Render(scene, 16, splits ? 4 : 256, splits)->CurrentImage();
        Rgb mean(0.0f);
        for (const Rgb& c : image.pixels) mean += c;
        mean = mean / float(image.pixels.size());
        for (int c = 0; c < 3; ++c) {
            const double tau = std::exp(-Rgb(0, 1, 4)[c] * 0.2);
            const double expected = r + (1 - r) * (1 - r) * tau / (1 - r * tau);
            EXPECT_NEAR(mean[c], expected, splits ? 0.002 : 0.01) << "splits " << splits << ", channel " << c;
        }
    }
}

// Inside a closed mirror box every path bounces until the depth limit and ends dark: the tree has
// one path a pixel at each of the max_bounces + 1 levels, and nothing grows past them.
TEST(RayTree, MirrorBoxEndsEveryPathAtTheDepthLimit) {
    const Scene scene = Load(R"(
camera: {position: [0.1, 0.2, 0.3], look_at: [1, 0.5, -0.7], resolution: [16, 16]}
settings: {photons: 0, max_bounces: 64, specular_splits: 16}
environment: {type: constant, color: [1, 1, 1]}
materials: {mirror: {type: mirror, color: [0.99, 0.99, 0.99]}}
objects: [{shape: {type: box, size: [2, 2, 2]}, material: mirror}]
)");
    const auto renderer = Render(scene, 16, 1, 16);
    for (const Rgb& c : renderer->CurrentImage().pixels) ASSERT_EQ(c, Rgb(0.0f));
    EXPECT_EQ(renderer->eye_paths(), 16u * 16u * 65u);
}

// Mirrors never split, so a mirror scene's paths are the same whether every bounce is a level of
// the tree (traced a pass a bounce) or none is (each path traced to its end by one thread: the
// lone paths of the bounce passes): the same image bit for bit, and as many rays. (A glass ball
// shut in a box that no path reaches keeps the splits on: without glass there are none.)
TEST(RayTree, LonePathsGiveThePassesOfEachBounce) {
    const Scene scene = Load(R"(
camera: {position: [0, 1, 4], look_at: [1, 0.8, -4], fov: 50, resolution: [24, 24]}
settings: {photons: 0, max_bounces: 12}
environment: {type: gradient, horizon: [0.9, 0.6, 0.3], zenith: [0.2, 0.4, 1.0]}
materials:
  floor: {type: diffuse, checker: {color_a: [0.8, 0.8, 0.8], color_b: [0.2, 0.2, 0.2], scale: 4}}
  mirror: {type: mirror, color: [0.9, 0.95, 0.9]}
  glass: {type: glass, ior: 1.5}
objects:
  - {shape: {type: plane, size: [20, 20]}, material: floor}
  - {shape: {type: box, size: [1, 1, 1]}, material: floor, transform: {translate: [0, 0.5, 12]}}
  - {shape: {type: sphere, radius: 0.3}, material: glass, transform: {translate: [0, 0.5, 12]}}
  - {shape: {type: sphere, radius: 0.4}, material: mirror, transform: {translate: [-0.3, 0.4, 0]}}
  - {shape: {type: box, size: [0.1, 3, 16]}, material: mirror, transform: {translate: [-0.4, 1.5, 0]}}
  - {shape: {type: box, size: [0.1, 3, 16]}, material: mirror, transform: {translate: [0.4, 1.5, 0]}}
lights: [{type: point, position: [0, 2.5, 0], power: 60}]
)");
    const auto passes = Render(scene, 24, 2, 16);  // every bounce may split: no lone paths
    const auto lone = Render(scene, 24, 2, 0);     // every path alone from the camera
    EXPECT_GT(passes->eye_paths(), 24u * 24u);  // bounces: not only camera rays
    EXPECT_EQ(lone->eye_paths(), passes->eye_paths());
    EXPECT_EQ(lone->FirstHits(), passes->FirstHits());
    const std::vector<Rgb> a = passes->CurrentImage().pixels, b = lone->CurrentImage().pixels;
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], b[i]) << "pixel " << i;
}

// A glass ball on a lit floor under a sky: with the tree split at every glass hit, the mean over
// many samples is the same image as with one random path a pixel (specular_splits 0), up to Monte
// Carlo error: over the ball, the split image is no farther from a path-traced one than a second
// path-traced one is, and their mean brightness agrees to 1%.
TEST(RayTree, SplitTreeIsTheMeanOfRandomPaths) {
    const Scene scene = Load(R"(
camera: {position: [0, 0.9, 2.2], look_at: [0, 0.4, 0], fov: 30, resolution: [32, 32]}
settings: {photons: 0, ambient: [0.05, 0.05, 0.05], max_bounces: 8, shadow_samples: 1}
environment: {type: gradient, horizon: [0.9, 0.6, 0.3], zenith: [0.2, 0.4, 1.0]}
materials:
  floor: {type: diffuse, checker: {color_a: [0.8, 0.8, 0.8], color_b: [0.2, 0.2, 0.2], scale: 4}}
  glass: {type: glass, ior: 1.5, absorption: [0.2, 0.1, 0]}
objects:
  - {shape: {type: plane, size: [4, 4]}, material: floor}
  - {shape: {type: sphere, radius: 0.4}, material: glass, transform: {translate: [0, 0.4, 0]}}
lights: [{type: point, position: [1, 3, 1], power: 60}]
)");
    constexpr int kSamples = 256;
    const auto split = Render(scene, 32, kSamples, 8, 1);
    const Image tree = split->CurrentImage();
    const Image paths = Render(scene, 32, kSamples, 0, 2)->CurrentImage();
    const Image paths_again = Render(scene, 32, kSamples, 0, 3)->CurrentImage();
    const std::vector<FirstHit> hits = split->FirstHits();
    double tree_sum = 0, paths_sum = 0, tree_off = 0, paths_off = 0;
    int glass = 0;
    for (size_t i = 0; i < hits.size(); ++i) {
        if (hits[i] != FirstHit::Glass) continue;
        ++glass;
        tree_sum += Luminance(tree.pixels[i]);
        paths_sum += Luminance(paths.pixels[i]);
        tree_off += std::fabs(Luminance(tree.pixels[i]) - Luminance(paths.pixels[i]));
        paths_off += std::fabs(Luminance(paths_again.pixels[i]) - Luminance(paths.pixels[i]));
    }
    ASSERT_GT(glass, 100);
    EXPECT_NEAR(tree_sum, paths_sum, 0.01 * paths_sum);
    EXPECT_LT(tree_off, paths_off) << "mean difference from the path-traced image: split tree " << tree_off / glass
                                   << ", another path-traced image " << paths_off / glass;
}

}  // namespace
}  // namespace caustica
