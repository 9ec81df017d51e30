// OBJ loading of the real models in ../shared/models (skipped when absent), with the triangle
// counts its README gives.
#include <gtest/gtest.h>

#include "renderer/scene/scene_eval.h"
#include "renderer/scene/scene_loader.h"
#include "tests/renderer/scene/scene_test_util.h"
#include "tests/test_support.h"

namespace caustica {
namespace {

struct Model {
    const char* file;
    std::size_t triangles;   // as the README counts them
    std::size_t degenerate;  // zero-area triangles among them, which the loader drops with a warning
};

class RealModels : public ::testing::TestWithParam<Model> {};

TEST_P(RealModels, TriangleCountsMatchTheReadme) {
    CA_REQUIRE_MODELS(dir);
    const Model& model = GetParam();
    SceneLoadOptions quiet;
    quiet.print_warnings = false;
    const Scene scene = LoadSceneFromString(std::string("objects:\n  - mesh: ") + model.file + "\n", dir + "/scene.yaml", quiet);
    const SceneFrame frame = EvaluateScene(scene, 0);
    EXPECT_EQ(frame.triangles.size() + model.degenerate, model.triangles);
    bool warned = false;
    for (const std::string& w : scene.warnings)
        warned |= w.find(std::to_string(model.degenerate) + " degenerate (zero-area) triangle(s) dropped") != std::string::npos;
    EXPECT_EQ(warned, model.degenerate > 0);
    EXPECT_FALSE(frame.bounds.Empty());
    for (std::size_t i = 0; i < frame.corner_normals.size(); ++i)
        ASSERT_NEAR(Length(frame.corner_normals[i]), 1.0f, 1e-4f) << "corner " << i;
}

INSTANTIATE_TEST_SUITE_P(Models, RealModels,
                         ::testing::Values(Model{"stanford-bunny.obj", 69451, 0}, Model{"nefertiti.obj", 99938, 0},
                                           Model{"ogre.obj", 124008, 4}, Model{"teapot.obj", 6320, 0},
                                           Model{"spot.obj", 5856, 0}, Model{"sponza-33k.obj", 33663, 0}),
                         [](const ::testing::TestParamInfo<Model>& info) {
                             std::string name = info.param.file;
                             name = name.substr(0, name.find('.'));
                             for (char& c : name)
                                 if (c == '-') c = '_';
                             return name;
                         });

TEST(RealModels, SponzaWarnsAboutItsMissingMtl) {
    CA_REQUIRE_MODELS(dir);
    SceneLoadOptions quiet;
    quiet.print_warnings = false;
    const Scene scene = LoadSceneFromString("objects:\n  - mesh: sponza-33k.obj\n", dir + "/scene.yaml", quiet);
    ASSERT_GE(scene.warnings.size(), 1u);
    const std::string& w = scene.warnings[0];
    EXPECT_EQ(w.rfind(dir + "/sponza-33k.obj:", 0), 0u) << w;
    EXPECT_NE(w.find(": warning: material library \"sponza.mtl\" not found; using a default material"), std::string::npos) << w;
    ASSERT_GE(scene.default_material, 0);
    const SceneFrame frame = EvaluateScene(scene, 0);
    for (int m : frame.triangle_material) ASSERT_EQ(m, scene.default_material);
}

}  // namespace
}  // namespace caustica
