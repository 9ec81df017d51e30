// Orbits and smooth keyframes: where they put lights and objects, their errors, and saving them.
#include <gtest/gtest.h>

#include <cmath>

#include "renderer/scene/scene_eval.h"
#include "renderer/scene/scene_loader.h"
#include "renderer/scene/scene_save.h"
#include "renderer/scene/transform.h"
#include "tests/renderer/scene/scene_test_util.h"

namespace caustica {
namespace {

using testing::ExpectNear;
using testing::SaveScene;

Scene Load(const std::string& yaml) { return LoadSceneFromString(yaml, "anim.yaml"); }

TEST(Orbit, TurnsTheLightOnACircle) {
    const Scene scene = Load(
        "lights:\n  - {position: [3, 2, 0], animation: {orbit: {center: [1, 2, 0], axis: [0, 1, 0], period: 4}}}\n");
    ASSERT_TRUE(scene.lights[0].orbit.enabled);
    EXPECT_EQ(AnimationLength(scene), 4.0);
    ExpectNear(EvaluateScene(scene, 0).lights[0].position, Vec3(3, 2, 0), 1e-6f);
    // A quarter turn about +y, counter-clockwise seen from above: +x goes to -z.
    ExpectNear(EvaluateScene(scene, 1).lights[0].position, Vec3(1, 2, -2), 1e-5f);
    ExpectNear(EvaluateScene(scene, 2).lights[0].position, Vec3(-1, 2, 0), 1e-5f);
    ExpectNear(EvaluateScene(scene, 4).lights[0].position, Vec3(3, 2, 0), 1e-5f);
    // Every time lies on the circle: radius 2 about the centre, in the plane y = 2.
    for (double t = 0; t < 40; t += 0.37) {
        const Vec3 p = EvaluateScene(scene, t).lights[0].position;
        EXPECT_NEAR(Length(p - Vec3(1, 2, 0)), 2.0f, 1e-5f) << t;
        EXPECT_NEAR(p.y, 2.0f, 1e-6f) << t;
    }
}

TEST(Orbit, MovesAnObjectsTranslationOnly) {
    const Scene scene = Load(
        "objects:\n  - shape: {type: box}\n    transform: {translate: [0, 0, 2], rotate: [0, 30, 0]}\n"
        "    animation: {orbit: {axis: [0, 0, 1], period: 2}}\n");
    const Transform t = ObjectTransformAt(scene.objects[0], 0.5);  // a quarter turn about +z
    ExpectNear(t.translate, Vec3(0, 0, 2), 1e-6f);                  // on the axis: stays
    EXPECT_EQ(t.rotate.euler_degrees, Vec3(0, 30, 0));
    Object moved = scene.objects[0];
    moved.transform.translate = Vec3(1, 0, 0);
    ExpectNear(ObjectTransformAt(moved, 0.5).translate, Vec3(0, 1, 0), 1e-6f);
}

TEST(Orbit, TheOrbitSceneCirclesAsItsKeysDid) {
    // scenes/orbit.yaml had 16 keys on a circle of radius 2.2 at height 2, one turn in 8 s,
    // starting at +x and going toward +z: the orbit passes through every one of them.
    const Scene scene = LoadScene(testing::SourcePath("scenes/orbit.yaml"));
    EXPECT_EQ(AnimationLength(scene), 8.0);
    for (int i = 0; i <= 16; ++i) {
        const float angle = 2.0f * 3.14159265f * float(i) / 16.0f;
        ExpectNear(EvaluateScene(scene, 0.5 * i).lights[0].position,
                   Vec3(2.2f * std::cos(angle), 2.0f, 2.2f * std::sin(angle)), 1e-4f);
    }
}

const char* kSmooth =
    "lights:\n  - position: [0, 1, 0]\n    animation:\n      interpolation: smooth\n      keys:\n"
    "        - {time: 0, position: [0, 1, 0]}\n        - {time: 1, position: [1, 1, 0]}\n"
    "        - {time: 3, position: [1, 1, 2]}\n        - {time: 4, position: [0, 1, 2]}\n";

TEST(SmoothKeys, PassThroughEveryKeyWithContinuousVelocity) {
    const Scene scene = Load(kSmooth);
    EXPECT_EQ(scene.lights[0].interpolation, Interpolation::smooth);
    const auto at = [&](double t) { return EvaluateScene(scene, t).lights[0].position; };
    for (const Vec3Key& k : scene.lights[0].animation) ExpectNear(at(k.time), k.value, 1e-6f);
    const double h = 1e-3;
    // At rest at the first and last key.
    ExpectNear((at(h) - at(0)) / float(h), Vec3(0.0f), 1e-2f);
    ExpectNear((at(4) - at(4 - h)) / float(h), Vec3(0.0f), 1e-2f);
    // At an inner key the velocity is the slope between its neighbours (Catmull-Rom), from both
    // sides: ([1, 1, 2] - [0, 1, 0]) / 3.
    const Vec3 expected(1.0f / 3, 0, 2.0f / 3);
    ExpectNear((at(1 + h) - at(1)) / float(h), expected, 1e-2f);
    ExpectNear((at(1) - at(1 - h)) / float(h), expected, 1e-2f);
    // It differs from straight lines between the keys.
    EXPECT_GT(Length(at(2) - Vec3(1, 1, 1)), 0.05f);
}

TEST(SmoothKeys, TurnRotationsWrittenInOneForm) {
    const Scene scene = Load(
        "objects:\n  - shape: {type: box}\n    animation:\n      interpolation: smooth\n      keys:\n"
        "        - {time: 0, rotate: [0, 0, 0], scale: 1}\n        - {time: 1, rotate: [0, 90, 0], scale: 2}\n"
        "        - {time: 2, rotate: [0, 360, 0], scale: 2}\n");
    const Object& o = scene.objects[0];
    EXPECT_EQ(ObjectTransformAt(o, 1).rotate.euler_degrees, Vec3(0, 90, 0));
    EXPECT_EQ(ObjectTransformAt(o, 2).rotate.euler_degrees, Vec3(0, 360, 0));
    // Velocity at key 1: 360 degrees over 2 s, so the angle just after it grows at 180 per second.
    const double h = 1e-3;
    EXPECT_NEAR((ObjectTransformAt(o, 1 + h).rotate.euler_degrees.y - 90) / h, 180, 0.5);
    EXPECT_NEAR((ObjectTransformAt(o, h).scale.x - 1) / h, 0, 0.01);
}

TEST(SmoothKeys, LinearIsTheDefaultAndUnchanged) {
    const Scene scene = Load(
        "lights:\n  - animation: [{time: 0, position: [0, 1, 0]}, {time: 2, position: [2, 1, 0]},"
        " {time: 4, position: [2, 1, 2]}]\n");
    EXPECT_EQ(scene.lights[0].interpolation, Interpolation::linear);
    ExpectNear(EvaluateScene(scene, 1).lights[0].position, Vec3(1, 1, 0), 0);
    ExpectNear(EvaluateScene(scene, 3).lights[0].position, Vec3(2, 1, 1), 0);
}

TEST(AnimationErrors, AreLocated) {
    EXPECT_SCENE_ERROR("lights:\n  - animation: {orbit: {center: [0, 1, 0]}}\n", "bad.yaml:2:24",
                       "needs a period (seconds per turn)");
    EXPECT_SCENE_ERROR("lights:\n  - animation: {orbit: {period: 2, axis: [0, 0, 0]}}\n", "bad.yaml:2:42",
                       "axis must not be the zero vector");
    EXPECT_SCENE_ERROR("lights:\n  - animation: {orbit: {period: 0}}\n", "bad.yaml:2:33", "period in [0.001");
    EXPECT_SCENE_ERROR("lights:\n  - animation: {orbit: {period: 1}, keys: [{time: 0}]}\n", "bad.yaml:2:16",
                       "either keys or an orbit");
    EXPECT_SCENE_ERROR("objects:\n  - shape: {type: box}\n    animation: {interpolation: smoth, keys: [{time: 0}]}\n",
                       "bad.yaml:3:32", "unknown object animation interpolation \"smoth\" (did you mean \"smooth\"?)");
    EXPECT_SCENE_ERROR("lights:\n  - animation: {orbit: {period: 1}, interpolation: smooth}\n", "bad.yaml:2:52",
                       "an orbit has no interpolation");
    EXPECT_SCENE_ERROR("lights:\n  - animation: {orbit: {period: 1, radius: 2}}\n", "bad.yaml:2:36",
                       "unknown key \"radius\"");
    EXPECT_SCENE_ERROR("lights:\n  - animation: 3\n", "bad.yaml:2:16", "a list of keyframes");
}

TEST(AnimationSaving, OrbitsAndSmoothKeysReloadEqual) {
    const Scene scene = Load(std::string(kSmooth) +
                             "objects:\n  - shape: {type: sphere}\n    transform: {translate: [1, 0, 0]}\n"
                             "    animation: {orbit: {center: [0, 0, 0.5], axis: [0, 1, 1], period: 3.5}}\n");
    testing::TempDir dir;
    SaveScene(scene, dir.Path("saved.yaml"));
    const Scene loaded = LoadScene(dir.Path("saved.yaml"));
    EXPECT_TRUE(loaded == scene) << SceneToYaml(scene, dir.Path());
    EXPECT_EQ(loaded.lights[0].interpolation, Interpolation::smooth);
    EXPECT_TRUE(loaded.objects[0].orbit == scene.objects[0].orbit);
    EXPECT_EQ(loaded.objects[0].orbit.period, 3.5);
}

}  // namespace
}  // namespace caustica
