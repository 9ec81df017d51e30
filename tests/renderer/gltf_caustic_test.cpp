// A glass sphere from a glTF file (KHR_materials_transmission with an ior) focuses light as the
// same sphere written in YAML does: the caustics alone, rendered on the CPU, agree.
#include <gtest/gtest.h>

#include "renderer/scene/scene_loader.h"
#include "renderer/scene/shapes.h"
#include "tests/renderer/image_compare.h"
#include "tests/renderer/render_still.h"
#include "tests/renderer/scene/gltf_builder.h"
#include "tests/renderer/scene/scene_test_util.h"

namespace caustica {
namespace {

const char* kStage =
    "camera: {position: [0, 2.5, 2.5], look_at: [0, 0, 0], fov: 45}\n"
    "materials:\n  floor: {type: diffuse, color: [0.8, 0.8, 0.8]}\n  glass: {type: glass, ior: 1.5}\n"
    "lights:\n  - {type: point, position: [-1.5, 2.5, 0], power: 120}\n"
    "objects:\n  - {name: floor, shape: {type: plane, size: [4, 4]}, material: floor}\n";

TEST(GltfCaustic, GlassSphereFocusesLikeTheYamlSphere) {
    Shape sphere;
    sphere.kind = Shape::Kind::sphere;
    sphere.radius = 0.4f;
    sphere.segments = 48;
    sphere.rings = 24;
    testing::GltfBuilder b;
    b.materials = {
        "{\"extensions\": {\"KHR_materials_transmission\": {\"transmissionFactor\": 1},"
        " \"KHR_materials_ior\": {\"ior\": 1.5}}}"};
    testing::AddShapeMesh(b, GenerateShape(sphere, 0), ", \"material\": 0");
    b.AddNode("\"mesh\": 0");
    b.scene_roots = {0};
    testing::TempDir dir;
    dir.File("sphere.glb", b.Glb());
    const std::string place = "    transform: {translate: [0, 0.5, 0]}\n";
    const Scene yaml = LoadScene(
        dir.File("yaml.yaml", std::string(kStage) +
                                  "  - name: ball\n    shape: {type: sphere, radius: 0.4, segments: 48, rings: 24}\n"
                                  "    material: glass\n" +
                                  place));
    const Scene gltf =
        LoadScene(dir.File("gltf.yaml", std::string(kStage) + "  - name: ball\n    mesh: sphere.glb\n" + place));
    ASSERT_EQ(gltf.objects[1].mesh->TriangleCount(), yaml.objects[1].mesh->TriangleCount());

    RenderOptions options = testing::SmallFrame(40000, 96, 72);
    options.view = "caustics";
    const Image a = testing::RenderStill(Backend::Cpu(), yaml, options, 2)->CurrentImage();
    const Image c = testing::RenderStill(Backend::Cpu(), gltf, options, 2)->CurrentImage();
    const testing::ImageDifference d = testing::Compare(a, c);
    EXPECT_GT(d.mean_luminance, 1e-3) << "no caustic at all";
    EXPECT_TRUE(testing::CloseImages(a, c));
}

}  // namespace
}  // namespace caustica
