// The whole frame on the GPU against the same frame on the CPU: both trees, photons, eye passes
// (the ray trees, area lights, environments) and shading. Float rounding differs between the
// backends (and a photon that grazes an edge may go another way), so the images must agree
// closely, not bit for bit.
#include <gtest/gtest.h>

#include <string>

#include "core/memory.h"
#include "renderer/frame_renderer.h"
#include "renderer/scene/scene_loader.h"
#include "renderer/scene_to_frame.h"
#include "tests/renderer/image_compare.h"
#include "tests/renderer/render_still.h"
#include "tests/test_support.h"

namespace caustica {
namespace {

std::unique_ptr<FrameRenderer> RenderOnce(const Backend& backend, const Scene& scene, int specular_splits = -1) {
    RenderOptions options = testing::SmallFrame(200000, 200, 150);
    options.specular_splits = specular_splits;
    return testing::RenderStill(backend, scene, options, 1);
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

// One random path a pixel (specular_splits 0), as before the ray trees.
TEST(FrameGpuPaths, OnePathAPixelAgreesWithTheCpu) {
    CA_REQUIRE_GPU(gpu);
    for (const char* file : {"cornell-glass.yaml", "champagne.yaml"}) {
        const Scene scene = Shipped(file);
        ExpectSameFrame(*RenderOnce(Backend::Cpu(), scene, 0), *RenderOnce(gpu, scene, 0));
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
    PrepareFrame(*renderer, scene, testing::SmallFrame(200000, 200, 150), gpu, 0.0);
    for (int s = 0; s < 4; ++s) renderer->AddSample();
    EXPECT_EQ(DeviceMemoryCounters().current_device_bytes, bytes);
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
