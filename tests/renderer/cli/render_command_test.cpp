// caustica render as a user runs it: output files, determinism, --resume, and bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.h"
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
    EXPECT_THROW(RenderMain(Render("f_%d.exr")), InputError);  // not an image type it writes
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

}  // namespace
}  // namespace caustica
