#include "renderer/scene/scene.h"

namespace caustica {
namespace {

bool Same(Vec2 a, Vec2 b) { return a.x == b.x && a.y == b.y; }

template <class T, class Equal>
bool SameList(const std::vector<T>& a, const std::vector<T>& b, Equal equal) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!equal(a[i], b[i])) return false;
    return true;
}

bool operator==(const Checker& a, const Checker& b) {
    return a.enabled == b.enabled && a.color_a == b.color_a && a.color_b == b.color_b && a.scale == b.scale;
}

bool operator==(const Wave& a, const Wave& b) {
    return a.amplitude == b.amplitude && a.wavelength == b.wavelength && a.direction_degrees == b.direction_degrees &&
           a.speed == b.speed && a.phase == b.phase;
}

}  // namespace

bool ViewAlongUp(Vec3 view, Vec3 up) { return !(LengthSquared(Cross(Normalize(view), Normalize(up))) > 1e-8f); }

bool operator==(const Rotation& a, const Rotation& b) {
    if (a.kind != b.kind) return false;
    if (a.kind == Rotation::Kind::euler) return a.euler_degrees == b.euler_degrees;
    return a.axis == b.axis && a.angle_degrees == b.angle_degrees;
}

bool operator==(const Transform& a, const Transform& b) {
    return a.translate == b.translate && a.rotate == b.rotate && a.scale == b.scale;
}

bool operator==(const Orbit& a, const Orbit& b) {
    return a.enabled == b.enabled && a.center == b.center && a.axis == b.axis && a.period == b.period;
}

bool operator==(const Camera& a, const Camera& b) {
    return a.position == b.position && a.look_at == b.look_at && a.up == b.up && a.fov_degrees == b.fov_degrees &&
           a.width == b.width && a.height == b.height && a.aperture == b.aperture &&
           a.focus_distance == b.focus_distance &&
           SameList(a.animation, b.animation, [](const CameraKey& x, const CameraKey& y) {
               return x.time == y.time && x.position == y.position && x.look_at == y.look_at;
           });
}

bool operator==(const Light& a, const Light& b) {
    return a.name == b.name && a.type == b.type && a.position == b.position && a.direction == b.direction &&
           a.aimed == b.aimed && a.target == b.target && a.inner_angle_degrees == b.inner_angle_degrees &&
           a.outer_angle_degrees == b.outer_angle_degrees && a.width == b.width && a.height == b.height &&
           a.radius == b.radius && a.rotate == b.rotate && a.color == b.color && a.power == b.power &&
           SameList(a.animation, b.animation,
                    [](const Vec3Key& x, const Vec3Key& y) { return x.time == y.time && x.value == y.value; }) &&
           a.interpolation == b.interpolation && a.orbit == b.orbit;
}

bool operator==(const Dispersion& a, const Dispersion& b) {
    return a.kind == b.kind && a.abbe == b.abbe && a.cauchy_a == b.cauchy_a && a.cauchy_b == b.cauchy_b;
}

float CauchyIndexD(float a, float b) {
    const double d = 0.5876;  // the helium d line, um
    return float(double(a) + double(b) / (d * d));
}

bool operator==(const Material& a, const Material& b) {
    return a.name == b.name && a.type == b.type && a.metal == b.metal && a.color == b.color &&
           a.texture_path == b.texture_path &&
           a.texture == b.texture && a.checker == b.checker && a.ior == b.ior && a.dispersion == b.dispersion &&
           a.absorption == b.absorption;
}

bool operator==(const Shape& a, const Shape& b) {
    return a.kind == b.kind && a.size == b.size && a.radius == b.radius && a.inner_radius == b.inner_radius &&
           a.outer_radius == b.outer_radius && a.height == b.height && a.segments == b.segments && a.rings == b.rings &&
           a.caps == b.caps && SameList(a.profile, b.profile, Same) && a.resolution_x == b.resolution_x &&
           a.resolution_z == b.resolution_z && SameList(a.waves, b.waves, [](const Wave& x, const Wave& y) { return x == y; }) &&
           a.image_path == b.image_path && a.image_height == b.image_height;
}

bool operator==(const Object& a, const Object& b) {
    return a.name == b.name && a.is_mesh == b.is_mesh && a.mesh_path == b.mesh_path && a.shape == b.shape &&
           a.material == b.material && a.transform == b.transform && a.animated_shape == b.animated_shape &&
           SameList(a.animation, b.animation, [](const TransformKey& x, const TransformKey& y) {
               return x.time == y.time && x.transform == y.transform;
           }) &&
           a.interpolation == b.interpolation && a.orbit == b.orbit &&
           (a.mesh == nullptr) == (b.mesh == nullptr) &&
           (a.mesh == nullptr || a.mesh->TriangleCount() == b.mesh->TriangleCount());
}

bool operator==(const Settings& a, const Settings& b) {
    return a.photons == b.photons && a.k == b.k && a.ambient == b.ambient && a.indirect == b.indirect &&
           a.global_photons == b.global_photons && a.global_k == b.global_k && a.gather_rays == b.gather_rays &&
           a.denoise == b.denoise &&
           a.progressive == b.progressive && a.alpha == b.alpha && a.max_bounces == b.max_bounces &&
           a.specular_splits == b.specular_splits && a.shadow_samples == b.shadow_samples &&
           a.frame_rate == b.frame_rate && a.duration == b.duration && a.tone_map == b.tone_map;
}

bool operator==(const Environment& a, const Environment& b) {
    return a.kind == b.kind && a.color == b.color && a.horizon == b.horizon && a.zenith == b.zenith &&
           a.image_path == b.image_path && a.rotate_degrees == b.rotate_degrees && a.intensity == b.intensity;
}

bool operator==(const Scene& a, const Scene& b) {
    auto eq = [](const auto& x, const auto& y) { return x == y; };
    return a.camera == b.camera && a.settings == b.settings && SameList(a.materials, b.materials, eq) &&
           a.textures.size() == b.textures.size() && SameList(a.lights, b.lights, eq) &&
           SameList(a.objects, b.objects, eq) && a.environment == b.environment &&
           a.user_materials == b.user_materials &&
           a.default_material == b.default_material;
}

const char* ToString(LightType type) {
    switch (type) {
    case LightType::point: return "point";
    case LightType::spot: return "spot";
    case LightType::directional: return "directional";
    case LightType::rect: return "rect";
    case LightType::disc: return "disc";
    case LightType::sphere: return "sphere";
    }
    return "?";
}

const char* ToString(MaterialType type) {
    switch (type) {
    case MaterialType::diffuse: return "diffuse";
    case MaterialType::mirror: return "mirror";
    case MaterialType::glass: return "glass";
    }
    return "?";
}

const char* ToString(Interpolation interpolation) {
    return interpolation == Interpolation::smooth ? "smooth" : "linear";
}

const char* TypeWord(const Material& material) { return material.metal ? "metal" : ToString(material.type); }

const char* ToString(Shape::Kind kind) {
    switch (kind) {
    case Shape::Kind::plane: return "plane";
    case Shape::Kind::box: return "box";
    case Shape::Kind::sphere: return "sphere";
    case Shape::Kind::cylinder: return "cylinder";
    case Shape::Kind::ring: return "ring";
    case Shape::Kind::revolution: return "revolution";
    case Shape::Kind::heightfield: return "heightfield";
    }
    return "?";
}

const char* ToString(Environment::Kind kind) {
    switch (kind) {
    case Environment::Kind::constant: return "constant";
    case Environment::Kind::gradient: return "gradient";
    case Environment::Kind::image: return "image";
    }
    return "?";
}

}  // namespace caustica
