// Shipped scenes, the built-in scene, warnings, paths and statistics.
#include <gtest/gtest.h>

#include <stb/stb_image_write.h>

#include <fstream>
#include <sstream>

#include "core/srgb.h"
#include "renderer/scene/builtin_scene.h"
#include "renderer/scene/scene_eval.h"
#include "renderer/scene/scene_loader.h"
#include "renderer/scene/scene_stats.h"
#include "tests/renderer/scene/scene_test_util.h"

namespace caustica {
namespace {

using testing::SourcePath;
using testing::TempDir;

struct ShippedScene {
    const char* file;
    std::size_t triangles;
    int specular_objects;
    bool animated;
};

class ShippedScenes : public ::testing::TestWithParam<ShippedScene> {};

TEST_P(ShippedScenes, LoadsWithoutWarnings) {
    const ShippedScene& expected = GetParam();
    const Scene scene = LoadScene(SourcePath(std::string("scenes/") + expected.file));
    EXPECT_TRUE(scene.warnings.empty()) << scene.warnings.front();
    const SceneFrame frame = EvaluateScene(scene, 0.0);
    EXPECT_EQ(frame.triangles.size(), expected.triangles);
    EXPECT_EQ(static_cast<int>(SpecularObjects(scene, frame).size()), expected.specular_objects);
    EXPECT_EQ(AnimationLength(scene) > 0, expected.animated);
    EXPECT_FALSE(scene.lights.empty());
    for (std::size_t i = 0; i < frame.corner_normals.size(); ++i)
        ASSERT_NEAR(Length(frame.corner_normals[i]), 1.0f, 1e-4f) << "corner " << i;
}

INSTANTIATE_TEST_SUITE_P(Scenes, ShippedScenes,
                         ::testing::Values(ShippedScene{"ring.yaml", 2 + 384 * 8, 1, false},
                                           ShippedScene{"champagne.yaml", 2 + 14200 + 5000, 2, false},
                                           ShippedScene{"cornell-glass.yaml", 5 * 2 + 2 * (2 * 96 * 47), 2, false},
                                           ShippedScene{"pool.yaml", 5 * 2 + 2 * 160 * 160, 1, true},
                                           ShippedScene{"orbit.yaml", 2 + 256 * 8 + 2 * 96 * 47, 2, true},
                                           ShippedScene{"sky.yaml", 2 + 2 * (2 * 128 * 63), 2, false},
                                           ShippedScene{"gem.gltf", 2 + 80, 1, false}),
                         [](const ::testing::TestParamInfo<ShippedScene>& info) {
                             std::string name = info.param.file;
                             name = name.substr(0, name.find('.'));
                             for (char& c : name)
                                 if (c == '-') c = '_';
                             return name;
                         });

TEST(SceneLoad, RingMatchesZhouFigure6a) {
    const Scene scene = LoadScene(SourcePath("scenes/ring.yaml"));
    EXPECT_EQ(scene.settings.photons, 200000);
    EXPECT_EQ(scene.settings.k, 50);
    ASSERT_EQ(scene.lights.size(), 1u);
    EXPECT_EQ(scene.lights[0].type, LightType::point);
    const SceneFrame frame = EvaluateScene(scene, 0);
    // The ring stands on the table: its lowest point at y = 0.
    EXPECT_NEAR(frame.object_bounds[1].lo.y, 0.0f, 1e-6f);
    EXPECT_EQ(scene.materials[scene.objects[1].material].type, MaterialType::mirror);
}

TEST(SceneLoad, BuiltinSceneIsRingYaml) {
    std::ifstream in(SourcePath("scenes/ring.yaml"));
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(std::string(BuiltinDefaultSceneYaml()), text.str());
    const Scene builtin = LoadSceneFromString(BuiltinDefaultSceneYaml(), "builtin/ring.yaml");
    const Scene file = LoadScene(SourcePath("scenes/ring.yaml"));
    EXPECT_TRUE(builtin == file);
}

TEST(SceneLoad, DefaultsWhenSectionsAreMissing) {
    const Scene scene = LoadSceneFromString("objects:\n  - shape: {type: box}\n", "a.yaml");
    EXPECT_EQ(scene.camera.width, 800);
    EXPECT_EQ(scene.settings.photons, 1000000);
    ASSERT_EQ(scene.objects.size(), 1u);
    EXPECT_EQ(scene.objects[0].name, "object 0");
    ASSERT_GE(scene.default_material, 0);
    EXPECT_EQ(scene.materials[scene.default_material].type, MaterialType::diffuse);
    const SceneFrame frame = EvaluateScene(scene, 0);
    for (int m : frame.triangle_material) EXPECT_EQ(m, scene.default_material);
}

// Indirect light is on unless the file gives an ambient term (which stood for it before) or turns it
// off; a file that turns it off without an ambient term keeps the old default ambient.
TEST(SceneLoad, IndirectLightSettings) {
    const Scene plain = LoadSceneFromString("settings: {photons: 5}\n", "a.yaml");
    EXPECT_TRUE(plain.settings.indirect);
    EXPECT_EQ(plain.settings.ambient, Rgb(0.0f));
    EXPECT_EQ(plain.settings.global_photons, 250000);
    EXPECT_EQ(plain.settings.global_k, 64);
    EXPECT_EQ(plain.settings.gather_rays, 0);  // the density estimate at the visible point
    EXPECT_TRUE(plain.settings.denoise);       // the viewer's; render and bench do not ask for it
    EXPECT_TRUE(LoadSceneFromString("objects: []\n", "a.yaml").settings.indirect);

    const Scene ambient = LoadSceneFromString("settings: {ambient: [0.1, 0.2, 0.3]}\n", "a.yaml");
    EXPECT_FALSE(ambient.settings.indirect);
    EXPECT_EQ(ambient.settings.ambient, Rgb(0.1f, 0.2f, 0.3f));

    const Scene off = LoadSceneFromString("settings: {indirect: false}\n", "a.yaml");
    EXPECT_FALSE(off.settings.indirect);
    EXPECT_EQ(off.settings.ambient, Rgb(Settings::kAmbientWithoutIndirect));

    const Scene both = LoadSceneFromString(
        "settings: {ambient: [0.1, 0.1, 0.1], indirect: true, global_photons: 1000, global_k: 20}\n", "a.yaml");
    EXPECT_TRUE(both.settings.indirect);
    EXPECT_EQ(both.settings.ambient, Rgb(0.1f));
    EXPECT_EQ(both.settings.global_photons, 1000);
    EXPECT_EQ(both.settings.global_k, 20);
}

TEST(SceneLoad, MissingTextureWarnsAndKeepsColour) {
    TempDir dir;
    const std::string path = dir.File("s.yaml",
                                      "materials:\n"
                                      "  wood: {type: diffuse, color: [0.5, 0.4, 0.3], texture: textures/wood.png}\n"
                                      "objects:\n  - {shape: {type: plane}, material: wood}\n");
    SceneLoadOptions quiet;
    quiet.print_warnings = false;
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    const Scene scene = LoadSceneFromString(text.str(), path, quiet);
    ASSERT_EQ(scene.warnings.size(), 1u);
    EXPECT_EQ(scene.warnings[0], path + ":2:58: warning: texture \"" + dir.Path("textures/wood.png") +
                                     "\" not found; using the material's colour");
    EXPECT_EQ(scene.materials[0].texture, -1);
    EXPECT_EQ(scene.materials[0].texture_path, dir.Path("textures/wood.png"));
    EXPECT_EQ(scene.materials[0].color, Rgb(0.5f, 0.4f, 0.3f));
}

TEST(SceneLoad, WarningsArePrintedToStderr) {
    ::testing::internal::CaptureStderr();
    const Scene scene = LoadSceneFromString(
        "materials:\n  w: {type: diffuse, texture: gone.jpg}\n", "dir/s.yaml");
    const std::string printed = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(printed, "dir/s.yaml:2:31: warning: texture \"dir/gone.jpg\" not found; using the material's colour\n");
}

TEST(SceneLoad, CorruptTextureIsAnError) {
    TempDir dir;
    dir.File("bad.png", "this is not a png");
    const std::string path = dir.File("s.yaml", "materials:\n  w: {type: diffuse, texture: bad.png}\n");
    try {
        LoadScene(path);
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(path + ":2:31: error: texture"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("not a PNG or JPG image"), std::string::npos) << e.what();
    }
}

TEST(SceneLoad, TexturesDecodeAndAreShared) {
    // A 2x1 PNG: one red and one blue pixel.
    const unsigned char pixels[] = {255, 0, 0, 0, 0, 255};
    std::string png;
    stbi_write_png_to_func([](void* context, void* data, int size) {
        static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
    }, &png, 2, 1, 3, pixels, 6);
    TempDir dir;
    dir.File("t.png", png);
    const std::string path = dir.File("s.yaml", "materials:\n  a: {type: diffuse, texture: t.png}\n  b: {type: diffuse, texture: ./t.png}\n");
    const Scene scene = LoadScene(path);
    ASSERT_EQ(scene.textures.size(), 1u);
    EXPECT_EQ(scene.materials[0].texture, 0);
    EXPECT_EQ(scene.materials[1].texture, 0);
    const Texture& t = scene.textures[0];
    ASSERT_EQ(t.width, 2);
    ASSERT_EQ(t.height, 1);
    EXPECT_EQ(t.rgba[0], 255);  // red
    EXPECT_EQ(t.rgba[2], 0);
    EXPECT_EQ(t.rgba[4], 0);    // blue
    EXPECT_EQ(t.rgba[6], 255);
}

// The bytes of an image written by one of stb_image_write's functions.
template <class Write>
std::string ImageBytes(Write write) {
    std::string bytes;
    write([](void* context, void* data, int size) {
        static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
    }, &bytes);
    return bytes;
}

TEST(SceneLoad, EnvironmentDefaultsToBlack) {
    const Scene scene = LoadSceneFromString("objects: []\n", "s.yaml");
    EXPECT_EQ(scene.environment.kind, Environment::Kind::constant);
    EXPECT_EQ(scene.environment.color, Rgb(0.0f));
    EXPECT_EQ(scene.environment.intensity, 1.0f);
}

TEST(SceneLoad, EnvironmentImagesDecodeToLinearRgb) {
    // Radiance HDR: values with short mantissas survive its shared-exponent encoding exactly.
    const float hdr[] = {0.5f, 1.0f, 2.0f, 4.0f, 0.25f, 0.125f};
    // PNG: sRGB codes, decoded to linear light.
    const unsigned char png[] = {255, 0, 128, 0, 188, 255};
    TempDir dir;
    dir.File("sky.hdr", ImageBytes([&](stbi_write_func* f, void* c) { stbi_write_hdr_to_func(f, c, 2, 1, 3, hdr); }));
    dir.File("sky.png", ImageBytes([&](stbi_write_func* f, void* c) { stbi_write_png_to_func(f, c, 1, 2, 3, png, 3); }));
    const Scene from_hdr = LoadScene(dir.File("a.yaml", "environment: {type: image, image: sky.hdr, rotate: 30, intensity: 2}\n"));
    const Environment& e = from_hdr.environment;
    EXPECT_EQ(e.kind, Environment::Kind::image);
    EXPECT_EQ(e.image_path, dir.Path("sky.hdr"));
    EXPECT_EQ(e.rotate_degrees, 30.0f);
    EXPECT_EQ(e.intensity, 2.0f);
    ASSERT_TRUE(e.image);
    ASSERT_EQ(e.image->width, 2);
    ASSERT_EQ(e.image->height, 1);
    EXPECT_EQ(e.image->texels[0], Rgb(0.5f, 1.0f, 2.0f));
    EXPECT_EQ(e.image->texels[1], Rgb(4.0f, 0.25f, 0.125f));
    const Scene from_png = LoadScene(dir.File("b.yaml", "environment: {type: image, image: sky.png}\n"));
    ASSERT_TRUE(from_png.environment.image);
    ASSERT_EQ(from_png.environment.image->height, 2);
    EXPECT_EQ(from_png.environment.image->texels[0], Rgb(1.0f, 0.0f, DecodeSrgb8(128)));
    EXPECT_EQ(from_png.environment.image->texels[1], Rgb(0.0f, DecodeSrgb8(188), 1.0f));
}

TEST(SceneLoad, MeshPathsAreRelativeToTheSceneFile) {
    TempDir dir;
    dir.File("models/tri.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    const std::string path = dir.File("scenes/s.yaml", "objects:\n  - mesh: ../models/tri.obj\n  - mesh: ../models/tri.obj\n");
    const Scene scene = LoadScene(path);
    ASSERT_EQ(scene.objects.size(), 2u);
    EXPECT_EQ(scene.objects[0].mesh_path, dir.Path("models/tri.obj"));
    EXPECT_EQ(scene.objects[0].mesh, scene.objects[1].mesh);  // loaded once
    EXPECT_EQ(EvaluateScene(scene, 0).triangles.size(), 2u);
}

TEST(SceneLoad, MissingMtlWarnsAndUsesDefaultMaterial) {
    TempDir dir;
    const std::string obj = dir.File("m.obj", "# a triangle\nmtllib missing.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl shiny\nf 1 2 3\n");
    const std::string path = dir.File("s.yaml", "objects:\n  - mesh: m.obj\n");
    SceneLoadOptions quiet;
    quiet.print_warnings = false;
    const Scene scene = LoadSceneFromString("objects:\n  - mesh: m.obj\n", path, quiet);
    ASSERT_EQ(scene.warnings.size(), 1u);
    EXPECT_EQ(scene.warnings[0], obj + ":2:1: warning: material library \"missing.mtl\" not found; using a default material");
    const SceneFrame frame = EvaluateScene(scene, 0);
    ASSERT_EQ(frame.triangle_material.size(), 1u);
    EXPECT_EQ(frame.triangle_material[0], scene.default_material);
}

TEST(SceneLoad, MtlMaterialsAndTheirTextures) {
    TempDir dir;
    dir.File("m.mtl", "newmtl red\nKd 1 0 0\nnewmtl chrome\nillum 3\nKs 0.9 0.9 0.9\nnewmtl tex\nKd 1 1 1\nmap_Kd img/none.png\n");
    dir.File("m.obj", "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nusemtl red\nf 1 2 3\nusemtl chrome\nf 2 4 3\nusemtl tex\nf 1 2 4\n");
    const std::string path = dir.File("s.yaml", "objects:\n  - mesh: m.obj\n");
    SceneLoadOptions quiet;
    quiet.print_warnings = false;
    const Scene scene = LoadSceneFromString("objects:\n  - mesh: m.obj\n", path, quiet);
    ASSERT_EQ(scene.warnings.size(), 1u);  // the missing texture of "tex"
    EXPECT_NE(scene.warnings[0].find("img/none.png\" not found"), std::string::npos) << scene.warnings[0];
    const SceneFrame frame = EvaluateScene(scene, 0);
    ASSERT_EQ(frame.triangle_material.size(), 3u);
    EXPECT_EQ(scene.materials[frame.triangle_material[0]].name, "m.obj/red");
    EXPECT_EQ(scene.materials[frame.triangle_material[0]].color, Rgb(1, 0, 0));
    EXPECT_EQ(scene.materials[frame.triangle_material[1]].type, MaterialType::mirror);
    EXPECT_EQ(scene.materials[frame.triangle_material[2]].texture_path, dir.Path("img/none.png"));
    EXPECT_EQ(scene.default_material, -1);  // every face has a material
    const std::vector<SpecularObject> specular = SpecularObjects(scene, frame);
    ASSERT_EQ(specular.size(), 1u);
    EXPECT_TRUE(specular[0].has_mirror);
    EXPECT_EQ(specular[0].bounds.lo, Vec3(0, 0, 0));
    EXPECT_EQ(specular[0].bounds.hi, Vec3(1, 1, 0));
}

TEST(SceneLoad, StatisticsCountEverything) {
    const Scene scene = LoadScene(SourcePath("scenes/cornell-glass.yaml"));
    const SceneStats stats = ComputeSceneStats(scene);
    EXPECT_EQ(stats.triangles, 5u * 2 + 2 * (2 * 96 * 47));
    EXPECT_EQ(stats.objects, 7);
    EXPECT_EQ(stats.shape_objects, 7);
    EXPECT_EQ(stats.point_lights, 0);
    EXPECT_EQ(stats.area_lights, 1);
    EXPECT_EQ(stats.diffuse_materials, 3);
    EXPECT_EQ(stats.mirror_materials, 1);
    EXPECT_EQ(stats.glass_materials, 1);
    EXPECT_EQ(stats.animation_length, 0.0);
    EXPECT_NEAR(stats.bounds.lo.x, -1.0f, 1e-5f);
    EXPECT_NEAR(stats.bounds.hi.y, 2.0f, 1e-5f);
    std::ostringstream out;
    PrintSceneStats(scene, stats, out);
    EXPECT_NE(out.str().find("triangles:  18058"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("lights:     1 (0 point, 0 spot, 0 directional, 1 area)"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace caustica
