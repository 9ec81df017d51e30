// The debug views show what they say (CPU backend, the ring scene; the prism's dispersive glass).
#include <gtest/gtest.h>

#include <string>

#include "renderer/frame_renderer.h"
#include "renderer/scene/scene_loader.h"
#include "renderer/scene_to_frame.h"
#include "tests/renderer/render_still.h"

namespace caustica {
namespace {

Image RenderView(const std::string& view, const std::string& file = "ring.yaml") {
    const Scene scene = LoadScene(std::string(CAUSTICA_SOURCE_DIR) + "/scenes/" + file);
    RenderOptions options = testing::SmallFrame(50000, 64, 48);
    options.view = view;
    return testing::RenderStill(Backend::Cpu(), scene, options, 1)->CurrentImage();
}

double MeanLuminance(const Image& image) {
    double sum = 0.0;
    for (const Rgb& c : image.pixels) sum += Luminance(c);
    return sum / double(image.pixels.size());
}

TEST(DebugViews, CausticsAloneAreDarkerThanTheImageButNotBlack) {
    const double full = MeanLuminance(RenderView("image")), caustics = MeanLuminance(RenderView("caustics"));
    EXPECT_GT(caustics, 0.0);
    EXPECT_LT(caustics, 0.5 * full);
}

TEST(DebugViews, HeatMapsColourEveryDiffusePixelOrEveryRay) {
    for (const std::string view : {"knn-radius", "traversal-cost"}) {
        const Image image = RenderView(view);
        size_t coloured = 0;
        for (const Rgb& c : image.pixels) coloured += MaxComponent(c) > 0.0f;
        EXPECT_GT(coloured, image.pixels.size() / 2) << view;
    }
}

// Also through dispersive glass, where an eye path of these views goes on as one path of one
// wavelength, not several.
TEST(DebugViews, PhotonsAreWhiteDotsOnBlack) {
    for (const std::string file : {"ring.yaml", "prism.yaml"}) {
        const Image image = RenderView("photons", file);
        size_t white = 0;
        for (const Rgb& c : image.pixels) {
            ASSERT_TRUE(c == Rgb(0.0f) || c == Rgb(1.0f)) << file << ": " << c.x << " " << c.y << " " << c.z;
            white += c == Rgb(1.0f);
        }
        EXPECT_GT(white, 0u) << file;
        EXPECT_LT(white, image.pixels.size() / 2) << file;
    }
}

}  // namespace
}  // namespace caustica
