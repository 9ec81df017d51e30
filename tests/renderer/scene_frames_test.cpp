// A scene's frames one after another (SceneFrames): the geometry is evaluated again only when it
// was edited (moving objects are placed by a pass), and frames rendered from reused geometry are
// those of fresh evaluations.
#include <gtest/gtest.h>

#include <string>

#include "renderer/scene/scene_eval.h"
#include "tests/renderer/moving_geometry.h"
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

// Moving objects keep their triangles too: the input names the same geometry, and its placements
// put the objects where a fresh evaluation does, bit for bit, with the same bounds. A mirroring key
// (negative scale) swaps corners as the host does.
TEST(SceneFrames, MovingObjectsArePlacedAtEveryTime) {
    Scene scene = Shipped("orbit.yaml");
    ASSERT_TRUE(GeometryMoves(scene));
    for (Object& o : scene.objects)
        if (!o.animation.empty()) o.animation[1].transform.scale = Vec3(1.0f, -0.5f, 1.2f);
    SceneFrames frames(scene, {64, 36});
    const uint64_t first = frames.At(0.0).geometry_id;
    for (double t : {1.5, 5.25}) {
        const FrameInput& later = frames.At(t);
        EXPECT_EQ(later.geometry_id, first);
        const FrameInput fresh = ToFrameInput(scene, EvaluateScene(scene, t), {64, 36});
        const testing::GeneratedGeometry placed = testing::PlaceMovingGeometry(Backend::Cpu(), later);
        ASSERT_EQ(placed.triangles.size(), fresh.triangles.size());
        for (size_t i = 0; i < fresh.triangles.size(); ++i) {
            EXPECT_EQ(placed.triangles[i].v0, fresh.triangles[i].v0) << i;
            EXPECT_EQ(placed.triangles[i].v1, fresh.triangles[i].v1) << i;
            EXPECT_EQ(placed.triangles[i].v2, fresh.triangles[i].v2) << i;
            EXPECT_EQ(placed.shading[i].n1, fresh.shading[i].n1) << i;
            EXPECT_EQ(placed.shading[i].uv2.x, fresh.shading[i].uv2.x) << i;
            EXPECT_EQ(placed.shading[i].material, fresh.shading[i].material) << i;
        }
        EXPECT_EQ(later.bounds.lo, fresh.bounds.lo);
        EXPECT_EQ(later.bounds.hi, fresh.bounds.hi);
        ASSERT_EQ(later.specular.size(), fresh.specular.size());
        for (size_t i = 0; i < fresh.specular.size(); ++i) EXPECT_EQ(later.specular[i].center, fresh.specular[i].center);
        // Picking sees the placed triangles.
        const SceneFrame& picked = frames.FrameWithTriangles();
        EXPECT_EQ(picked.triangles.back().v1, fresh.triangles.back().v1);
    }
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

// orbit.yaml with its light standing still and its glass ball sliding without turning: only the
// specular bounds that the light's projection map aims at move (the scene's bounds stay).
Scene MovingGlassUnderStillLight() {
    Scene scene = Shipped("orbit.yaml");
    for (Light& l : scene.lights) {
        l.animation.clear();
        l.orbit.enabled = false;
    }
    for (Object& o : scene.objects)
        for (TransformKey& key : o.animation) key.transform.rotate = Rotation();
    return scene;
}

// The renderer keeps the triangles it uploaded for the same geometry and takes moved ones, and
// keeps the lights' projection maps while the lights and the specular bounds stand still: its
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

TEST(SceneFrames, FramesOfMovingGlassUnderAStillLightEqualFreshFrames) {
    const Scene scene = MovingGlassUnderStillLight();
    SceneFrames frames(scene, {64, 36});
    const std::vector<LightSource> lights = frames.At(0.0).lights;
    const std::vector<SpecularBound> specular = frames.input().specular;
    const Aabb bounds = frames.input().bounds;
    const FrameInput& later = frames.At(1.0);
    ASSERT_TRUE(later.lights == lights);
    ASSERT_EQ(later.bounds.lo, bounds.lo);
    ASSERT_EQ(later.bounds.hi, bounds.hi);
    ASSERT_FALSE(later.specular == specular);
    ExpectFramesEqualFreshFrames(scene);
}

// The pool's water moves while the rest stands still: evaluated once, generated every frame.
TEST(SceneFrames, FramesOfMovingWaterEqualFreshFrames) {
    const Scene scene = Shipped("pool.yaml");
    ASSERT_FALSE(GeometryMoves(scene));
    ExpectFramesEqualFreshFrames(scene);
}

}  // namespace
}  // namespace caustica
