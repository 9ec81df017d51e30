#include "renderer/viewer/view_editor.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "kdtree/triangle/traversal.h"

namespace caustica {
namespace {


// Rotates v about the unit axis by angle (Rodrigues).
Vec3 Rotate(Vec3 v, Vec3 axis, float angle) {
    const float c = std::cos(angle), s = std::sin(angle);
    return v * c + Cross(axis, v) * s + axis * (Dot(axis, v) * (1.0f - c));
}

}  // namespace

ViewEditor::ViewEditor(Scene& scene) : scene_(scene) {}

void ViewEditor::Orbit(float dx, float dy) {
    Camera& c = scene_.camera;
    c.animation.clear();
    const Vec3 up = Normalize(c.up);
    Vec3 offset = c.position - c.look_at;
    offset = Rotate(offset, up, -dx * 0.005f);
    const Vec3 right = Normalize(Cross(offset, up));
    const Vec3 tilted = Rotate(offset, right, dy * 0.005f);
    // Stop short of the poles, where the view would flip.
    if (std::fabs(Dot(Normalize(tilted), up)) < 0.995f) offset = tilted;
    c.position = c.look_at + offset;
}

void ViewEditor::Pan(float dx, float dy, const CameraView& camera) {
    Camera& c = scene_.camera;
    c.animation.clear();
    const float distance = Length(c.position - c.look_at);
    const float per_pixel = 2.0f * Length(camera.up) * distance / float(camera.height);
    const Vec3 shift = Normalize(camera.right) * (-dx * per_pixel) + Normalize(camera.up) * (dy * per_pixel);
    c.position += shift;
    c.look_at += shift;
}

void ViewEditor::Zoom(float steps) {
    Camera& c = scene_.camera;
    c.animation.clear();
    const Vec3 offset = (c.position - c.look_at) * std::pow(0.9f, steps);
    if (Length(offset) > 1e-3f) c.position = c.look_at + offset;
}

void ViewEditor::SelectNextLight() {
    if (scene_.lights.empty()) return;
    index_ = kind_ == Kind::Light ? (index_ + 1) % int(scene_.lights.size()) : 0;
    kind_ = Kind::Light;
}

void ViewEditor::SelectNextObject() {
    if (scene_.objects.empty()) return;
    index_ = kind_ == Kind::Object ? (index_ + 1) % int(scene_.objects.size()) : 0;
    kind_ = Kind::Object;
}

bool ViewEditor::Pick(float x, float y, const CameraView& camera, const SceneFrame& frame) {
    for (size_t l = 0; l < frame.lights.size(); ++l) {
        float lx, ly;
        if (frame.lights[l].type != LightType::directional && camera.Project(frame.lights[l].position, &lx, &ly) &&
            std::hypot(lx - x, ly - y) <= 12.0f) {
            kind_ = Kind::Light;
            index_ = int(l);
            return true;
        }
    }
    const Hit hit = FindClosestHitBruteForce(frame.triangles.data(), uint32_t(frame.triangles.size()),
                                             camera.Generate(x, y));
    if (!hit.Valid()) {
        kind_ = Kind::None;
        index_ = -1;
        return false;
    }
    kind_ = Kind::Object;
    index_ = frame.triangle_object[hit.triangle];
    return true;
}

std::string ViewEditor::Describe() const {
    switch (kind_) {
        case Kind::Light: {
            const Light& l = scene_.lights[index_];
            return Concat("light ", l.name.empty() ? std::to_string(index_) : l.name, " (", l.power, " W)");
        }
        case Kind::Object: return Concat("object ", scene_.objects[index_].name);
        case Kind::None: break;
    }
    return "nothing selected";
}

void ViewEditor::Move(Vec3 delta) {
    if (kind_ == Kind::Light) {
        Light& l = scene_.lights[index_];
        l.position += delta;
        if (l.orbit.enabled) l.orbit.center += delta;
        for (Vec3Key& k : l.animation) k.value += delta;
    } else if (kind_ == Kind::Object) {
        Object& o = scene_.objects[index_];
        o.transform.translate += delta;
        if (o.orbit.enabled) o.orbit.center += delta;
        for (TransformKey& k : o.animation) k.transform.translate += delta;
    }
}

Vec3 ViewEditor::SelectedPosition(const SceneFrame& frame) const {
    if (kind_ == Kind::Light) return frame.lights[index_].position;
    if (kind_ == Kind::Object) return frame.object_bounds[index_].Center();
    return Vec3(0.0f);
}

Vec3 ViewEditor::DragOnPlane(const CameraView& camera, Vec3 anchor, Vec3 normal, float x0, float y0, float x1,
                             float y1) {
    auto on_plane = [&](float x, float y, Vec3* p) {
        const Ray r = camera.Generate(x, y);
        const float denom = Dot(r.direction, normal);
        if (std::fabs(denom) < 1e-4f) return false;
        const float t = Dot(anchor - r.origin, normal) / denom;
        if (t <= 0.0f) return false;
        *p = r.At(t);
        return true;
    };
    Vec3 a, b;
    if (!on_plane(x0, y0, &a) || !on_plane(x1, y1, &b)) return Vec3(0.0f);
    return b - a;
}

void ViewEditor::ScaleLightPower(float factor) {
    if (kind_ != Kind::Light) return;
    Light& l = scene_.lights[index_];
    l.power = std::clamp(l.power * factor, 1e-3f, 1e7f);
}

std::string ViewEditor::CycleLightColour() {
    if (kind_ != Kind::Light) return "";
    struct Named {
        const char* name;
        Rgb colour;
    };
    static const Named kColours[] = {{"white", {1, 1, 1}},        {"warm white", {1, 0.85f, 0.6f}},
                                     {"cool white", {0.7f, 0.85f, 1}}, {"red", {1, 0.3f, 0.3f}},
                                     {"green", {0.3f, 1, 0.3f}},   {"blue", {0.35f, 0.45f, 1}}};
    colour_ = (colour_ + 1) % 6;
    scene_.lights[index_].color = kColours[colour_].colour;
    return kColours[colour_].name;
}

}  // namespace caustica
