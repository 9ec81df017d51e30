#include "renderer/scene/scene_loader.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "core/error.h"
#include "renderer/scene/builtin_scene.h"
#include "renderer/scene/image_decode.h"
#include "renderer/scene/obj_loader.h"
#include "renderer/scene/shapes.h"
#include "renderer/scene/yaml_reader.h"

namespace caustica {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxSceneBytes = std::size_t(16) << 20;
constexpr std::size_t kMaxObjBytes = std::size_t(512) << 20;
constexpr std::size_t kMaxImageBytes = std::size_t(256) << 20;
constexpr std::size_t kMaxItems = 10000;     // objects, lights, materials
constexpr std::size_t kMaxKeys = 100000;     // keyframes per animation
constexpr std::size_t kMaxWaves = 64;
constexpr double kCoordinateLimit = 1e6;     // metres
constexpr double kAngleLimit = 1e6;          // degrees
constexpr double kTimeLimit = 1e6;           // seconds

const std::vector<std::string> kMaterialTypes = {"diffuse", "mirror", "metal", "glass"};
const std::vector<std::string> kLightTypes = {"point", "spot", "directional", "rect", "disc", "sphere"};
const std::vector<std::string> kEnvironmentTypes = {"constant", "gradient", "image"};
const std::vector<std::string> kShapeTypes = {"plane", "box", "sphere", "cylinder", "ring", "revolution", "heightfield"};

// Normalizes v unless it is unit length already, so that saving and loading again gives the
// same numbers.
Vec3 UnitLength(Vec3 v) { return std::fabs(Length(v) - 1.0f) > 1e-6f ? Normalize(v) : v; }

// The text of a word from a closed list, with an error naming the choices.
int Choose(const YamlReader& r, const YAML::Node& node, const std::string& what, const std::vector<std::string>& words) {
    const std::string word = r.String(node, what);
    for (std::size_t i = 0; i < words.size(); ++i)
        if (words[i] == word) return static_cast<int>(i);
    r.Fail(node, UnknownWordMessage(what, word, words));
}

// The absolute folder of a file path (the current folder for a bare or empty name).
fs::path AbsoluteFolder(const std::string& path) {
    std::error_code ec;
    const fs::path absolute = fs::absolute(path.empty() ? fs::path("x") : fs::path(path), ec);
    return ec ? fs::path() : absolute.parent_path();
}

class Loader {
public:
    Loader(const std::string& path, const SceneLoadOptions& options, std::size_t bytes)
        : r_(path, bytes), options_(options), display_dir_(fs::path(path).parent_path()), absolute_dir_(AbsoluteFolder(path)) {}

    Scene Load(const std::string& text);

private:
    // A path from the file, for messages (relative to where the scene path was given) and for
    // reading and saving (absolute).
    struct Resolved {
        std::string display, absolute;
    };
    Resolved Resolve(const YAML::Node& node, const std::string& what) const {
        const std::string given = r_.String(node, what);
        if (given.empty() || given.find('\0') != std::string::npos) r_.Fail(node, Concat("expected a file name for ", what));
        const fs::path p(given);
        if (p.is_absolute()) return {p.lexically_normal().string(), p.lexically_normal().string()};
        return {(display_dir_ / p).lexically_normal().string(), (absolute_dir_ / p).lexically_normal().string()};
    }
    void Warn(const SourceLocation& where, const std::string& what) {
        scene_.warnings.push_back(FormatLocation(where) + ": warning: " + what);
    }

    void ReadCamera(const YAML::Node& node);
    void ReadSettings(const YAML::Node& node);
    void ReadMaterials(const YAML::Node& node);
    void ReadLights(const YAML::Node& node);
    void ReadObjects(const YAML::Node& node);
    void ReadEnvironment(const YAML::Node& node);
    Light ReadLight(const YAML::Node& node, int index);
    Object ReadObject(const YAML::Node& node, int index);
    Shape ReadShape(const YAML::Node& node);
    Transform ReadTransform(const MapReader& map, const Transform& fallback) const;
    Rotation ReadRotation(const YAML::Node& node) const;
    void CheckCamera(const YAML::Node& where, Vec3 position, Vec3 look_at, Vec3 up) const;
    template <class Key, class ReadKey>
    std::vector<Key> ReadKeys(const YAML::Node& node, const std::string& what, const std::vector<std::string>& known,
                              ReadKey read_key) const;
    void LoadMesh(Object& object, const YAML::Node& node);
    int LoadTexture(const std::string& path, const std::string& display, const SourceLocation& where);

    YamlReader r_;
    const SceneLoadOptions& options_;
    fs::path display_dir_, absolute_dir_;
    Scene scene_;
    std::map<std::string, int> material_index_;  // user material names
    std::map<std::string, int> texture_index_;   // absolute path -> index (loaded ones only)
    std::map<std::string, std::shared_ptr<const Mesh>> meshes_;  // absolute path -> mesh, each loaded once
    std::size_t triangles_ = 0;
};

void Loader::CheckCamera(const YAML::Node& where, Vec3 position, Vec3 look_at, Vec3 up) const {
    const Vec3 view = look_at - position;
    if (!(LengthSquared(view) > 1e-12f)) r_.Fail(where, "camera look_at must differ from its position");
    if (!(LengthSquared(up) > 1e-12f)) r_.Fail(where, "camera up must not be the zero vector");
    if (!(LengthSquared(Cross(Normalize(view), Normalize(up))) > 1e-8f))
        r_.Fail(where, "camera up must not be parallel to the view direction (look_at - position)");
}

template <class Key, class ReadKey>
std::vector<Key> Loader::ReadKeys(const YAML::Node& node, const std::string& what, const std::vector<std::string>& known,
                                  ReadKey read_key) const {
    const YAML::Node list = r_.List(node, what, kMaxKeys);
    if (list.size() == 0) r_.Fail(node, Concat("expected at least one keyframe in ", what));
    std::vector<Key> keys;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const MapReader key(r_, list[i], what + " keyframe", known);
        if (!key.Has("time")) r_.Fail(list[i], Concat("a keyframe needs a time (seconds)"));
        Key k;
        k.time = key.Number("time", 0, 0, kTimeLimit);
        if (!keys.empty() && !(k.time > keys.back().time))
            r_.Fail(key.Get("time"), Concat("keyframe times must increase: ", k.time, " after ", keys.back().time));
        read_key(key, k);
        keys.push_back(k);
    }
    return keys;
}

void Loader::ReadCamera(const YAML::Node& node) {
    const MapReader map(r_, node, "camera", {"position", "look_at", "up", "fov", "resolution", "animation"});
    Camera& c = scene_.camera;
    c.position = map.Vector("position", c.position, kCoordinateLimit);
    c.look_at = map.Vector("look_at", c.look_at, kCoordinateLimit);
    c.up = map.Vector("up", c.up, kCoordinateLimit);
    c.fov_degrees = static_cast<float>(map.Number("fov", c.fov_degrees, 1, 179));
    if (map.Has("resolution")) {
        const YAML::Node res = map.Get("resolution");
        const std::vector<double> wh = r_.Numbers(res, "camera resolution [width, height]", 2, 1, SceneLimits::kMaxResolution);
        if (wh[0] != std::floor(wh[0]) || wh[1] != std::floor(wh[1])) r_.Fail(res, "expected whole numbers for camera resolution");
        c.width = static_cast<int>(wh[0]);
        c.height = static_cast<int>(wh[1]);
    }
    CheckCamera(map.Has("look_at") ? map.Get("look_at") : node, c.position, c.look_at, c.up);
    if (map.Has("animation")) {
        c.animation = ReadKeys<CameraKey>(map.Get("animation"), "camera animation", {"time", "position", "look_at"},
                                          [&](const MapReader& key, CameraKey& k) {
                                              k.position = key.Vector("position", c.position, kCoordinateLimit);
                                              k.look_at = key.Vector("look_at", c.look_at, kCoordinateLimit);
                                              CheckCamera(key.Node(), k.position, k.look_at, c.up);
                                          });
    }
}

void Loader::ReadSettings(const YAML::Node& node) {
    const MapReader map(r_, node, "settings", {"photons", "k", "ambient", "max_bounces", "specular_splits",
                                                     "shadow_samples", "frame_rate", "duration"});
    Settings& s = scene_.settings;
    s.photons = map.Integer("photons", s.photons, 0, SceneLimits::kMaxPhotons);
    s.k = map.Integer("k", s.k, 1, SceneLimits::kMaxK);
    s.ambient = map.Color("ambient", s.ambient, 1);
    s.max_bounces = map.Integer("max_bounces", s.max_bounces, 0, SceneLimits::kMaxBounces);
    s.specular_splits = map.Integer("specular_splits", s.specular_splits, 0, SceneLimits::kMaxSpecularSplits);
    s.shadow_samples = map.Integer("shadow_samples", s.shadow_samples, 1, SceneLimits::kMaxShadowSamples);
    s.frame_rate = map.Number("frame_rate", s.frame_rate, 0.01, 1000);
    s.duration = map.Number("duration", s.duration, 0, kTimeLimit);
}

void Loader::ReadMaterials(const YAML::Node& node) {
    if (!node.IsMap()) r_.Fail(node, "expected a map of materials (name: {type: ..., ...})");
    if (node.size() > kMaxItems) r_.Fail(node, Concat("too many materials (at most ", kMaxItems, ")"));
    for (auto it = node.begin(); it != node.end(); ++it) {
        const std::string name = r_.String(it->first, "material name");
        if (material_index_.count(name)) r_.Fail(it->first, Concat("duplicate material \"", name, "\""));
        const YAML::Node body = it->second;  // a copy: it-> yields a temporary
        if (!body.IsMap() || !body["type"]) r_.Fail(body, Concat("expected a map with a type (", "diffuse, mirror, metal, glass) for material \"", name, "\""));
        const int type = Choose(r_, body["type"], "material type", kMaterialTypes);
        Material m;
        m.name = name;
        const std::string what = Concat("material \"", name, "\"");
        std::vector<std::string> known = {"type", "color"};
        if (type == 0) known.insert(known.end(), {"texture", "checker"});
        if (type == 3) known = {"type", "ior", "absorption"};
        const MapReader map(r_, body, what, known);
        if (type == 0) {
            m.type = MaterialType::diffuse;
            m.color = map.Color("color", m.color, 1);
            if (map.Has("texture") && map.Has("checker")) r_.Fail(map.Get("checker"), "a material has a texture or a checker, not both");
            if (map.Has("texture")) {
                const Resolved path = Resolve(map.Get("texture"), what + " texture");
                m.texture_path = path.absolute;
                m.texture = LoadTexture(path.absolute, path.display, r_.Where(map.Get("texture")));
            }
            if (map.Has("checker")) {
                const MapReader checker(r_, map.Get("checker"), what + " checker", {"color_a", "color_b", "scale"});
                m.checker.enabled = true;
                m.checker.color_a = checker.Color("color_a", m.checker.color_a, 1);
                m.checker.color_b = checker.Color("color_b", m.checker.color_b, 1);
                m.checker.scale = static_cast<float>(checker.Number("scale", m.checker.scale, 1e-3, 1e4));
            }
        } else if (type == 1 || type == 2) {
            m.type = MaterialType::mirror;
            m.color = map.Color("color", Rgb(1, 1, 1), 1);
        } else {
            m.type = MaterialType::glass;
            m.color = Rgb(1, 1, 1);
            m.ior = static_cast<float>(map.Number("ior", m.ior, 1, 4));
            m.absorption = map.Color("absorption", m.absorption, 1e6);
        }
        material_index_[name] = static_cast<int>(scene_.materials.size());
        scene_.materials.push_back(m);
    }
    scene_.user_materials = static_cast<int>(scene_.materials.size());
}

int Loader::LoadTexture(const std::string& path, const std::string& display, const SourceLocation& where) {
    const auto found = texture_index_.find(path);
    if (found != texture_index_.end()) return found->second;
    const FileRead read = options_.files(path, kMaxImageBytes);
    if (read.status != FileRead::Status::ok) {
        Warn(where, Concat("texture \"", display, "\" ", Describe(read.status, kMaxImageBytes), "; using the material's colour"));
        return -1;
    }
    Texture texture;
    texture.path = path;
    std::string why;
    if (!DecodeTexture(read.bytes, &texture, &why)) ThrowInputError(where, Concat("texture \"", display, "\": ", why));
    scene_.textures.push_back(std::move(texture));
    const int index = static_cast<int>(scene_.textures.size() - 1);
    texture_index_[path] = index;
    return index;
}

Light Loader::ReadLight(const YAML::Node& node, int index) {
    if (!node.IsMap()) r_.Fail(node, "expected a map for a light ({type: point, position: [x, y, z], ...})");
    Light l;
    const int type = node["type"] ? Choose(r_, node["type"], "light type", kLightTypes) : 0;
    l.type = static_cast<LightType>(type);
    std::vector<std::string> known = {"name", "type", "color", "power", "position"};
    if (l.type != LightType::directional) known.push_back("animation");
    if (l.type == LightType::spot || l.type == LightType::directional)
        known.insert(known.end(), {"direction", "look_at"});
    if (l.type == LightType::spot) known.insert(known.end(), {"inner_angle", "outer_angle"});
    if (l.type == LightType::rect) known.insert(known.end(), {"width", "height"});
    if (l.type == LightType::disc || l.type == LightType::sphere) known.push_back("radius");
    if (l.type == LightType::rect || l.type == LightType::disc) known.push_back("rotate");
    const std::string what = Concat(ToString(l.type), " light");
    const MapReader map(r_, node, what, known);
    l.name = map.String("name", Concat("light ", index));
    l.position = map.Vector("position", l.position, kCoordinateLimit);
    l.color = map.Color("color", l.color, 1);
    l.power = static_cast<float>(map.Number("power", l.power, 0, 1e9));
    l.width = static_cast<float>(map.Number("width", l.width, 1e-6, kCoordinateLimit));
    l.height = static_cast<float>(map.Number("height", l.height, 1e-6, kCoordinateLimit));
    l.radius = static_cast<float>(map.Number("radius", l.radius, 1e-6, kCoordinateLimit));
    if (map.Has("rotate")) l.rotate = ReadRotation(map.Get("rotate"));
    if (l.type == LightType::spot || l.type == LightType::directional) {
        if (map.Has("direction") && map.Has("look_at")) r_.Fail(map.Get("look_at"), "give a light a direction or a look_at, not both");
        if (map.Has("look_at")) {
            l.aimed = true;
            l.target = map.Vector("look_at", l.target, kCoordinateLimit);
            if (!(LengthSquared(l.target - l.position) > 1e-12f)) r_.Fail(map.Get("look_at"), "light look_at must differ from its position");
            l.direction = Normalize(l.target - l.position);
        } else if (map.Has("direction")) {
            const Vec3 d = map.Vector("direction", l.direction, kCoordinateLimit);
            if (!(LengthSquared(d) > 1e-12f)) r_.Fail(map.Get("direction"), "light direction must not be the zero vector");
            l.direction = UnitLength(d);
        }
    }
    if (l.type == LightType::spot) {
        l.inner_angle_degrees = static_cast<float>(map.Number("inner_angle", l.inner_angle_degrees, 0, 90));
        l.outer_angle_degrees = static_cast<float>(map.Number("outer_angle", std::max(l.outer_angle_degrees, l.inner_angle_degrees), 0.01, 90));
        if (l.inner_angle_degrees > l.outer_angle_degrees)
            r_.Fail(map.Has("outer_angle") ? map.Get("outer_angle") : node, "a spot light's outer_angle must be at least its inner_angle");
    }
    if (map.Has("animation")) {
        l.animation = ReadKeys<Vec3Key>(map.Get("animation"), what + " animation", {"time", "position"},
                                        [&](const MapReader& key, Vec3Key& k) {
                                            k.value = key.Vector("position", l.position, kCoordinateLimit);
                                            if (l.aimed && !(LengthSquared(l.target - k.value) > 1e-12f))
                                                r_.Fail(key.Node(), "the light's position reaches its look_at");
                                        });
    }
    return l;
}

void Loader::ReadLights(const YAML::Node& node) {
    const YAML::Node list = r_.List(node, "lights", kMaxItems);
    for (std::size_t i = 0; i < list.size(); ++i) scene_.lights.push_back(ReadLight(list[i], static_cast<int>(i)));
}

Rotation Loader::ReadRotation(const YAML::Node& node) const {
    Rotation rotation;
    if (node.IsSequence()) {
        rotation.euler_degrees = r_.Vector(node, "rotate (degrees about x, y, z)", kAngleLimit);
        return rotation;
    }
    if (!node.IsMap()) r_.Fail(node, "expected rotate as [x, y, z] degrees or {axis: [x, y, z], angle: degrees}");
    const MapReader map(r_, node, "rotate", {"axis", "angle"});
    if (!map.Has("axis") || !map.Has("angle")) r_.Fail(node, "expected rotate {axis: [x, y, z], angle: degrees}");
    rotation.kind = Rotation::Kind::axis_angle;
    const Vec3 axis = r_.Vector(map.Get("axis"), "rotate axis", kCoordinateLimit);
    if (!(LengthSquared(axis) > 1e-12f)) r_.Fail(map.Get("axis"), "rotate axis must not be the zero vector");
    rotation.axis = UnitLength(axis);
    rotation.angle_degrees = static_cast<float>(map.Number("angle", 0, -kAngleLimit, kAngleLimit));
    return rotation;
}

Transform Loader::ReadTransform(const MapReader& map, const Transform& fallback) const {
    Transform t = fallback;
    t.translate = map.Vector("translate", t.translate, kCoordinateLimit);
    if (map.Has("rotate")) t.rotate = ReadRotation(map.Get("rotate"));
    if (map.Has("scale")) {
        const YAML::Node s = map.Get("scale");
        const char* what = "scale (a number or [x, y, z])";
        if (s.IsSequence()) {
            t.scale = r_.Vector(s, what, 1e6);
        } else {
            t.scale = Vec3(static_cast<float>(r_.Number(s, what, -1e6, 1e6)));
        }
        for (int i = 0; i < 3; ++i)
            if (std::fabs(t.scale[i]) < 1e-6f) r_.Fail(s, "scale must not be zero (at least 1e-6 in size)");
    }
    return t;
}

Shape Loader::ReadShape(const YAML::Node& node) {
    if (!node.IsMap() || !node["type"]) r_.Fail(node, "expected a shape map with a type (plane, box, sphere, cylinder, ring, revolution, heightfield)");
    Shape s;
    s.kind = static_cast<Shape::Kind>(Choose(r_, node["type"], "shape type", kShapeTypes));
    const std::string what = Concat(ToString(s.kind), " shape");
    static const std::vector<std::string> keys[] = {
        {"type", "size"},
        {"type", "size"},
        {"type", "radius", "segments", "rings"},
        {"type", "radius", "height", "segments", "caps"},
        {"type", "inner_radius", "outer_radius", "height", "segments"},
        {"type", "profile", "segments"},
        {"type", "size", "resolution", "waves", "image", "image_height"},
    };
    const MapReader map(r_, node, what, keys[static_cast<int>(s.kind)]);
    const double big = kCoordinateLimit;
    s.segments = map.Integer("segments", s.segments, ShapeLimits::kMinSegments, ShapeLimits::kMaxSegments);
    switch (s.kind) {
    case Shape::Kind::plane:
    case Shape::Kind::heightfield:
        s.size.y = 0;  // flat shapes: sizes along x and z only
        if (map.Has("size")) {
            const std::vector<double> v = r_.Numbers(map.Get("size"), what + " size [x, z]", 2, 1e-6, big);
            s.size = Vec3(static_cast<float>(v[0]), 0, static_cast<float>(v[1]));
        }
        break;
    case Shape::Kind::box:
        if (map.Has("size")) {
            const std::vector<double> v = r_.Numbers(map.Get("size"), what + " size [x, y, z]", 3, 1e-6, big);
            s.size = Vec3(static_cast<float>(v[0]), static_cast<float>(v[1]), static_cast<float>(v[2]));
        }
        break;
    case Shape::Kind::sphere:
        s.radius = static_cast<float>(map.Number("radius", s.radius, 1e-6, big));
        s.rings = map.Integer("rings", s.rings, ShapeLimits::kMinRings, ShapeLimits::kMaxRings);
        break;
    case Shape::Kind::cylinder:
        s.radius = static_cast<float>(map.Number("radius", s.radius, 1e-6, big));
        s.height = static_cast<float>(map.Number("height", s.height, 1e-6, big));
        s.caps = map.Boolean("caps", s.caps);
        break;
    case Shape::Kind::ring:
        s.inner_radius = static_cast<float>(map.Number("inner_radius", s.inner_radius, 1e-6, big));
        s.outer_radius = static_cast<float>(map.Number("outer_radius", std::max(s.outer_radius, s.inner_radius * 1.25f), 1e-6, big));
        s.height = static_cast<float>(map.Number("height", s.height, 1e-6, big));
        if (!(s.inner_radius < s.outer_radius))
            r_.Fail(map.Has("outer_radius") ? map.Get("outer_radius") : node, "a ring's outer_radius must be larger than its inner_radius");
        break;
    case Shape::Kind::revolution: {
        if (!map.Has("profile")) r_.Fail(node, "a revolution shape needs a profile: [[radius, y], ...]");
        const YAML::Node list = r_.List(map.Get("profile"), "profile", ShapeLimits::kMaxProfilePoints);
        if (list.size() < 2) r_.Fail(map.Get("profile"), "a profile needs at least 2 points [radius, y]");
        for (std::size_t i = 0; i < list.size(); ++i) {
            const std::vector<double> p = r_.Numbers(list[i], "profile point [radius, y]", 2, -big, big);
            if (p[0] < 0) r_.Fail(list[i][0], "a profile radius must not be negative");
            const Vec2 point(static_cast<float>(p[0]), static_cast<float>(p[1]));
            if (!s.profile.empty()) {
                const Vec2 prev = s.profile.back();
                if (prev.x == point.x && prev.y == point.y) r_.Fail(list[i], "a profile point repeats the one before");
                if (prev.x == 0 && point.x == 0) r_.Fail(list[i], "two profile points in a row lie on the axis (radius 0)");
            }
            s.profile.push_back(point);
        }
        break;
    }
    }
    if (s.kind == Shape::Kind::heightfield) {
        if (map.Has("resolution")) {
            const YAML::Node res = map.Get("resolution");
            const std::vector<double> v = r_.Numbers(res, what + " resolution [x, z]", 2, 1, ShapeLimits::kMaxHeightfieldResolution);
            if (v[0] != std::floor(v[0]) || v[1] != std::floor(v[1])) r_.Fail(res, "expected whole numbers for the resolution");
            s.resolution_x = static_cast<int>(v[0]);
            s.resolution_z = static_cast<int>(v[1]);
        }
        if (map.Has("waves")) {
            const YAML::Node list = r_.List(map.Get("waves"), "waves", kMaxWaves);
            for (std::size_t i = 0; i < list.size(); ++i) {
                const MapReader w(r_, list[i], "wave", {"amplitude", "wavelength", "direction", "speed", "phase"});
                Wave wave;
                wave.amplitude = static_cast<float>(w.Number("amplitude", wave.amplitude, -big, big));
                wave.wavelength = static_cast<float>(w.Number("wavelength", wave.wavelength, 1e-4, big));
                wave.direction_degrees = static_cast<float>(w.Number("direction", wave.direction_degrees, -kAngleLimit, kAngleLimit));
                wave.speed = static_cast<float>(w.Number("speed", wave.speed, -big, big));
                wave.phase = static_cast<float>(w.Number("phase", wave.phase, -kAngleLimit, kAngleLimit));
                s.waves.push_back(wave);
            }
        }
        s.image_height = static_cast<float>(map.Number("image_height", s.image_height, -big, big));
        if (map.Has("image")) {
            const Resolved path = Resolve(map.Get("image"), "height-field image");
            s.image_path = path.absolute;
            const FileRead read = options_.files(path.absolute, kMaxImageBytes);
            if (read.status != FileRead::Status::ok) {
                Warn(r_.Where(map.Get("image")), Concat("height-field image \"", path.display, "\" ",
                                                         Describe(read.status, kMaxImageBytes), "; the surface stays flat there"));
            } else {
                auto image = std::make_shared<HeightImage>();
                image->path = path.absolute;
                std::string why;
                if (!DecodeHeightImage(read.bytes, image.get(), &why)) r_.Fail(map.Get("image"), Concat("height-field image \"", path.display, "\": ", why));
                s.image = image;
            }
        }
    }
    return s;
}

void Loader::LoadMesh(Object& object, const YAML::Node& node) {
    const Resolved path = Resolve(node, "mesh");
    object.is_mesh = true;
    object.mesh_path = path.absolute;
    auto found = meshes_.find(path.absolute);
    if (found == meshes_.end()) {
        const FileRead read = options_.files(path.absolute, kMaxObjBytes);
        if (read.status != FileRead::Status::ok)
            r_.Fail(node, Concat("mesh file \"", path.display, "\" ", Describe(read.status, kMaxObjBytes)));
        ObjMesh obj = ParseObj(read.bytes, path.display, options_.files);
        for (const std::string& w : obj.warnings) scene_.warnings.push_back(w);
        const int offset = static_cast<int>(scene_.materials.size());
        for (Material& m : obj.materials) {
            m.name = fs::path(path.display).filename().string() + "/" + m.name;
            if (!m.texture_path.empty()) m.texture = LoadTexture(m.texture_path, m.texture_path, {path.display, 0, 0});
            scene_.materials.push_back(m);
        }
        for (int& m : obj.mesh.triangle_materials)
            if (m >= 0) m += offset;
        found = meshes_.emplace(path.absolute, std::make_shared<const Mesh>(std::move(obj.mesh))).first;
    }
    object.mesh = found->second;
}

Object Loader::ReadObject(const YAML::Node& node, int index) {
    const MapReader map(r_, node, "object", {"name", "shape", "mesh", "material", "transform", "animation"});
    Object o;
    o.name = map.String("name", Concat("object ", index));
    if (map.Has("shape") == map.Has("mesh")) r_.Fail(node, "an object needs either a shape or a mesh (an OBJ file)");
    if (map.Has("material")) {
        const YAML::Node m = map.Get("material");
        const std::string name = r_.String(m, "object material");
        const auto found = material_index_.find(name);
        if (found == material_index_.end()) {
            std::vector<std::string> names;
            for (const auto& e : material_index_) names.push_back(e.first);
            r_.Fail(m, UnknownWordMessage("material", name, names));
        }
        o.material = found->second;
    }
    if (map.Has("transform")) {
        const MapReader t(r_, map.Get("transform"), "transform", {"translate", "rotate", "scale"});
        o.transform = ReadTransform(t, Transform());
    }
    if (map.Has("animation")) {
        o.animation = ReadKeys<TransformKey>(map.Get("animation"), "object animation", {"time", "translate", "rotate", "scale"},
                                             [&](const MapReader& key, TransformKey& k) { k.transform = ReadTransform(key, o.transform); });
    }
    std::size_t triangles = 0;
    if (map.Has("shape")) {
        o.shape = ReadShape(map.Get("shape"));
        triangles = ShapeTriangleCount(o.shape);
    } else {
        LoadMesh(o, map.Get("mesh"));
        triangles = o.mesh->TriangleCount();
    }
    triangles_ += triangles;
    if (triangles_ > options_.max_triangles)
        r_.Fail(node, Concat("the scene has more than ", options_.max_triangles, " triangles with this object (", triangles, ")"));
    if (!o.is_mesh) {
        o.animated_shape = ShapeIsAnimated(o.shape);
        o.mesh = std::make_shared<const Mesh>(GenerateShape(o.shape, 0.0));
    }
    return o;
}

void Loader::ReadObjects(const YAML::Node& node) {
    const YAML::Node list = r_.List(node, "objects", kMaxItems);
    for (std::size_t i = 0; i < list.size(); ++i) scene_.objects.push_back(ReadObject(list[i], static_cast<int>(i)));
}

void Loader::ReadEnvironment(const YAML::Node& node) {
    if (!node.IsMap() || !node["type"])
        r_.Fail(node, "expected an environment map with a type (constant, gradient, image)");
    Environment& e = scene_.environment;
    e.kind = static_cast<Environment::Kind>(Choose(r_, node["type"], "environment type", kEnvironmentTypes));
    static const std::vector<std::string> keys[] = {
        {"type", "color", "rotate", "intensity"},
        {"type", "horizon", "zenith", "rotate", "intensity"},
        {"type", "image", "rotate", "intensity"},
    };
    const std::string what = Concat(ToString(e.kind), " environment");
    const MapReader map(r_, node, what, keys[static_cast<int>(e.kind)]);
    const double brightest = 1e6;  // radiance, not an albedo: colours may exceed 1
    e.color = map.Color("color", e.color, brightest);
    e.horizon = map.Color("horizon", e.horizon, brightest);
    e.zenith = map.Color("zenith", e.zenith, brightest);
    e.rotate_degrees = static_cast<float>(map.Number("rotate", e.rotate_degrees, -kAngleLimit, kAngleLimit));
    e.intensity = static_cast<float>(map.Number("intensity", e.intensity, 0, 1e6));
    if (e.kind != Environment::Kind::image) return;
    if (!map.Has("image")) r_.Fail(node, "an image environment needs an image (.hdr, PNG or JPG)");
    const Resolved path = Resolve(map.Get("image"), "environment image");
    e.image_path = path.absolute;
    const FileRead read = options_.files(path.absolute, kMaxImageBytes);
    if (read.status != FileRead::Status::ok)
        r_.Fail(map.Get("image"),
                Concat("environment image \"", path.display, "\" ", Describe(read.status, kMaxImageBytes)));
    auto image = std::make_shared<EnvironmentImage>();
    image->path = path.absolute;
    std::string why;
    if (!DecodeEnvironmentImage(read.bytes, image.get(), &why))
        r_.Fail(map.Get("image"), Concat("environment image \"", path.display, "\": ", why));
    e.image = image;
}

Scene Loader::Load(const std::string& text) {
    scene_.path = r_.File();
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
        SourceLocation where{r_.File(), 0, 0};
        if (!e.mark.is_null()) {
            where.line = e.mark.line + 1;
            where.column = e.mark.column + 1;
        }
        ThrowInputError(where, Concat("malformed YAML: ", e.msg));
    }
    const MapReader map(r_, root, "the scene", {"camera", "settings", "materials", "lights", "objects", "environment"});
    if (map.Has("camera")) ReadCamera(map.Get("camera"));
    if (map.Has("settings")) ReadSettings(map.Get("settings"));
    if (map.Has("materials")) ReadMaterials(map.Get("materials"));
    if (map.Has("lights")) ReadLights(map.Get("lights"));
    if (map.Has("objects")) ReadObjects(map.Get("objects"));
    if (map.Has("environment")) ReadEnvironment(map.Get("environment"));
    // Triangles without a material (built-in shapes or OBJ faces without one) get a grey default.
    bool needs_default = false;
    for (const Object& o : scene_.objects) {
        if (o.material >= 0) continue;
        for (int m : o.mesh->triangle_materials) needs_default |= (m < 0);
    }
    if (needs_default) {
        Material grey;
        grey.name = "default";
        scene_.default_material = static_cast<int>(scene_.materials.size());
        scene_.materials.push_back(grey);
    }
    if (options_.print_warnings)
        for (const std::string& w : scene_.warnings) std::fprintf(stderr, "%s\n", w.c_str());
    return std::move(scene_);
}

}  // namespace

Scene LoadSceneFromString(const std::string& yaml, const std::string& virtual_path, const SceneLoadOptions& options) {
    if (yaml.size() > kMaxSceneBytes) ThrowInputError({virtual_path, 0, 0}, Concat("scene file larger than ", kMaxSceneBytes >> 20, " MiB"));
    Loader loader(virtual_path, options, yaml.size());
    try {
        return loader.Load(yaml);
    } catch (const YAML::Exception& e) {
        // Anything yaml-cpp throws while reading nodes is still a problem of the input.
        SourceLocation where{virtual_path, e.mark.is_null() ? 0 : e.mark.line + 1, e.mark.is_null() ? 0 : e.mark.column + 1};
        ThrowInputError(where, Concat("malformed YAML: ", e.msg));
    }
}

Scene LoadSceneFromString(const std::string& yaml, const std::string& virtual_path) {
    return LoadSceneFromString(yaml, virtual_path, SceneLoadOptions());
}

Scene LoadScene(const std::string& path) {
    const FileRead read = DiskFileSource()(path, kMaxSceneBytes);
    if (read.status != FileRead::Status::ok)
        ThrowInputError({path, 0, 0}, Concat("cannot read the scene file: ", Describe(read.status, kMaxSceneBytes)));
    return LoadSceneFromString(read.bytes, path);
}

Scene LoadSceneOrDefault(const std::string& path) {
    if (path.empty()) return LoadSceneFromString(BuiltinDefaultSceneYaml(), "<built-in>/ring.yaml");
    return LoadScene(path);
}

}  // namespace caustica
