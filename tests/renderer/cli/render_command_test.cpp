// caustica render as a user runs it: output files, determinism, --resume, and bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.h"
#include "core/srgb.h"
#include "core/tone_map.h"
#include "renderer/cli/commands.h"
#include "renderer/output/image.h"
#include "tests/test_support.h"

namespace caustica {
namespace {

namespace fs = std::filesystem;

std::string ReadBytes(const fs::path& path) { return testing::ReadFileBytes(path.string()); }

class RenderCommand : public ::testing::Test {
protected:
    void SetUp() override {
        dir = fs::path(::testing::TempDir()) / ("caustica-render-" + std::to_string(::getpid()));
        fs::remove_all(dir);
        fs::create_directories(dir);
    }
    void TearDown() override { fs::remove_all(dir); }
    Args Render(const std::string& pattern, const Args& extra = {}) const {
        Args args = {std::string(CAUSTICA_SOURCE_DIR) + "/scenes/orbit.yaml", "-o", (dir / pattern).string(),
                     "--device", "cpu", "--width", "48", "--height", "36", "--photons", "5000", "--samples", "1"};
        args.insert(args.end(), extra.begin(), extra.end());
        return args;
    }
    fs::path dir;
};

TEST_F(RenderCommand, WritesEveryFrameAndTheSameFilesTwice) {
    ASSERT_EQ(RenderMain(Render("a_%03d.png", {"--frames", "2:4"})), 0);
    ASSERT_EQ(RenderMain(Render("b_%03d.png", {"--frames", "2:4"})), 0);
    for (int f = 2; f <= 4; ++f) {
        char a[32], b[32];
        std::snprintf(a, sizeof(a), "a_%03d.png", f);
        std::snprintf(b, sizeof(b), "b_%03d.png", f);
        ASSERT_TRUE(fs::exists(dir / a)) << a;
        EXPECT_EQ(ReadBytes(dir / a), ReadBytes(dir / b)) << "frame " << f << " differs between two runs";
    }
    EXPECT_FALSE(fs::exists(dir / "a_001.png"));
    EXPECT_FALSE(fs::exists(dir / "a_005.png"));
    // The animation moves: frames differ.
    EXPECT_NE(ReadBytes(dir / "a_002.png"), ReadBytes(dir / "a_004.png"));
}

TEST_F(RenderCommand, ResumeSkipsFramesAlreadyWritten) {
    ASSERT_EQ(RenderMain(Render("f_%d.png", {"--frames", "0:1"})), 0);
    std::ofstream(dir / "f_1.png") << "marker";  // a frame that --resume must leave alone
    ASSERT_EQ(RenderMain(Render("f_%d.png", {"--frames", "0:2", "--resume"})), 0);
    EXPECT_EQ(ReadBytes(dir / "f_1.png"), "marker");
    EXPECT_TRUE(fs::exists(dir / "f_2.png"));
}

TEST_F(RenderCommand, BadInputIsAnInputErrorAndWritesNothing) {
    EXPECT_THROW(RenderMain(Render("f_%d.tif")), InputError);  // not an image type it writes
    EXPECT_THROW(RenderMain(Render("f.png", {"--frames", "0:3"})), InputError);  // no frame number
    EXPECT_THROW(RenderMain(Render("f_%d_%d.png")), InputError);
    EXPECT_THROW(RenderMain(Render("f_%d.png", {"--frames", "5:2"})), InputError);
    EXPECT_THROW(RenderMain(Render("f_%d.png", {"--samples", "0"})), InputError);
    EXPECT_THROW(RenderMain(Render("f_%d.png", {"--photons", "-3"})), InputError);
    EXPECT_THROW(RenderMain(Render("f_%d.png", {"--bogus"})), InputError);
    EXPECT_THROW(RenderMain({"/nonexistent/scene.yaml", "-o", (dir / "x.png").string()}), InputError);
    EXPECT_TRUE(fs::is_empty(dir));
}

TEST_F(RenderCommand, RangeErrorsShowTheExactNumbers) {
    const auto message = [&](const Args& extra) {
        return testing::InputErrorOf([&] { RenderMain(Render("f_%d.png", extra)); });
    };
    EXPECT_EQ(message({"--photons", "100000001"}), "--photons 100000001: expected a value from 0 to 100000000");
    EXPECT_EQ(message({"--exposure", "1000000.5"}), "--exposure 1000000.5: expected a value from 1e-06 to 1000000");
    EXPECT_EQ(message({"--seed", "-1"}), "--seed -1: expected a value from 0 to 2147483647");
}

TEST_F(RenderCommand, AFolderWhereTheFileShouldGoIsRefusedAndNothingIsLeft) {
    fs::create_directories(dir / "taken.png");  // a folder where the file should go
    EXPECT_THROW(RenderMain(Render("taken.png", {"--frames", "0:0"})), InputError);
    for (const auto& entry : fs::directory_iterator(dir))
        EXPECT_EQ(entry.path().filename(), "taken.png") << "left behind: " << entry.path();
}

TEST_F(RenderCommand, MissingFoldersAreCreatedForEveryFrame) {
    ASSERT_EQ(RenderMain(Render("new/%d/f.jpg", {"--frames", "0:2"})), 0);
    for (int f = 0; f <= 2; ++f) {
        const std::string bytes = ReadBytes(dir / "new" / std::to_string(f) / "f.jpg");
        ASSERT_GE(bytes.size(), 3u) << "frame " << f;
        EXPECT_EQ(bytes.substr(0, 3), "\xff\xd8\xff") << "frame " << f << " is not a JPEG file";
    }
}

// A camera that passes over its look_at, where it looks along up: that frame is an image, not black.
TEST_F(RenderCommand, AnAnimatedCameraLookingAlongUpRendersItsFrame) {
    const fs::path scene = dir / "overhead.yaml";
    std::ofstream(scene) << "camera:\n  look_at: [0, 0, 0]\n  animation:\n"
                            "    - {time: 0, position: [-1, 4, 0]}\n    - {time: 2, position: [1, 4, 0]}\n"
                            "settings: {frame_rate: 1}\n"
                            "lights:\n  - {position: [0, 3, 1], power: 50}\n"
                            "objects:\n  - {shape: {type: plane, size: [4, 4]}}\n";
    ASSERT_EQ(RenderMain({scene.string(), "-o", (dir / "f_%d.png").string(), "--frames", "1:1", "--device", "cpu",
                          "--width", "24", "--height", "16", "--photons", "1000", "--samples", "1"}),
              0);
    const Image image = ReadImage((dir / "f_1.png").string());
    double sum = 0;
    for (const Rgb& p : image.pixels) sum += p.x + p.y + p.z;
    EXPECT_GT(sum / double(image.pixels.size()), 0.05) << "the frame looking along up is black";
}

// The EXR file holds the linear floats whose sRGB encoding the PNG file holds.
TEST_F(RenderCommand, ExrIsTheLinearImageOfThePng) {
    ASSERT_EQ(RenderMain(Render("f.png", {"--frames", "1"})), 0);
    ASSERT_EQ(RenderMain(Render("f.exr", {"--frames", "1"})), 0);
    const Image png = ReadImage((dir / "f.png").string()), exr = ReadImage((dir / "f.exr").string());
    ASSERT_EQ(exr.width, 48);
    ASSERT_EQ(exr.height, 36);
    double sum = 0;
    for (size_t p = 0; p < png.pixels.size(); ++p)
        for (int c = 0; c < 3; ++c) {
            ASSERT_EQ(EncodeSrgb8(exr.pixels[p][c]), EncodeSrgb8(png.pixels[p][c])) << "pixel " << p;
            sum += exr.pixels[p][c];
        }
    EXPECT_GT(sum, 0.0);
}

// --tonemap acts on the 8-bit files after the exposure; the EXR file stays the same linear image.
TEST_F(RenderCommand, ToneMapsThePngAndLeavesTheExrLinear) {
    ASSERT_EQ(RenderMain(Render("plain.exr", {"--frames", "1", "--exposure", "4"})), 0);
    for (const char* name : {"filmic", "agx"}) {
        const std::string png = std::string(name) + ".png", exr = std::string(name) + ".exr";
        ASSERT_EQ(RenderMain(Render(png, {"--frames", "1", "--exposure", "4", "--tonemap", name})), 0);
        ASSERT_EQ(RenderMain(Render(exr, {"--frames", "1", "--exposure", "4", "--tonemap", name})), 0);
        EXPECT_EQ(ReadBytes(dir / exr), ReadBytes(dir / "plain.exr")) << name;
        const Image mapped = ReadImage((dir / png).string()), linear = ReadImage((dir / exr).string());
        const ToneMap tone_map = std::string(name) == "filmic" ? ToneMap::Filmic : ToneMap::Agx;
        int brighter = 0;
        for (size_t p = 0; p < linear.pixels.size(); ++p) {
            const Rgb expected = ApplyToneMap(tone_map, linear.pixels[p]);
            for (int c = 0; c < 3; ++c) {
                ASSERT_EQ(EncodeSrgb8(mapped.pixels[p][c]), EncodeSrgb8(expected[c])) << name << ", pixel " << p;
                brighter += linear.pixels[p][c] > 1.0f;
            }
        }
        EXPECT_GT(brighter, 0) << "the exposure clips no pixel: the test shows no shoulder";
    }
    // none is the image as before: the sRGB encoding of the linear values.
    ASSERT_EQ(RenderMain(Render("none.png", {"--frames", "1", "--exposure", "4", "--tonemap", "none"})), 0);
    ASSERT_EQ(RenderMain(Render("default.png", {"--frames", "1", "--exposure", "4"})), 0);
    EXPECT_EQ(ReadBytes(dir / "none.png"), ReadBytes(dir / "default.png"));
    EXPECT_EQ(ReadBytes(dir / "none.png"), EncodeImage(ReadImage((dir / "plain.exr").string()), ImageFormat::png));
}

TEST_F(RenderCommand, AnUnknownToneMapIsAnInputError) {
    EXPECT_EQ(testing::InputErrorOf([&] { RenderMain(Render("x.png", {"--tonemap", "aces"})); }),
              "caustica render: --tonemap expects one of none|filmic|agx, got \"aces\"");
    EXPECT_THROW(RenderMain(Render("x.png", {"--tonemap"})), InputError);
    EXPECT_FALSE(fs::exists(dir / "x.png"));
}

TEST_F(RenderCommand, WidthOrHeightAloneKeepsTheCamerasAspectRatio) {
    // orbit.yaml's camera is 960x540.
    Args args = Render("w.png", {"--frames", "0"});
    args.erase(args.begin() + 7, args.begin() + 9);  // --height 36
    ASSERT_EQ(RenderMain(args), 0);
    EXPECT_EQ(ReadImage((dir / "w.png").string()).height, 27);
    args = Render("h.png", {"--frames", "0"});
    args.erase(args.begin() + 5, args.begin() + 7);  // --width 48
    ASSERT_EQ(RenderMain(args), 0);
    EXPECT_EQ(ReadImage((dir / "h.png").string()).width, 64);
}

TEST_F(RenderCommand, ResumeReportsExactlyWhatItWroteAndSkipped) {
    ASSERT_EQ(RenderMain(Render("s_%02d.png", {"--frames", "0:1"})), 0);
    ASSERT_EQ(RenderMain(Render("s_%02d.png", {"--frames", "4:5"})), 0);
    ::testing::internal::CaptureStderr();
    ASSERT_EQ(RenderMain(Render("s_%02d.png", {"--frames", "0:6", "--resume"})), 0);
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("wrote 3 files: frames 2-3, 6 of " + (dir / "s_%02d.png").string() + "\n"), std::string::npos)
        << err;
    EXPECT_NE(err.find("skipped 4 existing files (--resume): frames 0-1, 4-5 of "), std::string::npos) << err;
    ::testing::internal::CaptureStderr();
    ASSERT_EQ(RenderMain(Render("s_%02d.png", {"--frames", "0:6", "--resume"})), 0);
    const std::string again = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(again.find("wrote"), std::string::npos) << again;
    EXPECT_NE(again.find("skipped 7 existing files (--resume): " + (dir / "s_00.png").string() + " ... " +
                         (dir / "s_06.png").string()),
              std::string::npos)
        << again;
}

TEST_F(RenderCommand, FramesPastTheAnimationsEndWarn) {
    ::testing::internal::CaptureStderr();
    ASSERT_EQ(RenderMain(Render("e_%d.png", {"--frames", "239:241"})), 0);  // orbit: 8 s at 30 frames/s
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("warning: frame 241 is past the animation's end (frame 240 at 30 frames per second)"),
              std::string::npos)
        << err;
}

// Shards of a sequence, rendered apart, are together the sequence, byte for byte.
TEST_F(RenderCommand, ShardsTogetherAreTheSequence) {
    ASSERT_EQ(RenderMain(Render("all_%d.png", {"--frames", "0:4"})), 0);
    for (const char* shard : {"0/3", "1/3", "2/3"})
        ASSERT_EQ(RenderMain(Render("sh_%d.png", {"--frames", "0:4", "--shard", shard})), 0);
    for (int f = 0; f <= 4; ++f)
        EXPECT_EQ(ReadBytes(dir / ("sh_" + std::to_string(f) + ".png")), ReadBytes(dir / ("all_" + std::to_string(f) + ".png")))
            << "frame " << f;
    EXPECT_FALSE(fs::exists(dir / "sh_5.png"));
}

// A still's samples in ranges, combined: one range is the still byte for byte; several differ from
// it by float rounding only (at most one level of the 8-bit file).
TEST_F(RenderCommand, SampleRangesCombinedAreTheStill) {
    ASSERT_EQ(RenderMain(Render("still.png", {"--frames", "2", "--samples", "6"})), 0);
    ASSERT_EQ(RenderMain(Render("whole.exr", {"--frames", "2", "--samples", "6", "--sample-range", "0:6"})), 0);
    ASSERT_EQ(CombineMain({(dir / "whole.exr").string(), "-o", (dir / "one.png").string()}), 0);
    EXPECT_EQ(ReadBytes(dir / "one.png"), ReadBytes(dir / "still.png"));
    for (const char* range : {"4:6", "0:1", "1:4"})
        ASSERT_EQ(RenderMain(Render(std::string("part_") + range[0] + ".exr",
                                    {"--frames", "2", "--samples", "6", "--sample-range", range})),
                  0);
    ASSERT_EQ(CombineMain({(dir / "part_4.exr").string(), (dir / "part_0.exr").string(), (dir / "part_1.exr").string(),
                           "-o", (dir / "three.png").string()}),
              0);
    const Image a = ReadImage((dir / "three.png").string()), b = ReadImage((dir / "still.png").string());
    for (size_t p = 0; p < a.pixels.size(); ++p)
        for (int c = 0; c < 3; ++c)
            EXPECT_LE(std::abs(int(EncodeSrgb8(a.pixels[p][c])) - int(EncodeSrgb8(b.pixels[p][c]))), 1);
    // A tone map travels with the parts, and parts of two tone maps do not mix.
    ASSERT_EQ(RenderMain(Render("agx.png", {"--frames", "2", "--samples", "6", "--tonemap", "agx"})), 0);
    ASSERT_EQ(RenderMain(Render("agx.exr", {"--frames", "2", "--samples", "6", "--sample-range", "0:6", "--tonemap",
                                            "agx"})),
              0);
    ASSERT_EQ(CombineMain({(dir / "agx.exr").string(), "-o", (dir / "agx_combined.png").string()}), 0);
    EXPECT_EQ(ReadBytes(dir / "agx_combined.png"), ReadBytes(dir / "agx.png"));
    ASSERT_EQ(RenderMain(Render("agx_4.exr", {"--frames", "2", "--samples", "6", "--sample-range", "4:6",
                                              "--tonemap", "agx"})),
              0);
    EXPECT_NE(testing::InputErrorOf([&] {
                  CombineMain({(dir / "agx_4.exr").string(), (dir / "part_0.exr").string(),
                               (dir / "part_1.exr").string(), "-o", (dir / "mixed.png").string()});
              }).find("from another render"),
              std::string::npos);
    // Parts that leave a gap or overlap are refused.
    EXPECT_EQ(testing::InputErrorOf([&] {
                  CombineMain({(dir / "part_4.exr").string(), (dir / "part_0.exr").string(), "-o",
                               (dir / "gap.png").string()});
              }),
              (dir / "part_4.exr").string() + ": error: samples 1 to 3 are in no part");
    EXPECT_THROW(CombineMain({(dir / "still.png").string(), "-o", (dir / "x.png").string()}), InputError);
    EXPECT_THROW(RenderMain(Render("p.png", {"--samples", "6", "--sample-range", "0:3"})), InputError);  // not .exr
    EXPECT_FALSE(fs::exists(dir / "gap.png"));
}

}  // namespace
}  // namespace caustica
