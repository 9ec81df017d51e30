// Scene evaluation: transforms, keyframe interpolation, lights, camera, materials per triangle.
#include <gtest/gtest.h>

#include <cmath>

#include "renderer/scene/scene_eval.h"
#include "renderer/scene/scene_loader.h"
#include "renderer/scene/transform.h"
#include "tests/renderer/scene/scene_test_util.h"

namespace caustica {
namespace {

using testing::ExpectNear;

TEST(Transform, ScaleRotateTranslate) {
    Transform t;
    t.translate = Vec3(1, 2, 3);
    t.scale = Vec3(2, 2, 2);
    t.rotate.euler_degrees = Vec3(0, 90, 0);  // +x turns to -z
    const Affine m = ToAffine(t);
    ExpectNear(m.Point(Vec3(1, 0, 0)), Vec3(1, 2, 1), 1e-6f);
    ExpectNear(ToPlacement(m).Normal(Vec3(1, 0, 0)), Vec3(0, 0, -1), 1e-6f);
    // Euler order: x first, then y, then z.
    Transform xy;
    xy.rotate.euler_degrees = Vec3(90, 90, 0);
    ExpectNear(ToAffine(xy).Direction(Vec3(0, 1, 0)), Vec3(1, 0, 0), 1e-6f);  // y -> z (by x) -> x (by y)
    // Axis-angle agrees with the Euler form.
    Transform axis;
    axis.rotate.kind = Rotation::Kind::axis_angle;
    axis.rotate.axis = Vec3(0, 1, 0);
    axis.rotate.angle_degrees = 90;
    ExpectNear(ToAffine(axis).Direction(Vec3(1, 0, 0)), Vec3(0, 0, -1), 1e-6f);
    // Normals under non-uniform scale stay perpendicular to the surface.
    Transform squash;
    squash.scale = Vec3(1, 4, 1);
    const Affine s = ToAffine(squash);
    const Vec3 tangent = s.Direction(Normalize(Vec3(1, -1, 0)));
    EXPECT_NEAR(Dot(ToPlacement(s).Normal(Normalize(Vec3(1, 1, 0))), tangent), 0.0f, 1e-6f);
}

TEST(Transform, KeySpans) {
    std::vector<Vec3Key> keys = {{0, {}}, {1, {}}, {3, {}}};
    auto span = FindKeySpan(keys, -1);
    EXPECT_EQ(span.first, 0);
    EXPECT_EQ(span.second, 0);
    span = FindKeySpan(keys, 2);
    EXPECT_EQ(span.first, 1);
    EXPECT_EQ(span.second, 2);
    EXPECT_FLOAT_EQ(span.t, 0.5f);
    span = FindKeySpan(keys, 1);
    EXPECT_EQ(span.first, 1);
    EXPECT_FLOAT_EQ(span.t, 0.0f);
    span = FindKeySpan(keys, 7);
    EXPECT_EQ(span.first, 2);
    EXPECT_EQ(span.second, 2);
}

TEST(Transform, InterpolationSpinsByWholeTurnsAndMixesForms) {
    Transform a, b;
    b.rotate.euler_degrees = Vec3(0, 720, 0);
    EXPECT_FLOAT_EQ(Interpolate(a, b, 0.25f).rotate.euler_degrees.y, 180.0f);
    Transform c;
    c.rotate.kind = Rotation::Kind::axis_angle;
    c.rotate.axis = Vec3(0, 1, 0);
    c.rotate.angle_degrees = 90;
    // Mixed forms: the shortest rotation between them (slerp), here 45 degrees about y.
    // Both about one axis: the angle moves linearly, past half a turn too.
    Transform d = c;
    d.rotate.angle_degrees = 450;
    EXPECT_FLOAT_EQ(Interpolate(c, d, 0.5f).rotate.angle_degrees, 270.0f);
    EXPECT_EQ(Interpolate(c, d, 0.5f).rotate.axis, Vec3(0, 1, 0));
    const Transform mid = Interpolate(a, c, 0.5f);
    ExpectNear(ToAffine(mid).Direction(Vec3(1, 0, 0)), Vec3(std::sqrt(0.5f), 0, -std::sqrt(0.5f)), 1e-5f);
}

const char* kAnimated = R"(
materials:
  chrome: {type: mirror}
  glass: {type: glass}
camera:
  position: [0, 1, 5]
  animation:
    - {time: 0, position: [0, 1, 5], look_at: [0, 0, 0]}
    - {time: 2, position: [0, 3, 5], look_at: [1, 0, 0]}
lights:
  - type: point
    position: [0, 4, 0]
    animation:
      - {time: 1, position: [0, 4, 0]}
      - {time: 3, position: [4, 4, 0]}
  - {type: spot, position: [0, 2, 0], look_at: [0, 0, 0], inner_angle: 10, outer_angle: 20}
  - {type: directional, direction: [0, -2, 0], power: 5}
objects:
  - name: floor
    shape: {type: plane, size: [10, 10]}
  - name: cube
    shape: {type: box, size: [1, 1, 1]}
    material: chrome
    animation:
      - {time: 0, translate: [0, 0, 0]}
      - {time: 2, translate: [2, 0, 0], scale: 3}
  - name: ball
    shape: {type: sphere, radius: 1, segments: 16, rings: 8}
    material: glass
    transform: {translate: [0, 5, 0], scale: [-1, 1, 1]}
)";

// A camera that passes over its look_at: at the middle it looks straight down, along up. The image
// keeps the right-hand direction it had on the way there, where the frames before had it.
TEST(SceneEval, ACameraLookingAlongUpKeepsItsRightHandDirection) {
    const Scene scene = LoadSceneFromString(
        "camera:\n  look_at: [0, 0, 0]\n  animation:\n    - {time: 0, position: [-1, 5, 0]}\n"
        "    - {time: 2, position: [1, 5, 0]}\n",
        "overhead.yaml");
    const auto right_at = [&](double time) {
        const SceneCamera c = EvaluateScene(scene, time).camera;
        const Vec3 right = Cross(Normalize(c.look_at - c.position), c.up);
        EXPECT_GT(LengthSquared(right), 0.0f) << "time " << time;  // up is not along the view
        return Normalize(right);
    };
    const Vec3 overhead = right_at(1.0);
    ExpectNear(overhead, right_at(0.0), 1e-6f);
    ExpectNear(overhead, right_at(0.999), 1e-5f);
    EXPECT_TRUE(IsFinite(overhead));
    // Elsewhere the camera's up is the scene's.
    ExpectNear(EvaluateScene(scene, 0.5).camera.up, Vec3(0, 1, 0), 0);
}

TEST(SceneEval, KeyframesAtAndBetween) {
    const Scene scene = LoadSceneFromString(kAnimated, "anim.yaml");
    EXPECT_EQ(AnimationLength(scene), 3.0);
    // The cube's keys: at 0, at 1 (half way) and after the last (held).
    struct Case { double time; Vec3 centre; float size; };
    for (const Case& c : {Case{0, {0, 0, 0}, 1}, Case{1, {1, 0, 0}, 2}, Case{2, {2, 0, 0}, 3}, Case{5, {2, 0, 0}, 3}, Case{-1, {0, 0, 0}, 1}}) {
        const SceneFrame frame = EvaluateScene(scene, c.time);
        const Aabb box = frame.object_bounds[1];
        ExpectNear(box.Center(), c.centre, 1e-5f);
        EXPECT_NEAR(box.Extent().x, c.size, 1e-5f) << "time " << c.time;
    }
    // Camera between keys; light before its first key, half way, at the end.
    const SceneFrame f1 = EvaluateScene(scene, 1);
    ExpectNear(f1.camera.position, Vec3(0, 2, 5), 1e-6f);
    ExpectNear(f1.camera.look_at, Vec3(0.5f, 0, 0), 1e-6f);
    ExpectNear(EvaluateScene(scene, 0).lights[0].position, Vec3(0, 4, 0), 0);
    ExpectNear(EvaluateScene(scene, 2).lights[0].position, Vec3(2, 4, 0), 1e-6f);
    ExpectNear(EvaluateScene(scene, 3).lights[0].position, Vec3(4, 4, 0), 0);
    // Spot aimed at a point; directional normalized.
    ExpectNear(f1.lights[1].direction, Vec3(0, -1, 0), 1e-6f);
    EXPECT_NEAR(f1.lights[1].cos_inner, std::cos(10 * 3.14159265 / 180), 1e-6);
    ExpectNear(f1.lights[2].direction, Vec3(0, -1, 0), 0);
}

TEST(SceneEval, MaterialsObjectsAndWinding) {
    const Scene scene = LoadSceneFromString(kAnimated, "anim.yaml");
    const SceneFrame frame = EvaluateScene(scene, 0);
    ASSERT_EQ(frame.triangles.size(), 2u + 12u + 2u * 16 * 7);
    ASSERT_EQ(frame.triangle_material.size(), frame.triangles.size());
    ASSERT_EQ(frame.triangle_object.size(), frame.triangles.size());
    ASSERT_EQ(frame.corner_normals.size(), 3 * frame.triangles.size());
    ASSERT_EQ(frame.corner_uvs.size(), 3 * frame.triangles.size());
    EXPECT_EQ(frame.triangle_material[0], scene.default_material);
    EXPECT_EQ(frame.triangle_material[2], 0);
    EXPECT_EQ(frame.triangle_object[2], 1);
    EXPECT_EQ(frame.triangle_material.back(), 1);
    // The mirrored ball (scale -1 in x) still has outward triangles and normals.
    for (std::size_t t = 14; t < frame.triangles.size(); ++t) {
        const Triangle& tri = frame.triangles[t];
        const Vec3 face = Cross(tri.v1 - tri.v0, tri.v2 - tri.v0);
        const Vec3 outward = (tri.v0 + tri.v1 + tri.v2) / 3.0f - Vec3(0, 5, 0);
        ASSERT_GT(Dot(face, outward), 0.0f) << "triangle " << t;
        ASSERT_GT(Dot(frame.corner_normals[3 * t], outward), 0.0f) << "triangle " << t;
    }
    const std::vector<SpecularObject> specular = SpecularObjects(scene, frame);
    ASSERT_EQ(specular.size(), 2u);
    EXPECT_EQ(specular[0].object, 1);
    EXPECT_TRUE(specular[0].has_mirror);
    EXPECT_EQ(specular[1].object, 2);
    EXPECT_TRUE(specular[1].has_glass);
    ExpectNear(specular[1].bounds.Center(), Vec3(0, 5, 0), 1e-5f);
    EXPECT_TRUE(frame.bounds.Contains(specular[1].bounds.lo));
}

TEST(SceneEval, ReusedFrameEqualsFreshOne) {
    const Scene scene = LoadSceneFromString(kAnimated, "anim.yaml");
    SceneFrame reused;
    for (double t : {0.0, 1.5, 0.25}) {
        EvaluateScene(scene, t, &reused);
        const SceneFrame fresh = EvaluateScene(scene, t);
        ASSERT_EQ(reused.triangles.size(), fresh.triangles.size());
        for (std::size_t i = 0; i < fresh.triangles.size(); ++i) ASSERT_EQ(reused.triangles[i].v0, fresh.triangles[i].v0);
        EXPECT_EQ(reused.corner_normals.size(), fresh.corner_normals.size());
        EXPECT_EQ(reused.lights.size(), fresh.lights.size());
        EXPECT_EQ(reused.bounds.lo, fresh.bounds.lo);
        EXPECT_EQ(reused.object_bounds[1].hi, fresh.object_bounds[1].hi);
        EXPECT_EQ(reused.camera.position, fresh.camera.position);
    }
}

TEST(SceneEval, AreaLightsFaceTheirTurnedMinusY) {
    const Scene scene = LoadSceneFromString(R"(
lights:
  - {type: rect, position: [1, 2, 3], width: 0.5, height: 0.25, power: 10}
  - {type: disc, position: [0, 1, 0], radius: 0.3, rotate: [0, 0, 90]}
  - {type: sphere, position: [0, 3, 0], radius: 0.2, animation: [{time: 0, position: [0, 3, 0]}, {time: 2, position: [2, 3, 0]}]}
)",
                                            "s.yaml");
    const SceneFrame frame = EvaluateScene(scene, 1.0);
    ASSERT_EQ(frame.lights.size(), 3u);
    const SceneLight& rect = frame.lights[0];
    EXPECT_EQ(rect.type, LightType::rect);
    ExpectNear(rect.direction, Vec3(0, -1, 0), 1e-6f);
    ExpectNear(rect.u_axis, Vec3(1, 0, 0), 1e-6f);
    ExpectNear(rect.v_axis, Vec3(0, 0, 1), 1e-6f);
    EXPECT_EQ(rect.width, 0.5f);
    EXPECT_EQ(rect.height, 0.25f);
    const SceneLight& disc = frame.lights[1];
    ExpectNear(disc.direction, Vec3(1, 0, 0), 1e-6f);  // -y turned a quarter about z
    ExpectNear(disc.u_axis, Vec3(0, 1, 0), 1e-6f);
    EXPECT_EQ(disc.radius, 0.3f);
    ExpectNear(frame.lights[2].position, Vec3(1, 3, 0), 1e-6f);  // halfway along its keys
}

TEST(SceneEval, DurationSettingOverridesKeyframes) {
    Scene scene = LoadSceneFromString(kAnimated, "anim.yaml");
    scene.settings.duration = 12.5;
    EXPECT_EQ(AnimationLength(scene), 12.5);
    const Scene still = LoadSceneFromString("objects:\n  - shape: {type: box}\n", "still.yaml");
    EXPECT_EQ(AnimationLength(still), 0.0);
}

TEST(SceneEval, WaterIsRegeneratedPerFrame) {
    const Scene scene = LoadScene(testing::SourcePath("scenes/pool.yaml"));
    const SceneFrame a = EvaluateScene(scene, 0), b = EvaluateScene(scene, 0.5);
    ASSERT_EQ(a.triangles.size(), b.triangles.size());
    const std::size_t water = a.triangles.size() - 1;
    EXPECT_NE(a.triangles[water].v0.y, b.triangles[water].v0.y);
    EXPECT_EQ(a.triangles[0].v0, b.triangles[0].v0);  // the floor stays
    EXPECT_EQ(AnimationLength(scene), 10.0);
}

}  // namespace
}  // namespace caustica
