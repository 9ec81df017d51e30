// The whole frame on the GPU against the same frame on the CPU: both trees, photons, eye passes
// and shading. Float rounding differs between the backends (and a photon that grazes an edge may
// go another way), so the images must agree closely, not bit for bit.
#include <gtest/gtest.h>

#include <string>

#include "renderer/frame_renderer.h"
#include "renderer/scene/scene_loader.h"
#include "renderer/scene_to_frame.h"
#include "tests/renderer/image_compare.h"
#include "tests/renderer/render_still.h"
#include "tests/test_support.h"

namespace caustica {
namespace {

Image RenderOnce(const Backend& backend, const Scene& scene) {
    return testing::RenderStill(backend, scene, testing::SmallFrame(200000, 200, 150), 1)->CurrentImage();
}

class FrameGpu : public ::testing::TestWithParam<std::string> {};

TEST_P(FrameGpu, AgreesWithTheCpu) {
    CA_REQUIRE_GPU(gpu);
    const Scene scene = LoadScene(std::string(CAUSTICA_SOURCE_DIR) + "/scenes/" + GetParam());
    EXPECT_TRUE(testing::CloseImages(RenderOnce(Backend::Cpu(), scene), RenderOnce(gpu, scene)));
}

INSTANTIATE_TEST_SUITE_P(Scenes, FrameGpu,
                         ::testing::Values("ring.yaml", "cornell-glass.yaml", "champagne.yaml", "pool.yaml",
                                           "orbit.yaml", "gem.gltf"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             std::string name = info.param.substr(0, info.param.find('.'));
                             for (char& c : name)
                                 if (c == '-') c = '_';
                             return name;
                         });

}  // namespace
}  // namespace caustica
