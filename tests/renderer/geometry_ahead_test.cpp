// The next frame's geometry prepared while a frame's sample runs (FrameRenderer::
// PrepareGeometryAhead) gives the frames of a renderer that prepares each frame's geometry in turn,
// bit for bit; and the renderer refuses the calls that would render with the wrong geometry.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "tests/renderer/render_sequence.h"
#include "renderer/scene/scene_eval.h"
#include "tests/renderer/render_still.h"

namespace caustica {
namespace {

Scene Shipped(const std::string& file) { return LoadScene(std::string(CAUSTICA_SOURCE_DIR) + "/scenes/" + file); }

// Four frames 0.4 s apart, so that the geometry moves visibly between them.
void ExpectSameFramesAhead(Scene scene) {
    scene.settings.frame_rate = 2.5;
    const RenderOptions options = testing::SmallFrame(20000, 64, 36);
    const Backend cpu = Backend::Cpu();
    const auto in_turn = testing::RenderSequence(cpu, scene, options, 4, testing::Geometry::EachFrame);
    const auto ahead = testing::RenderSequence(cpu, scene, options, 4, testing::Geometry::Ahead);
    ASSERT_EQ(in_turn.size(), ahead.size());
    EXPECT_NE(in_turn.front().pixels, in_turn.back().pixels) << "the geometry should move";
    for (size_t f = 0; f < ahead.size(); ++f) EXPECT_EQ(ahead[f].pixels, in_turn[f].pixels) << "frame " << f;
}

TEST(GeometryAhead, MovingObjectsGiveTheSameFrames) { ExpectSameFramesAhead(Shipped("orbit.yaml")); }

TEST(GeometryAhead, MovingWaterGivesTheSameFrames) { ExpectSameFramesAhead(Shipped("pool.yaml")); }

// Three tenths of a GPU's SMs to the nearest multiple of 8, none on a small one: 40 of an H100's or
// an H200's 132.
TEST(GeometryAhead, TheDefaultShareIsThreeTenthsOfTheSms) {
    EXPECT_EQ(GeometryAheadSms(132), 40);
    EXPECT_EQ(GeometryAheadSms(114), 32);
    EXPECT_EQ(GeometryAheadSms(108), 32);
    EXPECT_EQ(GeometryAheadSms(64), 16);
    EXPECT_EQ(GeometryAheadSms(63), 0);
    EXPECT_EQ(GeometryAheadSms(0), 0);
    EXPECT_EQ(DefaultGeometryAheadSms(Backend::Cpu()), 0);
}

TEST(GeometryAhead, ComesBeforeTheSamplesAndTheNextPrepareTakesIt) {
    const Scene scene = Shipped("orbit.yaml");
    const RenderOptions options = testing::SmallFrame(2000, 16, 9);
    const Backend cpu = Backend::Cpu();
    const RenderSettings settings = MakeRenderSettings(scene, options, cpu);
    FrameRenderer renderer(cpu);
    renderer.SetMaterials(ToSceneMaterials(scene));
    SceneFrames frames(scene, MakeImageSize(options));
    const FrameInput first = frames.At(0.0);
    renderer.Prepare(first, settings);
    renderer.AddSample();
    EXPECT_THROW(renderer.PrepareGeometryAhead(frames.At(1.0)), RuntimeError);  // after a sample
    renderer.Prepare(first, settings);
    renderer.PrepareGeometryAhead(frames.At(1.0));
    EXPECT_THROW(renderer.PrepareGeometryAhead(frames.At(1.0)), RuntimeError);  // once a frame
    renderer.AddSample();
    renderer.AddSample();
    const FrameInput other = ToFrameInput(scene, EvaluateScene(scene, 2.0), MakeImageSize(options));
    EXPECT_THROW(renderer.Prepare(other, settings), RuntimeError);
    renderer.Prepare(frames.input(), settings);
    renderer.AddSample();
    EXPECT_EQ(renderer.samples(), 1u);
}

}  // namespace
}  // namespace caustica
