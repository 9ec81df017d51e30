// The composite pass's display image (the viewer's texture): the sRGB encoding of the mean times the
// exposure, through the tone map; with none exactly what it was without one, bit for bit.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.h"
#include "core/srgb.h"
#include "core/tone_map.h"
#include "renderer/frame_renderer.h"
#include "renderer/scene/scene_loader.h"
#include "tests/renderer/render_still.h"

namespace caustica {
namespace {

// The display pixels as the composite pass wrote them before tone maps, with the tone map applied
// to the exposed mean first: computed here from the float sum.
std::vector<uint32_t> ExpectedDisplay(const FrameRenderer& renderer, float exposure, ToneMap tone_map) {
    const Image sum = renderer.SampleSum();
    const float scale = exposure / float(renderer.samples());
    std::vector<uint32_t> pixels;
    for (const Rgb& total : sum.pixels) {
        const Rgb c = tone_map == ToneMap::None ? total * scale : ApplyToneMap(tone_map, total * scale);
        pixels.push_back(EncodeSrgb8(c.x) | (EncodeSrgb8(c.y) << 8) | (EncodeSrgb8(c.z) << 16) | 0xff000000u);
    }
    return pixels;
}

Scene Ring() { return LoadScene(std::string(CAUSTICA_SOURCE_DIR) + "/scenes/ring.yaml"); }

TEST(DisplayToneMap, NoneIsTheExposedImageBitForBit) {
    RenderOptions options = testing::SmallFrame(5000, 64, 48);
    options.exposure = 3.0;
    const auto renderer = testing::RenderStill(Backend::Cpu(), Ring(), options, 2);
    EXPECT_EQ(renderer->tone_map(), ToneMap::None);
    EXPECT_EQ(testing::DisplayPixels(*renderer), ExpectedDisplay(*renderer, 3.0f, ToneMap::None));
}

TEST(DisplayToneMap, CurvesApplyAfterTheExposure) {
    for (const char* name : {"filmic", "agx"}) {
        RenderOptions options = testing::SmallFrame(5000, 64, 48);
        options.exposure = 3.0;
        options.tonemap = name;
        const auto renderer = testing::RenderStill(Backend::Cpu(), Ring(), options, 2);
        const ToneMap expected = std::string(name) == "filmic" ? ToneMap::Filmic : ToneMap::Agx;
        EXPECT_EQ(renderer->tone_map(), expected);
        EXPECT_EQ(testing::DisplayPixels(*renderer), ExpectedDisplay(*renderer, 3.0f, expected)) << name;
        EXPECT_NE(testing::DisplayPixels(*renderer), ExpectedDisplay(*renderer, 3.0f, ToneMap::None)) << name;
    }
}

// Each call reads the pixels of the samples so far (the read-back memory is reused).
TEST(DisplayToneMap, EachCallHasTheSamplesSoFar) {
    const Backend cpu = Backend::Cpu();  // the renderer keeps it
    const auto renderer = testing::RenderStill(cpu, Ring(), testing::SmallFrame(5000, 64, 48), 1);
    const std::vector<uint32_t> one = testing::DisplayPixels(*renderer);
    EXPECT_EQ(one, ExpectedDisplay(*renderer, 1.0f, ToneMap::None));
    renderer->AddSample();
    const std::vector<uint32_t> two = testing::DisplayPixels(*renderer);
    EXPECT_EQ(two, ExpectedDisplay(*renderer, 1.0f, ToneMap::None));
    EXPECT_NE(one, two);
}

// The scene's settings.tonemap is the default; --tonemap overrides it.
TEST(DisplayToneMap, TheSceneSetsItAndTheOptionOverrides) {
    Scene scene = Ring();
    scene.settings.tone_map = ToneMap::Filmic;
    RenderOptions options;
    EXPECT_EQ(MakeRenderSettings(scene, options, false).tone_map, ToneMap::Filmic);
    options.tonemap = "none";
    EXPECT_EQ(MakeRenderSettings(scene, options, false).tone_map, ToneMap::None);
    options.tonemap = "agx";
    EXPECT_EQ(MakeRenderSettings(scene, options, false).tone_map, ToneMap::Agx);
    options.tonemap = "aces";
    EXPECT_THROW(MakeRenderSettings(scene, options, false), InputError);
}

// The debug views show quantities, not light: no exposure, no tone map.
TEST(DisplayToneMap, DebugViewsAreNotToneMapped) {
    RenderOptions options = testing::SmallFrame(5000, 32, 24);
    options.view = "knn-radius";
    options.tonemap = "agx";
    const auto renderer = testing::RenderStill(Backend::Cpu(), Ring(), options, 1);
    EXPECT_EQ(renderer->tone_map(), ToneMap::None);
    EXPECT_EQ(testing::DisplayPixels(*renderer), ExpectedDisplay(*renderer, 1.0f, ToneMap::None));
}

}  // namespace
}  // namespace caustica
