#include "renderer/scene_eval.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "renderer/shapes.h"
#include "renderer/transform.h"

namespace caustica {
namespace {

constexpr float kRadiansPerDegree = 3.14159265358979323846f / 180.0f;
constexpr double kDefaultLoopSeconds = 10;  // for scenes whose only motion is water

template <class Key, class Value, class Blend>
Value Sample(const std::vector<Key>& keys, double time, Value fallback, Value Key::*field, Blend blend) {
    if (keys.empty()) return fallback;
    const KeySpan span = FindKeySpan(keys, time);
    return blend(keys[span.first].*field, keys[span.second].*field, span.t);
}

Vec3 LerpVec(Vec3 a, Vec3 b, float t) { return Lerp(a, b, t); }

SceneLight LightAt(const Light& light, double time) {
    SceneLight out;
    out.type = light.type;
    out.position = Sample(light.animation, time, light.position, &Vec3Key::value, LerpVec);
    out.direction = light.direction;
    if (light.aimed) {
        const Vec3 d = light.target - out.position;
        if (LengthSquared(d) > 0) out.direction = Normalize(d);
    }
    out.cos_inner = std::cos(light.inner_angle_degrees * kRadiansPerDegree);
    out.cos_outer = std::cos(light.outer_angle_degrees * kRadiansPerDegree);
    out.color = light.color;
    out.power = light.power;
    return out;
}

}  // namespace

Transform ObjectTransformAt(const Object& object, double time_seconds) {
    if (object.animation.empty()) return object.transform;
    const KeySpan span = FindKeySpan(object.animation, time_seconds);
    return Interpolate(object.animation[span.first].transform, object.animation[span.second].transform, span.t);
}

void EvaluateScene(const Scene& scene, double time_seconds, SceneFrame* out) {
    CA_CHECK_MSG(std::isfinite(time_seconds), "time ", time_seconds);
    SceneFrame& frame = *out;
    frame.triangles.clear();
    frame.triangle_material.clear();
    frame.triangle_object.clear();
    frame.corner_normals.clear();
    frame.corner_uvs.clear();
    frame.lights.clear();
    frame.bounds = Aabb();
    frame.time = time_seconds;
    const Camera& c = scene.camera;
    frame.camera.position = Sample(c.animation, time_seconds, c.position, &CameraKey::position, LerpVec);
    frame.camera.look_at = Sample(c.animation, time_seconds, c.look_at, &CameraKey::look_at, LerpVec);
    frame.camera.up = Normalize(c.up);
    frame.camera.fov_degrees = c.fov_degrees;
    frame.camera.width = c.width;
    frame.camera.height = c.height;
    for (const Light& light : scene.lights) frame.lights.push_back(LightAt(light, time_seconds));

    std::size_t total = 0;
    for (const Object& o : scene.objects) total += o.mesh ? o.mesh->TriangleCount() : 0;
    frame.triangles.reserve(total);
    frame.triangle_material.reserve(total);
    frame.triangle_object.reserve(total);
    frame.corner_normals.reserve(3 * total);
    frame.corner_uvs.reserve(3 * total);
    frame.object_bounds.assign(scene.objects.size(), Aabb());
    for (std::size_t oi = 0; oi < scene.objects.size(); ++oi) {
        const Object& object = scene.objects[oi];
        Mesh regenerated;
        const Mesh* mesh = object.mesh.get();
        if (object.animated_shape) {
            regenerated = GenerateShape(object.shape, time_seconds);
            mesh = &regenerated;
        }
        CA_CHECK(mesh != nullptr);
        const Affine m = ToAffine(ObjectTransformAt(object, time_seconds));
        // A mirroring transform (negative determinant) turns the winding: swap two corners back.
        const float det = Dot(m.rows[0], Cross(m.rows[1], m.rows[2]));
        const int second = det < 0 ? 2 : 1, third = det < 0 ? 1 : 2;
        Aabb& bounds = frame.object_bounds[oi];
        for (std::size_t t = 0; t < mesh->TriangleCount(); ++t) {
            const std::uint32_t* v = &mesh->indices[3 * t];
            const int corner[3] = {0, second, third};
            Triangle tri;
            tri.v0 = m.Point(mesh->positions[v[corner[0]]]);
            tri.v1 = m.Point(mesh->positions[v[corner[1]]]);
            tri.v2 = m.Point(mesh->positions[v[corner[2]]]);
            frame.triangles.push_back(tri);
            bounds.Extend(tri.Bounds());
            for (int k : corner) {
                frame.corner_normals.push_back(m.Normal(mesh->corner_normals[3 * t + k]));
                frame.corner_uvs.push_back(mesh->corner_uvs[3 * t + k]);
            }
            int material = object.material;
            if (material < 0) material = mesh->triangle_materials[t] >= 0 ? mesh->triangle_materials[t] : scene.default_material;
            frame.triangle_material.push_back(material);
            frame.triangle_object.push_back(static_cast<int>(oi));
        }
        frame.bounds.Extend(bounds);
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
    last(scene.camera.animation);
    for (const Light& l : scene.lights) last(l.animation);
    bool water = false;
    for (const Object& o : scene.objects) {
        last(o.animation);
        water |= o.animated_shape;
    }
    if (length == 0 && water) length = kDefaultLoopSeconds;
    return length;
}

std::vector<SpecularObject> SpecularObjects(const Scene& scene, const SceneFrame& frame) {
    std::vector<SpecularObject> out;
    std::vector<int> slot(scene.objects.size(), -1);
    for (std::size_t t = 0; t < frame.triangles.size(); ++t) {
        const MaterialType type = scene.materials[frame.triangle_material[t]].type;
        if (type == MaterialType::diffuse) continue;
        const int object = frame.triangle_object[t];
        if (slot[object] < 0) {
            slot[object] = static_cast<int>(out.size());
            out.push_back(SpecularObject{object, false, false, Aabb()});
        }
        SpecularObject& s = out[slot[object]];
        s.has_mirror |= type == MaterialType::mirror;
        s.has_glass |= type == MaterialType::glass;
        s.bounds.Extend(frame.triangles[t].Bounds());
    }
    return out;
}

}  // namespace caustica
