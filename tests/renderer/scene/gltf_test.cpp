// glTF files as meshes of YAML scenes and as scenes: triangles, node transforms, cameras, lights,
// materials, and located errors. The files are written by the tests (gltf_builder.h).
#include <gtest/gtest.h>
#include <stb/stb_image_write.h>

#include <cmath>

#include "renderer/scene/gltf_loader.h"
#include "renderer/scene/scene_eval.h"
#include "renderer/scene/scene_loader.h"
#include "renderer/scene/scene_save.h"
#include "tests/renderer/scene/gltf_builder.h"
#include "tests/renderer/scene/scene_test_util.h"

namespace caustica {
namespace {

using testing::ExpectNear;
using testing::SaveScene;

using testing::GltfBuilder;
using testing::TempDir;

constexpr double kPi = 3.14159265358979323846;

// A unit quad in the xy-plane (two triangles), placed by a parent node (translated) and its child
// (scaled and turned 90 degrees about y); a glass, a metal and a textured diffuse material; a
// point, a spot and a directional light; a camera.
GltfBuilder Sample() {
    GltfBuilder b;
    const int positions = b.AddFloats({0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}, 3);
    const int indices = b.AddIndices({0, 1, 2, 0, 2, 3});
    b.AddMesh(positions, indices, -1, -1, ", \"material\": 0");
    b.AddMesh(positions, indices, -1, -1, ", \"material\": 1");
    b.AddMesh(positions, indices, -1, b.AddFloats({0, 0, 1, 0, 1, 1, 0, 1}, 2), ", \"material\": 2");
    // A 2x1 PNG: red, blue.
    const unsigned char pixels[] = {255, 0, 0, 0, 0, 255};
    std::string png;
    stbi_write_png_to_func(
        [](void* context, void* data, int size) {
            static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
        },
        &png, 2, 1, 3, pixels, 6);
    const int texture = b.AddImage(png, "image/png");
    b.materials = {
        "{\"name\": \"water\", \"extensions\": {\"KHR_materials_transmission\": {\"transmissionFactor\": 1},"
        " \"KHR_materials_ior\": {\"ior\": 1.33}, \"KHR_materials_volume\": {\"attenuationDistance\": 2,"
        " \"attenuationColor\": [1, 0.5, 0.25]}}}",
        "{\"name\": \"gold\", \"pbrMetallicRoughness\": {\"baseColorFactor\": [1, 0.8, 0.4, 1], \"metallicFactor\": "
        "1}}",
        "{\"name\": \"paper\", \"pbrMetallicRoughness\": {\"baseColorFactor\": [0.5, 0.5, 0.5, 1], \"metallicFactor\": "
        "0,"
        " \"baseColorTexture\": {\"index\": " +
            std::to_string(texture) + "}}}"};
    b.lights = {
        "{\"name\": \"bulb\", \"type\": \"point\", \"color\": [1, 0.5, 0.25], \"intensity\": " +
            std::to_string(683 / (4 * kPi)) + "}",
        "{\"type\": \"spot\", \"intensity\": 100, \"spot\": {\"innerConeAngle\": 0.2, \"outerConeAngle\": 0.5}}",
        "{\"type\": \"directional\", \"intensity\": 683}"};
    b.cameras = {"{\"type\": \"perspective\", \"perspective\": {\"yfov\": 0.5, \"aspectRatio\": 1.5, \"znear\": 0.1}}"};
    b.AddNode("\"children\": [1, 2], \"translation\": [10, 0, 0]");                                      // 0
    b.AddNode("\"mesh\": 0, \"scale\": [2, 2, 2], \"rotation\": [0, 0.7071068, 0, 0.7071068]");          // 1
    b.AddNode("\"mesh\": 1, \"matrix\": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0,5,0,1]");                          // 2
    b.AddNode("\"mesh\": 2");                                                                            // 3
    b.AddNode("\"translation\": [0, 3, 0], \"extensions\": {\"KHR_lights_punctual\": {\"light\": 0}}");  // 4
    // The spot points down: its -z axis turned -90 degrees about x.
    b.AddNode(
        "\"translation\": [1, 4, 1], \"rotation\": [-0.7071068, 0, 0, 0.7071068],"
        " \"extensions\": {\"KHR_lights_punctual\": {\"light\": 1}}");       // 5
    b.AddNode("\"extensions\": {\"KHR_lights_punctual\": {\"light\": 2}}");  // 6
    b.AddNode("\"camera\": 0, \"translation\": [0.5, 0.5, 8]");              // 7
    b.scene_roots = {0, 3, 4, 5, 6, 7};
    return b;
}

void ExpectSample(const Scene& scene) {
    ASSERT_EQ(scene.objects.size(), 1u);
    const Mesh& mesh = *scene.objects[0].mesh;
    EXPECT_EQ(mesh.TriangleCount(), 6u);
    // Node 1: scaled by 2, turned +90 degrees about y (x -> -z), then moved by its parent.
    ExpectNear(mesh.positions[1], Vec3(10, 0, -2), 1e-5f);
    ExpectNear(mesh.positions[2], Vec3(10, 2, -2), 1e-5f);
    // Node 2: its matrix lifts it by 5, its parent moves it by 10.
    ExpectNear(mesh.positions[4 + 2], Vec3(11, 6, 0), 1e-6f);
    // Materials: the file's, named after it, per triangle.
    const std::string file = std::filesystem::path(scene.objects[0].mesh_path).filename().string();
    const Material& water = scene.materials[mesh.triangle_materials[0]];
    EXPECT_EQ(water.name, file + "/water");
    EXPECT_EQ(water.type, MaterialType::glass);
    EXPECT_FLOAT_EQ(water.ior, 1.33f);
    ExpectNear(water.absorption, Vec3(0, float(std::log(2.0) / 2), float(std::log(4.0) / 2)), 1e-6f);
    const Material& gold = scene.materials[mesh.triangle_materials[2]];
    EXPECT_EQ(gold.type, MaterialType::mirror);
    EXPECT_TRUE(gold.metal);
    ExpectNear(gold.color, Vec3(1, 0.8f, 0.4f), 1e-6f);
    const Material& paper = scene.materials[mesh.triangle_materials[4]];
    EXPECT_EQ(paper.type, MaterialType::diffuse);
    ExpectNear(paper.color, Vec3(0.5f), 1e-6f);
    ASSERT_GE(paper.texture, 0);
    const Texture& t = scene.textures[paper.texture];
    EXPECT_EQ(t.width, 2);
    EXPECT_EQ(t.rgba[0], 255);
    EXPECT_EQ(t.rgba[6], 255);
    // glTF's v runs down the image, Caustica's up.
    EXPECT_EQ(mesh.corner_uvs[3 * 4 + 2].y, 0.0f);  // corner (1, 1) of the quad has glTF uv (1, 0)
}

TEST(Gltf, MeshInAYamlScene) {
    for (const char* form : {"gltf", "glb", "bin"}) {
        SCOPED_TRACE(form);
        TempDir dir;
        const GltfBuilder b = Sample();
        std::string name = "part.gltf";
        if (std::string(form) == "glb") {
            name = "part.glb";
            dir.File(name, b.Glb());
        } else if (std::string(form) == "bin") {
            dir.File("part.bin", b.Bin());
            dir.File(name, b.Json("part.bin"));
        } else {
            dir.File(name, b.Json("inline"));
        }
        const std::string path = dir.File("s.yaml", "objects:\n  - {name: part, mesh: " + name + "}\n");
        const Scene scene = LoadScene(path);
        ExpectSample(scene);
        EXPECT_TRUE(scene.lights.empty());  // a mesh's lights and cameras are not read
        EXPECT_EQ(EvaluateScene(scene, 0).triangles.size(), 6u);
    }
}

TEST(Gltf, FileAsAScene) {
    TempDir dir;
    const std::string path = dir.File("scene.glb", Sample().Glb());
    const Scene scene = LoadScene(path);
    ExpectSample(scene);
    EXPECT_EQ(scene.objects[0].name, "scene");
    // The camera: at its node, looking down -z, yfov in degrees, the aspect ratio's width.
    ExpectNear(scene.camera.position, Vec3(0.5f, 0.5f, 8), 1e-6f);
    const Vec3 view = Normalize(scene.camera.look_at - scene.camera.position);
    ExpectNear(view, Vec3(0, 0, -1), 1e-6f);
    EXPECT_NEAR(scene.camera.fov_degrees, 0.5 * 180 / kPi, 1e-4);
    EXPECT_EQ(scene.camera.width, 900);
    EXPECT_EQ(scene.camera.height, 600);
    ASSERT_EQ(scene.lights.size(), 3u);
    const Light& bulb = scene.lights[0];
    EXPECT_EQ(bulb.name, "bulb");
    EXPECT_EQ(bulb.type, LightType::point);
    ExpectNear(bulb.position, Vec3(0, 3, 0), 1e-6f);
    EXPECT_NEAR(bulb.power, 1.0f, 1e-5f);  // 683 / (4 pi) candela: 1 W at 683 lm/W
    ExpectNear(bulb.color, Vec3(1, 0.5f, 0.25f), 0);
    const Light& spot = scene.lights[1];
    EXPECT_EQ(spot.type, LightType::spot);
    ExpectNear(spot.position, Vec3(1, 4, 1), 1e-6f);
    ExpectNear(spot.direction, Vec3(0, -1, 0), 1e-5f);
    EXPECT_NEAR(spot.inner_angle_degrees, 0.2 * 180 / kPi, 1e-4);
    EXPECT_NEAR(spot.outer_angle_degrees, 0.5 * 180 / kPi, 1e-4);
    EXPECT_NEAR(spot.power, 4 * kPi * 100 / 683, 1e-4);
    EXPECT_EQ(scene.lights[2].type, LightType::directional);
    ExpectNear(scene.lights[2].direction, Vec3(0, 0, -1), 1e-6f);
    // The same file as JSON text gives the same scene.
    const Scene text = LoadScene(dir.File("scene.gltf", Sample().Json("inline")));
    EXPECT_TRUE(text.camera == scene.camera);
    EXPECT_EQ(text.lights.size(), 3u);
    EXPECT_TRUE(text.lights[1] == scene.lights[1]);
}

TEST(Gltf, SavedSceneReloadsEqual) {
    TempDir dir;
    const Scene scene = LoadScene(dir.File("scene.glb", Sample().Glb()));
    SaveScene(scene, dir.Path("scene.edited.yaml"));
    const Scene loaded = LoadScene(dir.Path("scene.edited.yaml"));
    EXPECT_TRUE(loaded == scene) << SceneToYaml(scene, dir.Path());
    ExpectSample(loaded);
}

TEST(Gltf, AFileWithoutLightsGetsALampAndAWarning) {
    GltfBuilder b;
    b.AddMesh(b.AddFloats({0, 0, 0, 1, 0, 0, 0, 0, -1}, 3));
    b.AddNode("\"mesh\": 0");
    b.scene_roots = {0};
    TempDir dir;
    const std::string path = dir.File("bare.gltf", b.Json("inline"));
    ::testing::internal::CaptureStderr();
    const Scene scene = LoadScene(path);
    const std::string printed = ::testing::internal::GetCapturedStderr();
    ASSERT_EQ(scene.lights.size(), 1u);
    EXPECT_GT(scene.lights[0].position.y, 0.5f);
    EXPECT_NE(printed.find(path + ": warning: the file has no lights"), std::string::npos) << printed;
    // No camera: a view of the whole mesh, looking at its centre.
    ExpectNear(scene.camera.look_at, Vec3(0.5f, 0, -0.5f), 1e-6f);
    // No material and no normals: the grey default and flat normals.
    EXPECT_EQ(EvaluateScene(scene, 0).triangle_material[0], scene.default_material);
    ExpectNear(scene.objects[0].mesh->corner_normals[0], Vec3(0, 1, 0), 1e-6f);
}

// The message of loading 'json' as the mesh "part.gltf" of a scene.
std::string GltfError(const std::string& json) {
    TempDir dir;
    dir.File("part.gltf", json);
    try {
        LoadScene(dir.File("s.yaml", "objects:\n  - mesh: part.gltf\n"));
    } catch (const InputError& e) {
        const std::string message = e.what();
        const std::size_t at = message.find("part.gltf: error: ");
        return at == std::string::npos ? message : message.substr(at);
    }
    return "";
}

TEST(GltfErrors, NameTheFileAndTheJsonPath) {
    GltfBuilder b;
    const int positions = b.AddFloats({0, 0, 0, 1, 0, 0, 0, 1, 0}, 3);
    b.AddMesh(positions, b.AddIndices({0, 1, 3}));
    b.AddNode("\"mesh\": 0");
    b.scene_roots = {0};
    EXPECT_EQ(GltfError(b.Json("inline")),
              "part.gltf: error: meshes[0].primitives[0].indices: index 3 at position 2 is out of range (3 vertices)");

    GltfBuilder outside = b;
    outside.accessors[0] = "{\"bufferView\": 0, \"componentType\": 5126, \"count\": 4, \"type\": \"VEC3\"}";
    EXPECT_EQ(GltfError(outside.Json("inline")),
              "part.gltf: error: accessors[0]: 4 elements from byte 0 do not fit in bufferViews[0] (36 bytes)");

    GltfBuilder view = b;
    view.views[0] = "{\"buffer\": 0, \"byteOffset\": 40, \"byteLength\": 36}";
    EXPECT_EQ(GltfError(view.Json("inline")),
              "part.gltf: error: bufferViews[0]: bytes 40 to 76 lie outside buffer 0 (48 bytes)");

    GltfBuilder cycle = b;
    cycle.meshes[0] = "{\"primitives\": [{\"attributes\": {\"POSITION\": 0}}]}";
    cycle.nodes[0] = "{\"mesh\": 0, \"children\": [0]}";
    EXPECT_NE(GltfError(cycle.Json("inline")).find("nodes[0]: the node is reached twice"), std::string::npos);

    GltfBuilder material = b;
    material.meshes[0] = "{\"primitives\": [{\"attributes\": {\"POSITION\": 0}, \"material\": 7}]}";
    EXPECT_EQ(GltfError(material.Json("inline")),
              "part.gltf: error: meshes[0].primitives[0]: material 7 does not exist (the file has 0)");

    GltfBuilder normals = b;
    normals.meshes[0] = "{\"primitives\": [{\"attributes\": {\"POSITION\": 0, \"NORMAL\": 1}}]}";
    EXPECT_EQ(GltfError(normals.Json("inline")),
              "part.gltf: error: accessors[1]: unexpected type for meshes[0].primitives[0].attributes.NORMAL "
              "(expected VEC3)");

    EXPECT_EQ(GltfError("{\"asset\": {\"version\": \"2.0\"}}"), "part.gltf: error: the file's scene has no triangles");
    EXPECT_EQ(GltfError("{ not json").rfind("part.gltf: error: ", 0), 0u);
}

TEST(GltfErrors, TheTriangleLimitHoldsBeforeAnythingIsRead) {
    TempDir dir;
    dir.File("part.glb", Sample().Glb());
    SceneLoadOptions options;
    options.print_warnings = false;
    options.max_triangles = 5;  // the sample has 6
    try {
        LoadSceneFromString("objects:\n  - mesh: part.glb\n", dir.Path("s.yaml"), options);
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(
            std::string(e.what()).find("part.glb: error: meshes[2].primitives[0]: the file has more than 5 triangles"),
            std::string::npos)
            << e.what();
    }
}

TEST(GltfErrors, OtherFileTypesNameTheSupportedOnes) {
    TempDir dir;
    dir.File("part.ply", "ply\nformat ascii 1.0\n");
    const std::string scene = dir.File("s.yaml", "objects:\n  - mesh: part.ply\n");
    try {
        LoadScene(scene);
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()), scene + ":2:11: error: mesh file \"" + dir.Path("part.ply") +
                                             "\": unsupported type \".ply\" (supported: .obj, .gltf, .glb)");
    }
    try {
        LoadScene(dir.Path("part.ply"));
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  dir.Path("part.ply") +
                      ": error: unsupported scene file type \".ply\" (supported: .yaml, .yml, .gltf, .glb)");
    }
}

}  // namespace
}  // namespace caustica
