// Saving a scene and loading it back gives an equal scene; saving never leaves half a file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

#include "renderer/output/output_file.h"
#include "renderer/scene/scene_eval.h"
#include "renderer/scene/scene_loader.h"
#include "renderer/scene/scene_save.h"
#include "tests/renderer/scene/scene_test_util.h"

namespace caustica {
namespace {

using testing::SaveScene;
using testing::SourcePath;
using testing::TempDir;

class SaveShipped : public ::testing::TestWithParam<std::string> {};

TEST_P(SaveShipped, RoundTripIsEqual) {
    const Scene original = LoadScene(SourcePath("scenes/" + GetParam()));
    TempDir dir;
    const std::string path = dir.Path("saved.yaml");
    SaveScene(original, path);
    const Scene loaded = LoadScene(path);
    EXPECT_TRUE(loaded == original) << SceneToYaml(loaded, dir.Path());
    EXPECT_EQ(SceneToYaml(loaded, dir.Path()), SceneToYaml(original, dir.Path()));
}

// Every scene in scenes/ (YAML and glTF), whatever is added there later.
std::vector<std::string> ShippedSceneFiles() {
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(SourcePath("scenes"))) {
        const std::string ext = entry.path().extension().string();
        if (ext == ".yaml" || ext == ".gltf" || ext == ".glb") files.push_back(entry.path().filename().string());
    }
    std::sort(files.begin(), files.end());
    return files;
}

INSTANTIATE_TEST_SUITE_P(Scenes, SaveShipped, ::testing::ValuesIn(ShippedSceneFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             std::string name = info.param;
                             for (char& c : name)
                                 if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                             return name;
                         });

TEST(SaveShippedScenes, AreAllFound) { EXPECT_GE(ShippedSceneFiles().size(), 7u); }

// Dispersion is saved as written: an Abbe number with ior, or Cauchy's A and B without it.
TEST(SaveScene, KeepsDispersionAsWritten) {
    TempDir dir;
    const std::string path = dir.Path("glass.yaml");
    {
        std::ofstream out(path);
        out << "materials:\n"
               "  flint: {type: glass, ior: 1.75, dispersion: {abbe: 18}}\n"
               "  crown: {type: glass, dispersion: {cauchy: [1.5046, 0.0042]}}\n"
               "objects:\n"
               "  - {shape: {type: box}, material: flint}\n"
               "  - {shape: {type: sphere}, material: crown}\n";
    }
    const Scene original = LoadScene(path);
    const Material& crown = original.materials[1];
    EXPECT_EQ(crown.dispersion.kind, Dispersion::Kind::cauchy);
    EXPECT_NEAR(crown.ior, 1.5046 + 0.0042 / (0.5876 * 0.5876), 1e-6);
    SaveScene(original, dir.Path("saved.yaml"));
    const Scene loaded = LoadScene(dir.Path("saved.yaml"));
    EXPECT_TRUE(loaded == original) << SceneToYaml(loaded, dir.Path());
    const std::string text = SceneToYaml(loaded, dir.Path());
    EXPECT_NE(text.find("dispersion: {abbe: 18}"), std::string::npos) << text;
    EXPECT_NE(text.find("dispersion: {cauchy: [1.5046, 0.0042]}"), std::string::npos) << text;
}

TEST(SaveScene, KeepsMaterialsAsWrittenAndTheOpeningComment) {
    const Scene original = LoadScene(SourcePath("scenes/orbit.yaml"));
    TempDir dir;
    SaveScene(original, dir.Path("saved.yaml"));
    const Scene loaded = LoadScene(dir.Path("saved.yaml"));
    const Material& steel = loaded.materials[loaded.objects[1].material];
    EXPECT_EQ(steel.name, "steel");
    EXPECT_TRUE(steel.metal);
    EXPECT_EQ(steel.type, MaterialType::mirror);  // rendered as a mirror tinted by its colour
    EXPECT_NE(SceneToYaml(loaded, dir.Path()).find("type: metal"), std::string::npos);
    // The file's description is kept; comments inside it are not (yaml-cpp's nodes drop them).
    EXPECT_EQ(loaded.header_comment.rfind("# An animated scene: a glass sphere rolls", 0), 0u) << loaded.header_comment;
    EXPECT_EQ(loaded.header_comment, original.header_comment);
    EXPECT_EQ(loaded.header_comment.back(), '\n');
    EXPECT_EQ(loaded.header_comment.find("\n\n"), std::string::npos);
}

TEST(SaveScene, EditedValuesSurvive) {
    Scene scene = LoadScene(SourcePath("scenes/orbit.yaml"));
    scene.lights[0].position = Vec3(1.25f, 3.5f, -0.1f);
    scene.lights[0].power = 77.7f;
    scene.lights[0].color = Rgb(0.1f, 0.2f, 0.3f);
    scene.objects[1].transform.translate = Vec3(0.3f, 0.15f, 0.2f);
    scene.objects[1].transform.rotate.kind = Rotation::Kind::axis_angle;
    scene.objects[1].transform.rotate.axis = Normalize(Vec3(1, 2, 3));
    scene.objects[1].transform.rotate.angle_degrees = 33.3f;
    scene.camera.position = Vec3(0.1f, 4.0f, 4.4f);
    scene.camera.fov_degrees = 51.5f;
    scene.settings.photons = 123456;
    scene.settings.k = 77;
    scene.materials[2].metal = false;  // steel becomes a plain mirror
    scene.materials[0].color = Rgb(0.25f, 0.5f, 0.75f);
    TempDir dir;
    SaveScene(scene, dir.Path("edited.yaml"));
    const Scene loaded = LoadScene(dir.Path("edited.yaml"));
    EXPECT_TRUE(loaded == scene);
    EXPECT_EQ(loaded.lights[0].position, scene.lights[0].position);
    EXPECT_TRUE(loaded.objects[1].transform == scene.objects[1].transform);
    EXPECT_EQ(loaded.camera.fov_degrees, 51.5f);
    EXPECT_EQ(loaded.settings.photons, 123456);
    EXPECT_EQ(loaded.settings.k, 77);
    EXPECT_FALSE(loaded.materials[2].metal);
}

TEST(SaveScene, EnvironmentAndSettingsSurvive) {
    const Scene scene = LoadSceneFromString(
        "settings: {specular_splits: 5, shadow_samples: 9, ambient: [0.1, 0.1, 0.1], indirect: true, global_photons: 777,\n"
        "           global_k: 33, gather_rays: 12, progressive: false, alpha: 0.4}\n"
        "environment: {type: gradient, horizon: [0.9, 0.8, 0.7], zenith: [0.1, 0.3, 2.5], rotate: 12.5, intensity: 0.3}\n",
        "s.yaml");
    TempDir dir;
    SaveScene(scene, dir.Path("saved.yaml"));
    const Scene loaded = LoadScene(dir.Path("saved.yaml"));
    EXPECT_TRUE(loaded == scene) << SceneToYaml(loaded, dir.Path());
    EXPECT_EQ(loaded.settings.specular_splits, 5);
    EXPECT_EQ(loaded.settings.shadow_samples, 9);
    EXPECT_TRUE(loaded.settings.indirect);
    EXPECT_EQ(loaded.settings.global_photons, 777);
    EXPECT_EQ(loaded.settings.global_k, 33);
    EXPECT_EQ(loaded.settings.gather_rays, 12);
    EXPECT_FALSE(loaded.settings.progressive);
    EXPECT_EQ(loaded.settings.alpha, 0.4f);
    EXPECT_EQ(loaded.environment.zenith, Rgb(0.1f, 0.3f, 2.5f));
    EXPECT_EQ(loaded.environment.rotate_degrees, 12.5f);
}

TEST(SaveScene, ToneMapAndThinLensSurvive) {
    const Scene scene = LoadSceneFromString(
        "camera: {position: [0, 1, 4], look_at: [0, 0.5, 0], aperture: 0.12, focus_distance: 3.25}\n"
        "settings: {tonemap: agx}\n",
        "s.yaml");
    TempDir dir;
    SaveScene(scene, dir.Path("saved.yaml"));
    const Scene loaded = LoadScene(dir.Path("saved.yaml"));
    EXPECT_TRUE(loaded == scene) << SceneToYaml(loaded, dir.Path());
    EXPECT_EQ(loaded.settings.tone_map, ToneMap::Agx);
    EXPECT_EQ(loaded.camera.aperture, 0.12f);
    EXPECT_EQ(loaded.camera.focus_distance, 3.25f);
    // A pinhole that focuses on its look_at saves neither key: the file says what the user wrote.
    const std::string pinhole = SceneToYaml(LoadSceneFromString("camera: {fov: 30}\n", "p.yaml"), dir.Path());
    EXPECT_EQ(pinhole.find("aperture"), std::string::npos) << pinhole;
    EXPECT_EQ(pinhole.find("focus_distance"), std::string::npos) << pinhole;
    EXPECT_NE(pinhole.find("tonemap: none"), std::string::npos) << pinhole;
}

TEST(SaveScene, AreaLightsSurvive) {
    const Scene scene = LoadSceneFromString(R"(
lights:
  - {name: panel, type: rect, position: [0, 2, 0], width: 0.7, height: 0.3, rotate: {axis: [1, 0, 0], angle: 20}, power: 5}
  - {type: disc, position: [1, 1, 0], radius: 0.15, rotate: [0, 0, 90], color: [1, 0.5, 0.25]}
  - {type: sphere, position: [0, 3, 0], radius: 0.05, animation: [{time: 0, position: [0, 3, 0]}, {time: 1, position: [1, 3, 0]}]}
)",
                                            "s.yaml");
    TempDir dir;
    SaveScene(scene, dir.Path("saved.yaml"));
    const Scene loaded = LoadScene(dir.Path("saved.yaml"));
    EXPECT_TRUE(loaded == scene) << SceneToYaml(loaded, dir.Path());
    EXPECT_EQ(loaded.lights[0].width, 0.7f);
    EXPECT_EQ(loaded.lights[0].rotate.angle_degrees, 20.0f);
    EXPECT_EQ(loaded.lights[1].radius, 0.15f);
    EXPECT_EQ(loaded.lights[2].type, LightType::sphere);
}

TEST(SaveScene, PathsAreRewrittenForTheNewFolder) {
    TempDir dir;
    dir.File("a/models/tri.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    const std::string yaml =
        "materials:\n  w: {type: diffuse, texture: tex/missing.png}\n"
        "objects:\n  - {mesh: models/tri.obj, material: w}\n"
        "  - shape: {type: heightfield, image: h.png, waves: [{amplitude: 0.1}]}\n";
    const std::string path = dir.File("a/s.yaml", yaml);
    SceneLoadOptions quiet;
    quiet.print_warnings = false;
    const Scene scene = LoadSceneFromString(yaml, path, quiet);
    EXPECT_EQ(scene.warnings.size(), 2u);  // the texture and the image are missing
    std::filesystem::create_directories(dir.Path("b/c"));
    SaveScene(scene, dir.Path("b/c/s.yaml"));
    const std::string text = SceneToYaml(scene, dir.Path("b/c"));
    EXPECT_NE(text.find("mesh: ../../a/models/tri.obj"), std::string::npos) << text;
    EXPECT_NE(text.find("texture: ../../a/tex/missing.png"), std::string::npos) << text;
    const Scene loaded = LoadSceneFromString(text, dir.Path("b/c/s.yaml"), quiet);
    EXPECT_TRUE(loaded == scene);
    EXPECT_EQ(loaded.objects[0].mesh_path, dir.Path("a/models/tri.obj"));
}

TEST(SaveScene, FoldersAreMadeFoldersRefusedAndFilesReplacedWhole) {
    const Scene scene = LoadScene(SourcePath("scenes/ring.yaml"));
    TempDir dir;
    // Missing folders are created.
    const std::string deep = dir.Path("no/such/folder/s.yaml");
    SaveScene(scene, deep);
    EXPECT_TRUE(LoadScene(deep) == scene);
    std::filesystem::remove_all(dir.Path("no"));
    // A folder is refused before anything is written, and nothing is left beside it.
    std::filesystem::create_directories(dir.Path("taken"));
    try {
        SaveScene(scene, dir.Path("taken"));
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()), dir.Path("taken") + ": is a folder; only regular files are written");
    }
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir.Path())) files += entry.is_regular_file() ? 1 : 0;
    EXPECT_EQ(files, 0);
    // Overwriting an existing scene replaces it whole.
    const std::string path = dir.File("s.yaml", "old");
    SaveScene(scene, path);
    EXPECT_TRUE(LoadScene(path) == scene);
}

}  // namespace
}  // namespace caustica
