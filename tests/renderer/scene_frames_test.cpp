// A scene's frames one after another (SceneFrames): the geometry is evaluated again only when it
// moves or was edited, and frames rendered from reused geometry are those of fresh evaluations.
#include <gtest/gtest.h>

#include <string>

#include "renderer/scene/scene_eval.h"
#include "tests/renderer/render_still.h"

namespace caustica {
namespace {

Scene Shipped(const std::string& file) { return LoadScene(std::string(CAUSTICA_SOURCE_DIR) + "/scenes/" + file); }

// orbit.yaml with its objects standing still: only its light orbits.
Scene StillObjectsOrbitingLight() {
    Scene scene = Shipped("orbit.yaml");
    for (Object& o : scene.objects) {
        o.animation.clear();
        o.orbit.enabled = false;
    }
    return scene;
}

void ExpectSameInput(const FrameInput& a, const FrameInput& b) {
    ASSERT_EQ(a.triangles.size(), b.triangles.size());
    for (size_t t = 0; t < a.triangles.size(); ++t) {
        EXPECT_EQ(a.triangles[t].v0, b.triangles[t].v0);
        EXPECT_EQ(a.triangles[t].v2, b.triangles[t].v2);
    }
    ASSERT_EQ(a.lights.size(), b.lights.size());
    for (size_t l = 0; l < a.lights.size(); ++l) EXPECT_EQ(a.lights[l].position, b.lights[l].position);
    EXPECT_EQ(a.camera.origin, b.camera.origin);
    EXPECT_EQ(a.specular.size(), b.specular.size());
}

TEST(SceneFrames, StillObjectsKeepTheirGeometryWhileTheLightMoves) {
    const Scene scene = StillObjectsOrbitingLight();
    ASSERT_FALSE(GeometryMoves(scene));
    SceneFrames frames(scene, {64, 36});
    const uint64_t first = frames.At(0.0).geometry_id;
    const Vec3 light_before = frames.input().lights[0].position;
    const FrameInput& later = frames.At(2.0);
    EXPECT_EQ(later.geometry_id, first);
    EXPECT_NE(later.lights[0].position, light_before);
    ExpectSameInput(later, ToFrameInput(scene, EvaluateScene(scene, 2.0), {64, 36}));
}

TEST(SceneFrames, MovingObjectsAreEvaluatedAtEveryTime) {
    const Scene scene = Shipped("orbit.yaml");
    ASSERT_TRUE(GeometryMoves(scene));
    SceneFrames frames(scene, {64, 36});
    const uint64_t first = frames.At(0.0).geometry_id;
    const FrameInput& later = frames.At(1.5);
    EXPECT_NE(later.geometry_id, first);
    ExpectSameInput(later, ToFrameInput(scene, EvaluateScene(scene, 1.5), {64, 36}));
}

TEST(SceneFrames, AnEditedObjectIsEvaluatedAgain) {
    Scene scene = StillObjectsOrbitingLight();
    SceneFrames frames(scene, {64, 36});
    const uint64_t first = frames.At(0.0).geometry_id;
    scene.objects.back().transform.translate += Vec3(0.5f, 0, 0);
    frames.GeometryChanged();
    const FrameInput& edited = frames.At(0.0);
    EXPECT_NE(edited.geometry_id, first);
    ExpectSameInput(edited, ToFrameInput(scene, EvaluateScene(scene, 0.0), {64, 36}));
}

// The renderer keeps the triangles it uploaded for the same geometry and takes moved ones: its
// frames equal those of a renderer given each frame fresh.
void ExpectFramesEqualFreshFrames(const Scene& scene) {
    const Backend backend = Backend::Cpu();
    const RenderOptions options = testing::SmallFrame(20000, 64, 36);
    const RenderSettings settings = MakeRenderSettings(scene, options, backend);
    FrameRenderer kept(backend);
    kept.SetMaterials(ToSceneMaterials(scene));
    SceneFrames frames(scene, MakeImageSize(options));
    for (double t : {0.0, 1.0, 2.5}) {
        kept.Prepare(frames.At(t), settings);
        kept.AddSample();
        FrameRenderer fresh(backend);
        PrepareFrame(fresh, scene, options, backend, t);
        fresh.AddSample();
        EXPECT_EQ(kept.CurrentImage().pixels, fresh.CurrentImage().pixels) << "time " << t;
    }
}

TEST(SceneFrames, FramesFromKeptGeometryEqualFreshFrames) { ExpectFramesEqualFreshFrames(StillObjectsOrbitingLight()); }

TEST(SceneFrames, FramesOfMovingGeometryEqualFreshFrames) { ExpectFramesEqualFreshFrames(Shipped("orbit.yaml")); }

// The pool's water moves while the rest stands still: evaluated once, generated every frame.
TEST(SceneFrames, FramesOfMovingWaterEqualFreshFrames) {
    const Scene scene = Shipped("pool.yaml");
    ASSERT_FALSE(GeometryMoves(scene));
    ExpectFramesEqualFreshFrames(scene);
}

}  // namespace
}  // namespace caustica
