// Small CPU renderings of every shipped scene against stored references, to catch regressions.
// After an intended change of the images, rewrite the references with
//   CAUSTICA_UPDATE_REFERENCES=1 ctest -R ReferenceImages
// and look at them before committing.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "renderer/frame_renderer.h"
#include "renderer/output/image.h"
#include "renderer/scene/scene_loader.h"
#include "renderer/scene_to_frame.h"
#include "tests/renderer/image_compare.h"
#include "tests/renderer/render_still.h"

namespace caustica {
namespace {

class ReferenceImages : public ::testing::TestWithParam<std::string> {};

TEST_P(ReferenceImages, MatchTheStoredImage) {
    const std::string source = CAUSTICA_SOURCE_DIR;
    const std::string file = source + "/scenes/" + GetParam();
    const Scene scene = LoadScene(std::filesystem::exists(file + ".yaml") ? file + ".yaml" : file + ".gltf");
    const std::unique_ptr<FrameRenderer> renderer =
        testing::RenderStill(Backend::Cpu(), scene, testing::SmallFrame(50000, 96, 72), 2);
    // The stored file is 8-bit sRGB: compare with this rendering after the same rounding.
    const std::string reference = source + "/tests/renderer/reference/" + GetParam() + ".png";
    const std::string rendered = ::testing::TempDir() + "/caustica-" + GetParam() + ".png";
    WriteImage(renderer->CurrentImage(), CheckOutputFile("", rendered));
    if (const char* update = std::getenv("CAUSTICA_UPDATE_REFERENCES"); update && std::string(update) == "1") {
        WriteImage(renderer->CurrentImage(), CheckOutputFile("", reference));
        GTEST_SKIP() << "rewrote " << reference;
    }
    EXPECT_TRUE(testing::CloseImages(ReadImage(reference), ReadImage(rendered))) << "rendered: " << rendered;
}

INSTANTIATE_TEST_SUITE_P(Scenes, ReferenceImages,
                         ::testing::Values("ring", "cornell-glass", "champagne", "pool", "orbit", "sky", "gem"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             std::string name = info.param;
                             for (char& c : name)
                                 if (c == '-') c = '_';
                             return name;
                         });

}  // namespace
}  // namespace caustica
