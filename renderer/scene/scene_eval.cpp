#include "renderer/scene/scene_eval.h"

#include <algorithm>
#include <cmath>

#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>

#include "core/error.h"
#include "renderer/scene/shapes.h"
#include "renderer/scene/transform.h"

namespace caustica {
namespace {

constexpr float kRadiansPerDegree = 3.14159265358979323846f / 180.0f;
constexpr double kDefaultLoopSeconds = 10;  // for scenes whose only motion is water

// A camera's keyed vector (camera keys are linear), or its fixed value.
Vec3 CameraAt(const Camera& c, double time, Vec3 fallback, Vec3 CameraKey::*field) {
    if (c.animation.empty()) return fallback;
    return SampleKeys(c.animation, FindKeySpan(c.animation, time), Interpolation::linear,
                      [field](const CameraKey& k) { return k.*field; });
}

Vec3 LightPositionAt(const Light& light, double time) {
    if (!light.animation.empty())
        return SampleKeys(light.animation, FindKeySpan(light.animation, time), light.interpolation,
                          [](const Vec3Key& k) { return k.value; });
    return light.orbit.enabled ? OrbitPosition(light.orbit, light.position, time) : light.position;
}

SceneLight LightAt(const Light& light, double time) {
    SceneLight out;
    out.type = light.type;
    out.position = LightPositionAt(light, time);
    out.direction = light.direction;
    if (light.aimed) {
        const Vec3 d = light.target - out.position;
        if (LengthSquared(d) > 0) out.direction = Normalize(d);
    }
    if (light.type == LightType::rect || light.type == LightType::disc) {
        Transform turn;
        turn.rotate = light.rotate;
        const Affine m = ToAffine(turn);
        out.direction = Normalize(m.Direction(Vec3(0, -1, 0)));
        out.u_axis = Normalize(m.Direction(Vec3(1, 0, 0)));
        out.v_axis = Normalize(m.Direction(Vec3(0, 0, 1)));
    }
    out.width = light.width;
    out.height = light.height;
    out.radius = light.radius;
    out.cos_inner = std::cos(light.inner_angle_degrees * kRadiansPerDegree);
    out.cos_outer = std::cos(light.outer_angle_degrees * kRadiansPerDegree);
    out.color = light.color;
    out.power = light.power;
    return out;
}

// The camera's up direction at a time. Where an animated camera's view passes through the up
// direction (between two keyframes that are not), the up direction cannot orient the image: the
// camera keeps the right-hand direction of the keyframe before, as it had just before that moment.
Vec3 CameraUpAt(const Camera& camera, double time, Vec3 view) {
    const Vec3 up = Normalize(camera.up);
    if (camera.animation.empty() || !ViewAlongUp(view, up)) return up;
    const CameraKey& key = camera.animation[FindKeySpan(camera.animation, time).first];
    const Vec3 right = Normalize(Cross(Normalize(key.look_at - key.position), up));
    return Cross(right, Normalize(view));
}

}  // namespace

Aabb TransformedBox(const Aabb& box, const Affine& m) {
    Aabb out;
    for (int corner = 0; corner < 8; ++corner)
        out.Extend(m.Point(Vec3(corner & 1 ? box.hi.x : box.lo.x, corner & 2 ? box.hi.y : box.lo.y,
                                corner & 4 ? box.hi.z : box.lo.z)));
    return out;
}

bool Moves(const Object& object) { return !object.animation.empty() || object.orbit.enabled; }

Aabb ObjectReach(const Object& object) {
    if (object.animated_shape) return HeightfieldReach(object.shape);
    Aabb box;
    for (const Vec3& p : object.mesh->positions) box.Extend(p);
    return box;
}

Transform ObjectTransformAt(const Object& object, double time_seconds) {
    if (!object.animation.empty()) return SampleTransform(object.animation, time_seconds, object.interpolation);
    Transform t = object.transform;
    if (object.orbit.enabled) t.translate = OrbitPosition(object.orbit, t.translate, time_seconds);
    return t;
}

void EvaluateCameraAndLights(const Scene& scene, double time_seconds, SceneFrame* out) {
    CA_CHECK_MSG(std::isfinite(time_seconds), "time ", time_seconds);
    SceneFrame& frame = *out;
    frame.lights.clear();
    frame.time = time_seconds;
    const Camera& c = scene.camera;
    frame.camera.position = CameraAt(c, time_seconds, c.position, &CameraKey::position);
    frame.camera.look_at = CameraAt(c, time_seconds, c.look_at, &CameraKey::look_at);
    frame.camera.up = CameraUpAt(c, time_seconds, frame.camera.look_at - frame.camera.position);
    frame.camera.fov_degrees = c.fov_degrees;
    frame.camera.width = c.width;
    frame.camera.height = c.height;
    frame.camera.aperture = c.aperture;
    frame.camera.focus_distance =
        c.focus_distance > 0 ? c.focus_distance : Length(frame.camera.look_at - frame.camera.position);
    for (const Light& light : scene.lights) frame.lights.push_back(LightAt(light, time_seconds));
}

bool GeometryMoves(const Scene& scene) { return std::any_of(scene.objects.begin(), scene.objects.end(), Moves); }

void EvaluateScene(const Scene& scene, double time_seconds, SceneFrame* out) {
    EvaluateCameraAndLights(scene, time_seconds, out);
    SceneFrame& frame = *out;
    frame.bounds = Aabb();  // the per-triangle arrays are resized below and every entry written

    // Height fields are regenerated at the frame's time; the other meshes are used as loaded.
    const std::size_t objects = scene.objects.size();
    std::vector<Mesh> regenerated(objects);
    std::vector<const Mesh*> meshes(objects);
    std::vector<std::size_t>& first = frame.object_first;
    first.assign(objects + 1, 0);
    for (std::size_t oi = 0; oi < objects; ++oi) {
        const Object& object = scene.objects[oi];
        meshes[oi] = object.mesh.get();
        if (object.animated_shape) {
            regenerated[oi] = GenerateShape(object.shape, time_seconds);
            meshes[oi] = &regenerated[oi];
        }
        CA_CHECK(meshes[oi] != nullptr);
        first[oi + 1] = first[oi] + meshes[oi]->TriangleCount();
    }
    const std::size_t total = first[objects];
    frame.triangles.resize(total);
    frame.triangle_material.resize(total);
    frame.triangle_object.resize(total);
    frame.corner_normals.resize(3 * total);
    frame.corner_uvs.resize(3 * total);
    frame.object_bounds.assign(objects, Aabb());
    frame.object_reach.assign(objects, Aabb());
    // The triangles of each object in parallel (a large scene's frames wait on this host work);
    // the deterministic reduction keeps the bounds the same from run to run, down to the sign of 0.
    for (std::size_t oi = 0; oi < objects; ++oi) {
        const Object& object = scene.objects[oi];
        const Mesh& mesh = *meshes[oi];
        const Affine m = ToAffine(ObjectTransformAt(object, time_seconds));
        const ObjectPlacement placement = ToPlacement(m);
        const auto transform = [&](const tbb::blocked_range<std::size_t>& range, Aabb bounds) {
            for (std::size_t t = range.begin(); t != range.end(); ++t) {
                const std::size_t out_t = first[oi] + t;
                const std::uint32_t* v = &mesh.indices[3 * t];
                const Vec3 p[3] = {mesh.positions[v[0]], mesh.positions[v[1]], mesh.positions[v[2]]};
                Vec3 wp[3];
                placement.Place(p, &mesh.corner_normals[3 * t], &mesh.corner_uvs[3 * t], wp,
                                &frame.corner_normals[3 * out_t], &frame.corner_uvs[3 * out_t]);
                Triangle& tri = frame.triangles[out_t];
                tri = {wp[0], wp[1], wp[2]};
                bounds.Extend(tri.Bounds());
                int material = object.material;
                if (material < 0) material = mesh.triangle_materials[t] >= 0 ? mesh.triangle_materials[t] : scene.default_material;
                frame.triangle_material[out_t] = material;
                frame.triangle_object[out_t] = static_cast<int>(oi);
            }
            return bounds;
        };
        const auto unite = [](Aabb a, const Aabb& b) {
            a.Extend(b);
            return a;
        };
        frame.object_bounds[oi] =
            tbb::parallel_deterministic_reduce(tbb::blocked_range<std::size_t>(0, mesh.TriangleCount(), 2048), Aabb(), transform, unite);
        // An object that moves or whose waves move: bounds from its object-space reach, the same
        // whether its triangles are placed here or on the device (SceneFrames).
        if (Moves(object) || object.animated_shape) {
            frame.object_reach[oi] = ObjectReach(object);
            frame.object_bounds[oi] = TransformedBox(frame.object_reach[oi], m);
        }
        frame.bounds.Extend(frame.object_bounds[oi]);
    }
}

SceneFrame EvaluateScene(const Scene& scene, double time_seconds) {
    SceneFrame frame;
    EvaluateScene(scene, time_seconds, &frame);
    return frame;
}

double AnimationLength(const Scene& scene) {
    if (scene.settings.duration > 0) return scene.settings.duration;
    double length = 0;
    auto last = [&](const auto& keys) {
        if (!keys.empty()) length = std::max(length, keys.back().time);
    };
    // An orbit's length is one turn.
    auto turn = [&](const Orbit& orbit) {
        if (orbit.enabled) length = std::max(length, orbit.period);
    };
    last(scene.camera.animation);
    for (const Light& l : scene.lights) {
        last(l.animation);
        turn(l.orbit);
    }
    bool water = false;
    for (const Object& o : scene.objects) {
        last(o.animation);
        turn(o.orbit);
        water |= o.animated_shape;
    }
    if (length == 0 && water) length = kDefaultLoopSeconds;
    return length;
}

std::vector<SpecularObject> SpecularObjects(const Scene& scene, const SceneFrame& frame) {
    std::vector<SpecularObject> out;
    for (std::size_t oi = 0; oi < scene.objects.size(); ++oi) {
        SpecularObject s{static_cast<int>(oi), false, false, Aabb()};
        const auto add = [&](MaterialType type, const Aabb& bounds) {
            if (type == MaterialType::diffuse) return;
            s.has_mirror |= type == MaterialType::mirror;
            s.has_glass |= type == MaterialType::glass;
            s.bounds.Extend(bounds);
        };
        if (scene.objects[oi].material >= 0) {  // one material: the object's bounds, no triangle loop
            add(scene.materials[scene.objects[oi].material].type, frame.object_bounds[oi]);
        } else {
            // A moving object's triangles may have been placed on the device only: its bounds.
            const bool moves = Moves(scene.objects[oi]);
            for (std::size_t t = frame.object_first[oi]; t < frame.object_first[oi + 1]; ++t)
                add(scene.materials[frame.triangle_material[t]].type,
                    moves ? frame.object_bounds[oi] : frame.triangles[t].Bounds());
        }
        if (s.has_mirror || s.has_glass) out.push_back(s);
    }
    return out;
}

}  // namespace caustica
