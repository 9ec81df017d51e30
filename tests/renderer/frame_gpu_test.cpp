// The whole frame on the GPU against the same frame on the CPU: both trees, photons, eye passes
// (the ray trees, area lights, environments) and shading. Float rounding differs between the
// backends (and a photon that grazes an edge may go another way), so the images must agree
// closely, not bit for bit.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "core/memory.h"
#include "renderer/frame_renderer.h"
#include "renderer/scene/scene_loader.h"
#include "renderer/scene_to_frame.h"
#include "renderer/scene/scene_eval.h"
#include "tests/renderer/moving_geometry.h"
#include "tests/renderer/image_compare.h"
#include "tests/renderer/render_sequence.h"
#include "tests/renderer/render_still.h"
#include "tests/renderer/sample_sum_download.h"
#include "tests/test_support.h"

namespace caustica {
namespace {

RenderOptions Options(int specular_splits = -1, const char* indirect = "scene") {
    RenderOptions options = testing::SmallFrame(200000, 200, 150);
    options.specular_splits = specular_splits;
    options.global_photons = 100000;  // the same on both backends (the CPU's default is capped)
    options.indirect = indirect;
    return options;
}

std::unique_ptr<FrameRenderer> RenderOnce(const Backend& backend, const Scene& scene, int specular_splits = -1,
                                          const char* indirect = "scene") {
    return testing::RenderStill(backend, scene, Options(specular_splits, indirect), 1);
}

Scene Shipped(const std::string& file) { return LoadScene(std::string(CAUSTICA_SOURCE_DIR) + "/scenes/" + file); }

// The same image, and ray trees of the same size (a roulette draw near its threshold may go the
// other way on the other backend).
void ExpectSameFrame(const FrameRenderer& cpu, const FrameRenderer& gpu) {
    EXPECT_TRUE(testing::CloseImages(cpu.CurrentImage(), gpu.CurrentImage()));
    EXPECT_NEAR(double(gpu.eye_paths()), double(cpu.eye_paths()), 1e-3 * cpu.eye_paths());
}

class FrameGpu : public ::testing::TestWithParam<std::string> {};

TEST_P(FrameGpu, AgreesWithTheCpu) {
    CA_REQUIRE_GPU(gpu);
    const Scene scene = Shipped(GetParam());
    ExpectSameFrame(*RenderOnce(Backend::Cpu(), scene), *RenderOnce(gpu, scene));
}

// With indirect light on every shipped scene: the global photons, their tree and the estimate too.
TEST_P(FrameGpu, IndirectLightAgreesWithTheCpu) {
    CA_REQUIRE_GPU(gpu);
    const Scene scene = Shipped(GetParam());
    const auto cpu = RenderOnce(Backend::Cpu(), scene, -1, "on"), on_gpu = RenderOnce(gpu, scene, -1, "on");
    ExpectSameFrame(*cpu, *on_gpu);
    // A photon that grazes an edge may go another way on the other backend, and its later bounces with
    // it: a few photons where a scene stores few (champagne: about 30).
    EXPECT_NEAR(double(on_gpu->stored_global_photons()), double(cpu->stored_global_photons()),
                3.0 + 1e-3 * cpu->stored_global_photons());
}

// Progressive radii over a few samples (the first sample's radius is the KNN's on both backends) and
// the reference path tracer: the same functors on the GPU.
TEST(FrameGpuPaths, ProgressiveSamplesAndThePathTracerAgreeWithTheCpu) {
    CA_REQUIRE_GPU(gpu);
    for (const char* file : {"cornell-glass.yaml", "sky.yaml"}) {
        const Scene scene = Shipped(file);
        RenderOptions options = Options(-1, "on");
        options.progressive = "on";
        ExpectSameFrame(*testing::RenderStill(Backend::Cpu(), scene, options, 4),
                        *testing::RenderStill(gpu, scene, options, 4));
        options.integrator = "path";
        EXPECT_TRUE(testing::CloseImages(testing::RenderStill(Backend::Cpu(), scene, options, 4)->CurrentImage(),
                                         testing::RenderStill(gpu, scene, options, 4)->CurrentImage()))
            << file;
    }
}

// Final gathering: its rays, the KNN of both maps at their hits and their mean, on the GPU (glass in
// the Cornell box: gather rays through it, and caustic photons at their hits).
TEST(FrameGpuPaths, FinalGatheringAgreesWithTheCpu) {
    CA_REQUIRE_GPU(gpu);
    for (const char* file : {"cornell-glass.yaml", "sky.yaml"}) {
        const Scene scene = Shipped(file);
        RenderOptions options = Options(-1, "on");
        options.gather_rays = 4;
        ExpectSameFrame(*testing::RenderStill(Backend::Cpu(), scene, options, 2),
                        *testing::RenderStill(gpu, scene, options, 2));
    }
}

// The a-trous filter of indirect light (density estimate and final gathering) on the GPU.
TEST(FrameGpuPaths, DenoisedIndirectLightAgreesWithTheCpu) {
    CA_REQUIRE_GPU(gpu);
    const Scene scene = Shipped("cornell-glass.yaml");
    RenderOptions options = Options(-1, "on");
    options.denoise = "on";
    for (const int gather_rays : {0, 4}) {
        options.gather_rays = gather_rays;
        ExpectSameFrame(*testing::RenderStill(Backend::Cpu(), scene, options, 2),
                        *testing::RenderStill(gpu, scene, options, 2));
    }
}

// One random path a pixel (specular_splits 0), as before the ray trees.
TEST(FrameGpuPaths, OnePathAPixelAgreesWithTheCpu) {
    CA_REQUIRE_GPU(gpu);
    for (const char* file : {"cornell-glass.yaml", "champagne.yaml"}) {
        const Scene scene = Shipped(file);
        ExpectSameFrame(*RenderOnce(Backend::Cpu(), scene, 0), *RenderOnce(gpu, scene, 0));
    }
}

// The thin lens (its lens samples in the eye pass) and the tone maps (in the composite pass) on
// the GPU: the same image as on the CPU, and display pixels as close as CloseImages asks of the
// linear ones (a mean within 2 codes, at most 1% of the channels more than 0.1 of white apart).
TEST(FrameGpuPaths, ThinLensAndToneMapsAgreeWithTheCpu) {
    CA_REQUIRE_GPU(gpu);
    Scene scene = Shipped("cornell-glass.yaml");
    scene.camera.aperture = 0.2f;
    scene.camera.focus_distance = 0.6f * Length(scene.camera.look_at - scene.camera.position);
    for (const char* tone_map : {"none", "filmic", "agx"}) {
        RenderOptions options = testing::SmallFrame(200000, 200, 150);
        options.tonemap = tone_map;
        options.exposure = 3.0;
        const auto cpu = testing::RenderStill(Backend::Cpu(), scene, options, 4);
        const auto gpu_frame = testing::RenderStill(gpu, scene, options, 4);
        ExpectSameFrame(*cpu, *gpu_frame);
        const std::vector<uint32_t> a = testing::DisplayPixels(*cpu), b = testing::DisplayPixels(*gpu_frame);
        ASSERT_EQ(a.size(), b.size());
        size_t far = 0, total = 0;
        for (size_t p = 0; p < a.size(); ++p)
            for (int shift = 0; shift < 24; shift += 8) {
                const int difference = std::abs(int((a[p] >> shift) & 0xff) - int((b[p] >> shift) & 0xff));
                total += size_t(difference);
                far += difference > 26;
            }
        EXPECT_LE(double(total) / double(3 * a.size()), 2.0) << tone_map << ": mean display code difference";
        EXPECT_LE(far, 3 * a.size() / 100) << tone_map << ": display codes more than 26 apart";
    }
}

// The GPU traces photons with warps that hand their idle lanes the next photons
// (core/parallel_for_paths.h), so which lane traces a photon differs from run to run; the photons
// stored must not: the same ones, bit for bit, in emission order, and as many as the CPU stores
// but for a few that graze an edge. The champagne glass keeps photons bouncing the longest.
TEST(FrameGpuPaths, StoredPhotonsDoNotDependOnTheLanes) {
    CA_REQUIRE_GPU(gpu);
    for (const char* file : {"champagne.yaml", "cornell-glass.yaml"}) {
        const Scene scene = Shipped(file);
        const std::vector<Photon> first = RenderOnce(gpu, scene)->StoredPhotons();
        const std::vector<Photon> second = RenderOnce(gpu, scene)->StoredPhotons();
        ASSERT_EQ(first.size(), second.size()) << file;
        size_t differing = 0;
        for (size_t i = 0; i < first.size(); ++i)
            differing += !(first[i].position == second[i].position && first[i].power == second[i].power &&
                           first[i].direction == second[i].direction);
        EXPECT_EQ(differing, 0u) << file;
        const double cpu = double(RenderOnce(Backend::Cpu(), scene)->stored_photons());
        EXPECT_NEAR(double(first.size()), cpu, 3.0 + 1e-3 * cpu) << file;
    }
}

// Once a view's sizes have been seen, its samples and frames allocate no device memory: the queues,
// the tree and the ends grow by doubling and are reused.
TEST(FrameGpuPaths, WarmFramesAllocateNothing) {
    CA_REQUIRE_GPU(gpu);
    const Scene scene = Shipped("cornell-glass.yaml");
    const auto renderer = RenderOnce(gpu, scene);
    for (int s = 0; s < 3; ++s) renderer->AddSample();
    const size_t bytes = DeviceMemoryCounters().current_device_bytes;
    PrepareFrame(*renderer, scene, Options(), gpu, 0.0);
    for (int s = 0; s < 4; ++s) renderer->AddSample();
    EXPECT_EQ(DeviceMemoryCounters().current_device_bytes, bytes);
}

// The same with indirect light: the global photons and their tree are reused too.
TEST(FrameGpuPaths, WarmFramesWithIndirectLightAllocateNothing) {
    CA_REQUIRE_GPU(gpu);
    const Scene scene = Shipped("cornell-glass.yaml");
    const auto renderer = RenderOnce(gpu, scene, -1, "on");
    for (int s = 0; s < 3; ++s) renderer->AddSample();
    const size_t bytes = DeviceMemoryCounters().current_device_bytes;
    PrepareFrame(*renderer, scene, Options(-1, "on"), gpu, 0.0);
    for (int s = 0; s < 4; ++s) renderer->AddSample();
    EXPECT_EQ(DeviceMemoryCounters().current_device_bytes, bytes);
}

// The next frame's geometry built on a share of the SMs while the frame's sample runs on the rest
// (FrameRenderer::PrepareGeometryAhead) gives the frames of a renderer that prepares each
// frame in turn, which the CPU's frames equal (above).
TEST(FrameGpuPaths, GeometryAheadOnAShareOfTheSmsGivesTheSameFrames) {
    CA_REQUIRE_GPU(gpu);
    for (const char* file : {"orbit.yaml", "pool.yaml", "ring.yaml"}) {
        Scene scene = Shipped(file);
        scene.settings.frame_rate = 2.5;  // frames 0.4 s apart: the geometry moves visibly
        const auto in_turn = testing::RenderSequence(gpu, scene, Options(), 3, testing::Geometry::EachFrame);
        const auto ahead = testing::RenderSequence(gpu, scene, Options(), 3, testing::Geometry::Ahead, 16);
        ASSERT_EQ(ahead.size(), in_turn.size());
        for (size_t f = 0; f < ahead.size(); ++f)
            EXPECT_TRUE(testing::CloseImages(in_turn[f], ahead[f])) << file << " frame " << f;
    }
}

// The sample sum downloaded while the next frame is queued behind it
// (FrameRenderer::StartSampleSumDownload): SampleSum's bits, through a copy engine and through the
// read-back kernel.
TEST(FrameGpuPaths, SampleSumDownloadedBehindTheNextFrameIsSampleSum) {
    CA_REQUIRE_GPU(gpu);
    testing::ExpectDownloadedSumsBehindTheNextFrames(gpu);
}

// Warm frames with the next frame's geometry prepared ahead allocate nothing either (frames of the
// same geometry: moving geometry's trees may still grow their lists when a frame needs more).
TEST(FrameGpuPaths, WarmFramesWithGeometryAheadAllocateNothing) {
    CA_REQUIRE_GPU(gpu);
    const Scene scene = Shipped("ring.yaml");
    FrameRenderer renderer(gpu);
    renderer.SetMaterials(ToSceneMaterials(scene));
    RenderSettings settings = MakeRenderSettings(scene, Options(), gpu);
    settings.geometry_ahead_sms = 16;
    SceneFrames frames(scene, MakeImageSize(Options()));
    renderer.Prepare(frames.At(0.0), settings);
    size_t bytes = 0;
    for (int f = 1; f <= 8; ++f) {
        renderer.PrepareGeometryAhead(frames.At(0.0));
        renderer.AddSample();
        renderer.Prepare(frames.input(), settings);
        if (f == 4) bytes = DeviceMemoryCounters().current_device_bytes;
    }
    renderer.Synchronize();
    EXPECT_EQ(DeviceMemoryCounters().current_device_bytes, bytes);
}

// The height field pass writes the CPU's triangles and shading (pool water on the device).
TEST(HeightfieldGpu, WritesTheCpusTriangles) {
    CA_REQUIRE_GPU(gpu);
    const Scene scene = testing::HeightfieldScene("{scale: [-1, 1, 1.5], rotate: [0, 45, 0]}");
    const FrameInput input = ToFrameInput(scene, EvaluateScene(scene, 3.3), {32, 18});
    const testing::GeneratedGeometry cpu = testing::PlaceMovingGeometry(Backend::Cpu(), input);
    const testing::GeneratedGeometry on_gpu = testing::PlaceMovingGeometry(gpu, input);
    ASSERT_EQ(cpu.triangles.size(), on_gpu.triangles.size());
    size_t differing = 0;
    for (size_t t = 0; t < cpu.triangles.size(); ++t)
        differing += !(Length(cpu.triangles[t].v0 - on_gpu.triangles[t].v0) <= 1e-6f &&
                       Length(cpu.triangles[t].v1 - on_gpu.triangles[t].v1) <= 1e-6f &&
                       Length(cpu.triangles[t].v2 - on_gpu.triangles[t].v2) <= 1e-6f &&
                       Length(cpu.shading[t].n0 - on_gpu.shading[t].n0) <= 1e-6f);
    EXPECT_EQ(differing, 0u);
}

// The moving-object pass writes the CPU's triangles and shading (orbit.yaml's ball, one key mirrored).
TEST(MovingObjectGpu, PlacesTheCpusTriangles) {
    CA_REQUIRE_GPU(gpu);
    Scene scene = Shipped("orbit.yaml");
    for (Object& o : scene.objects)
        if (!o.animation.empty()) o.animation[1].transform.scale = Vec3(1.0f, -0.5f, 1.2f);
    const FrameInput input = ToFrameInput(scene, EvaluateScene(scene, 2.7), {32, 18});
    ASSERT_FALSE(input.moving_objects.empty());
    const testing::GeneratedGeometry cpu = testing::PlaceMovingGeometry(Backend::Cpu(), input);
    const testing::GeneratedGeometry on_gpu = testing::PlaceMovingGeometry(gpu, input);
    ASSERT_EQ(cpu.triangles.size(), on_gpu.triangles.size());
    size_t differing = 0;
    for (size_t t = 0; t < cpu.triangles.size(); ++t)
        differing += !(cpu.triangles[t].v0 == on_gpu.triangles[t].v0 && cpu.triangles[t].v1 == on_gpu.triangles[t].v1 &&
                       cpu.triangles[t].v2 == on_gpu.triangles[t].v2 && cpu.shading[t].n0 == on_gpu.shading[t].n0);
    EXPECT_EQ(differing, 0u);
}

INSTANTIATE_TEST_SUITE_P(Scenes, FrameGpu,
                         ::testing::Values("ring.yaml", "cornell-glass.yaml", "champagne.yaml", "pool.yaml",
                                           "orbit.yaml", "sky.yaml", "gem.gltf", "prism.yaml", "diamond.yaml"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             std::string name = info.param.substr(0, info.param.find('.'));
                             for (char& c : name)
                                 if (c == '-') c = '_';
                             return name;
                         });

}  // namespace
}  // namespace caustica
