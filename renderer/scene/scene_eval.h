// A scene at one moment: world-space triangles with their materials, shading normals and texture
// coordinates, and the camera and lights at that time, ready to upload to the GPU.
#pragma once

#include <vector>

#include "core/vec.h"
#include "kdtree/triangle/triangle.h"
#include "renderer/scene/scene.h"
#include "renderer/scene/transform.h"

namespace caustica {

struct SceneLight {
    LightType type = LightType::point;
    Vec3 position;   // point and spot; the area lights' centre
    Vec3 direction;  // spot and directional: unit length, the way the light travels; rect and disc:
                     // the way they face
    Vec3 u_axis, v_axis;  // rect and disc: unit axes of their plane (rect: width along u_axis)
    float width = 0, height = 0, radius = 0;  // rect; disc and sphere
    float cos_inner = 1, cos_outer = 1;  // spot cone: cosines of the half-angles
    Rgb color{1, 1, 1};
    float power = 0;  // watts
};

struct SceneCamera {
    // up: the scene's (unit length), or where an animated view passes through it, one that keeps
    // the image's right-hand direction from the keyframe before.
    Vec3 position, look_at, up;
    float fov_degrees = 45;
    int width = 0, height = 0;
    float aperture = 0;        // lens diameter (0: a pinhole)
    float focus_distance = 1;  // the scene's, or the distance to look_at at this time
};

struct SceneFrame {
    double time = 0;
    std::vector<Triangle> triangles;
    std::vector<int> triangle_material;  // index into Scene::materials
    std::vector<int> triangle_object;    // index into Scene::objects
    std::vector<Vec3> corner_normals;    // three per triangle, world space, unit length
    std::vector<Vec2> corner_uvs;        // three per triangle
    std::vector<Aabb> object_bounds;     // per object, world space
    std::vector<Aabb> object_reach;      // per object: ObjectReach where it moves or its waves do
    std::vector<std::size_t> object_first;  // object i's triangles: [object_first[i], object_first[i + 1])
    Aabb bounds;                         // all triangles
    SceneCamera camera;
    std::vector<SceneLight> lights;
};

// The scene at 'time_seconds' (clamped to the keyframes at either end).
SceneFrame EvaluateScene(const Scene& scene, double time_seconds);

// The same into an existing frame, reusing its arrays' memory (for a per-frame loop).
void EvaluateScene(const Scene& scene, double time_seconds, SceneFrame* frame);

// Only the camera and the lights at that time, and the frame's time; its geometry stays as it is
// (for a scene whose geometry does not move).
void EvaluateCameraAndLights(const Scene& scene, double time_seconds, SceneFrame* frame);

// Whether an object moves as a whole (keyframes, an orbit).
bool Moves(const Object& object);
// Whether any object does. Either way the per-frame loops (SceneFrames) evaluate the triangles
// once: the frame renderer places moving objects (shaders_cuda/moving_object_pass.h) and
// generates height fields with moving waves (shaders_cuda/heightfield_pass.h) at each frame's time.
bool GeometryMoves(const Scene& scene);

// An object-space box that holds the object at every time: its mesh's, or a height field's reach
// (HeightfieldReach). A moving object's world bounds are this box transformed (TransformedBox), so
// that they do not depend on where its triangles were placed.
Aabb ObjectReach(const Object& object);
// The bounds of a box's eight corners, transformed.
Aabb TransformedBox(const Aabb& box, const Affine& m);

// The object's transform at a time (its keyframes, its orbit, or its fixed transform).
Transform ObjectTransformAt(const Object& object, double time_seconds);

// Animation length in seconds: settings.duration when set, else the last keyframe time or the
// longest orbit's period (0 for a still scene; an animated height field alone counts as 10 s of
// animation).
double AnimationLength(const Scene& scene);

// Objects with mirror or glass triangles, with the world bounds of those triangles (of the whole
// object where it moves: its triangles may be placed on the device only), for photon emission
// toward specular objects.
struct SpecularObject {
    int object = 0;
    bool has_mirror = false, has_glass = false;
    Aabb bounds;
};
std::vector<SpecularObject> SpecularObjects(const Scene& scene, const SceneFrame& frame);

}  // namespace caustica
