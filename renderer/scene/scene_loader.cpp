#include "renderer/scene/scene_loader.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "core/error.h"
#include "renderer/scene/builtin_scene.h"
#include "renderer/scene/gltf_loader.h"
#include "renderer/scene/image_decode.h"
#include "renderer/scene/obj_loader.h"
#include "renderer/scene/shapes.h"
#include "renderer/scene/yaml_reader.h"

namespace caustica {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxSceneBytes = std::size_t(16) << 20;
constexpr std::size_t kMaxMeshBytes = std::size_t(512) << 20;
constexpr std::size_t kMaxImageBytes = std::size_t(256) << 20;
constexpr std::size_t kMaxItems = 10000;     // objects, lights, materials
constexpr std::size_t kMaxKeys = 100000;     // keyframes per animation
constexpr std::size_t kMaxWaves = 64;
constexpr double kCoordinateLimit = 1e6;     // metres
constexpr double kAngleLimit = 1e6;          // degrees
constexpr double kTimeLimit = 1e6;           // seconds
// Glass dispersion: real glasses have Abbe numbers of about 15 to 100 and Cauchy B below 0.05 um^2;
// from V = 1 up, the index stays above 1 over the visible range.
constexpr double kMinAbbe = 1, kMaxAbbe = 1000;
constexpr double kMaxCauchyB = 0.1;

const char* kMeshTypes = ".obj, .gltf, .glb";
const char* kSceneTypes = ".yaml, .yml, .gltf, .glb";

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

// A file name's extension in lower case (".obj" for "Part.OBJ").
std::string LowerExtension(const std::string& path) {
    std::string extension = fs::path(path).extension().string();
    for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return extension;
}

Aabb MeshBounds(const Mesh& mesh) {
    Aabb bounds;
    for (const Vec3& p : mesh.positions) bounds.Extend(p);
    return bounds;
}

// The comment lines that open the text (up to its first other line), without the blank lines
// after them: a scene's description, which saving keeps.
std::string HeaderComment(const std::string& text) {
    std::string header;
    std::size_t pos = 0, kept = 0;
    while (pos < text.size()) {
        const std::size_t end = std::min(text.find('\n', pos), text.size());
        const std::size_t first = text.find_first_not_of(" \t\r", pos);
        if (first < end && text[first] != '#') break;
        header.append(text, pos, end - pos);
        header += '\n';
        if (first < end) kept = header.size();
        pos = end + 1;
    }
    header.resize(kept);
    return header;
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
    // A glTF file as a scene: its meshes as one object, its camera and lights.
    Scene LoadGltf(const std::string& bytes);

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
    void CheckCameraPath(const std::vector<CameraKey>& keys, const YAML::Node& list) const;
    template <class Key, class ReadKey>
    std::vector<Key> ReadKeys(const YAML::Node& node, const std::string& what, const std::vector<std::string>& known,
                              ReadKey read_key) const;
    template <class Key, class ReadKey>
    void ReadAnimation(const YAML::Node& node, const std::string& what, const std::vector<std::string>& known,
                       ReadKey read_key, std::vector<Key>* keys, Interpolation* interpolation, Orbit* orbit) const;
    Orbit ReadOrbit(const YAML::Node& node, const std::string& what) const;
    void LoadMesh(Object& object, const YAML::Node& node);
    std::shared_ptr<const Mesh> AddMesh(const std::string& display, Mesh mesh, std::vector<Material> materials,
                                        std::vector<Texture> textures, const std::vector<std::string>& warnings,
                                        const std::vector<SourceLocation>& texture_lines = {});
    int LoadTexture(const std::string& path, const std::string& display, const SourceLocation& where);
    // A glass's dispersion map; Cauchy's A and B also set *ior (to n_d).
    Dispersion ReadDispersion(const MapReader& glass, float* ior);
    int AddTexture(Texture texture);
    Scene Finish();

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
    if (ViewAlongUp(view, up))
        r_.Fail(where, "camera up must not be parallel to the view direction (look_at - position)");
}

// Between two keyframes the camera's position and look_at move in straight lines, so the view
// vector look_at - position does too, and its closest approach to zero is exact. Where it reaches
// zero the view direction is undefined (and turns around): an error at the later keyframe. The
// tolerance grows with the coordinates, since frames interpolate in float.
void Loader::CheckCameraPath(const std::vector<CameraKey>& keys, const YAML::Node& list) const {
    for (std::size_t i = 1; i < keys.size(); ++i) {
        const CameraKey &a = keys[i - 1], &b = keys[i];
        double d0[3], step[3], scale = 1, along = 0, length = 0;
        for (int c = 0; c < 3; ++c) {
            d0[c] = double(a.look_at[c]) - a.position[c];
            step[c] = (double(b.look_at[c]) - b.position[c]) - d0[c];
            along += d0[c] * step[c];
            length += step[c] * step[c];
            for (const Vec3& p : {a.position, a.look_at, b.position, b.look_at})
                scale = std::max(scale, std::fabs(double(p[c])));
        }
        const double t = length > 0 ? std::min(1.0, std::max(0.0, -along / length)) : 0.0;
        double closest = 0;
        for (int c = 0; c < 3; ++c) closest += (d0[c] + t * step[c]) * (d0[c] + t * step[c]);
        if (std::sqrt(closest) <= 1e-6 * scale)
            r_.Fail(list[i], Concat("the camera reaches its look_at at ", a.time + t * (b.time - a.time),
                                    " s, between the keyframes at ", a.time, " and ", b.time,
                                    " s (the view direction is undefined there)"));
    }
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

// An animation: a list of keyframes (joined by straight lines), {keys: [...], interpolation:
// linear|smooth}, or {orbit: {center, axis, period}}.
template <class Key, class ReadKey>
void Loader::ReadAnimation(const YAML::Node& node, const std::string& what, const std::vector<std::string>& known,
                           ReadKey read_key, std::vector<Key>* keys, Interpolation* interpolation, Orbit* orbit) const {
    if (node.IsSequence()) {
        *keys = ReadKeys<Key>(node, what, known, read_key);
        return;
    }
    if (!node.IsMap())
        r_.Fail(node, Concat("expected ", what, " as a list of keyframes, {keys: [...], interpolation: linear|smooth} ",
                             "or {orbit: {center, axis, period}}"));
    const MapReader map(r_, node, what, {"keys", "interpolation", "orbit"});
    if (map.Has("keys") == map.Has("orbit")) r_.Fail(node, Concat(what, " needs either keys or an orbit, not both"));
    if (map.Has("orbit")) {
        if (map.Has("interpolation"))
            r_.Fail(map.Get("interpolation"), "an orbit has no interpolation: it is a circle");
        *orbit = ReadOrbit(map.Get("orbit"), what + " orbit");
        return;
    }
    *keys = ReadKeys<Key>(map.Get("keys"), what, known, read_key);
    if (map.Has("interpolation"))
        *interpolation = static_cast<Interpolation>(
            Choose(r_, map.Get("interpolation"), what + " interpolation", {"linear", "smooth"}));
}

Orbit Loader::ReadOrbit(const YAML::Node& node, const std::string& what) const {
    const MapReader map(r_, node, what, {"center", "axis", "period"});
    if (!map.Has("period")) r_.Fail(node, Concat(what, " needs a period (seconds per turn)"));
    Orbit orbit;
    orbit.enabled = true;
    orbit.center = map.Vector("center", orbit.center, kCoordinateLimit);
    const Vec3 axis = map.Vector("axis", orbit.axis, kCoordinateLimit);
    if (!(LengthSquared(axis) > 1e-12f)) r_.Fail(map.Get("axis"), "an orbit's axis must not be the zero vector");
    orbit.axis = UnitLength(axis);
    orbit.period = map.Number("period", orbit.period, 1e-3, kTimeLimit);
    return orbit;
}

void Loader::ReadCamera(const YAML::Node& node) {
    const MapReader map(r_, node, "camera",
                        {"position", "look_at", "up", "fov", "resolution", "aperture", "focus_distance", "animation"});
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
    c.aperture = static_cast<float>(map.Number("aperture", c.aperture, 0, kCoordinateLimit));
    if (map.Has("focus_distance")) {
        const YAML::Node focus = map.Get("focus_distance");
        const double distance = r_.Number(focus, "camera focus_distance", -kCoordinateLimit, kCoordinateLimit);
        if (!(distance > 0))
            r_.Fail(focus, Concat("camera focus_distance must be positive (metres from the camera), got ",
                                  focus.Scalar()));
        c.focus_distance = static_cast<float>(distance);
    }
    CheckCamera(map.Has("look_at") ? map.Get("look_at") : node, c.position, c.look_at, c.up);
    if (map.Has("animation")) {
        c.animation = ReadKeys<CameraKey>(map.Get("animation"), "camera animation", {"time", "position", "look_at"},
                                          [&](const MapReader& key, CameraKey& k) {
                                              k.position = key.Vector("position", c.position, kCoordinateLimit);
                                              k.look_at = key.Vector("look_at", c.look_at, kCoordinateLimit);
                                              CheckCamera(key.Node(), k.position, k.look_at, c.up);
                                          });
        CheckCameraPath(c.animation, map.Get("animation"));
    }
}

void Loader::ReadSettings(const YAML::Node& node) {
    const MapReader map(r_, node, "settings",
                        {"photons", "k", "ambient", "indirect", "global_photons", "global_k", "gather_rays", "denoise",
                         "progressive", "alpha",
                         "max_bounces", "specular_splits", "shadow_samples", "frame_rate", "duration", "tonemap"});
    Settings& s = scene_.settings;
    s.photons = map.Integer("photons", s.photons, 0, SceneLimits::kMaxPhotons);
    s.k = map.Integer("k", s.k, 1, SceneLimits::kMaxK);
    // An ambient term stood for indirect light before there was any: a scene that gives one keeps
    // its look (no indirect light, fixed-k estimates) unless it asks for the new ones.
    const bool ambient_given = map.Has("ambient");
    s.indirect = map.Boolean("indirect", !ambient_given);
    s.progressive = map.Boolean("progressive", !ambient_given);
    s.alpha = float(map.Number("alpha", s.alpha, 0.01, 1.0));
    s.ambient = map.Color("ambient", Rgb(s.indirect ? 0.0f : Settings::kAmbientWithoutIndirect), 1);
    s.global_photons = map.Integer("global_photons", s.global_photons, 0, SceneLimits::kMaxPhotons);
    s.global_k = map.Integer("global_k", s.global_k, 1, SceneLimits::kMaxK);
    s.gather_rays = map.Integer("gather_rays", s.gather_rays, 0, SceneLimits::kMaxGatherRays);
    s.denoise = map.Boolean("denoise", s.denoise);
    s.max_bounces = map.Integer("max_bounces", s.max_bounces, 0, SceneLimits::kMaxBounces);
    s.specular_splits = map.Integer("specular_splits", s.specular_splits, 0, SceneLimits::kMaxSpecularSplits);
    s.shadow_samples = map.Integer("shadow_samples", s.shadow_samples, 1, SceneLimits::kMaxShadowSamples);
    s.frame_rate = map.Number("frame_rate", s.frame_rate, 0.01, 1000);
    s.duration = map.Number("duration", s.duration, 0, kTimeLimit);
    if (map.Has("tonemap"))
        s.tone_map = static_cast<ToneMap>(Choose(r_, map.Get("tonemap"), "settings tonemap",
                                                 {std::begin(kToneMapNames), std::end(kToneMapNames)}));
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
        if (type == 3) known = {"type", "ior", "absorption", "dispersion"};
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
            m.metal = type == 2;
            m.color = map.Color("color", Rgb(1, 1, 1), 1);
        } else {
            m.type = MaterialType::glass;
            m.color = Rgb(1, 1, 1);
            m.ior = static_cast<float>(map.Number("ior", m.ior, 1, 4));
            m.absorption = map.Color("absorption", m.absorption, 1e6);
            if (map.Has("dispersion")) m.dispersion = ReadDispersion(map, &m.ior);
        }
        material_index_[name] = static_cast<int>(scene_.materials.size());
        scene_.materials.push_back(m);
    }
    scene_.user_materials = static_cast<int>(scene_.materials.size());
}

Dispersion Loader::ReadDispersion(const MapReader& glass, float* ior) {
    const YAML::Node node = glass.Get("dispersion");
    const std::string what = glass.What() + " dispersion";
    const MapReader map(r_, node, what, {"abbe", "cauchy"});
    if (map.Has("abbe") == map.Has("cauchy"))
        r_.Fail(node, Concat("expected one of abbe: V (with ior as n_d) or cauchy: [A, B] in ", what));
    Dispersion d;
    if (map.Has("abbe")) {
        d.kind = Dispersion::Kind::abbe;
        d.abbe = static_cast<float>(map.Number("abbe", 0, kMinAbbe, kMaxAbbe));
        return d;
    }
    if (glass.Has("ior"))
        r_.Fail(glass.Get("ior"), Concat(what, " cauchy: [A, B] gives the index; leave out ior"));
    const YAML::Node ab = map.Get("cauchy");
    const std::vector<double> v = r_.Numbers(ab, what + " cauchy [A, B]", 2, 0, 4);
    if (v[0] < 1) r_.Fail(ab[0], Concat(what, " cauchy A must be in [1, 4] (the index at long wavelengths)"));
    if (v[1] > kMaxCauchyB) r_.Fail(ab[1], Concat(what, " cauchy B must be in [0, ", kMaxCauchyB, "] (um^2)"));
    d.kind = Dispersion::Kind::cauchy;
    d.cauchy_a = static_cast<float>(v[0]);
    d.cauchy_b = static_cast<float>(v[1]);
    *ior = CauchyIndexD(d.cauchy_a, d.cauchy_b);
    if (*ior > 4) r_.Fail(ab, Concat(what, ": n_d = A + B / 0.5876^2 = ", *ior, " exceeds 4"));
    return d;
}

int Loader::LoadTexture(const std::string& path, const std::string& display, const SourceLocation& where) {
    const auto found = texture_index_.find(path);
    if (found != texture_index_.end()) return found->second;
    const FileRead read = options_.files(path, kMaxImageBytes);
    if (read.status != FileRead::Status::ok) {
        Warn(where, Concat("texture \"", display, "\" ", Describe(read, kMaxImageBytes), "; using the material's colour"));
        return -1;
    }
    Texture texture;
    texture.path = path;
    std::string why;
    if (!DecodeTexture(read.bytes, &texture, &why)) ThrowInputError(where, Concat("texture \"", display, "\": ", why));
    return AddTexture(std::move(texture));
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
        ReadAnimation<Vec3Key>(map.Get("animation"), what + " animation", {"time", "position"},
                               [&](const MapReader& key, Vec3Key& k) {
                                   k.value = key.Vector("position", l.position, kCoordinateLimit);
                                   if (l.aimed && !(LengthSquared(l.target - k.value) > 1e-12f))
                                       r_.Fail(key.Node(), "the light's position reaches its look_at");
                               },
                               &l.animation, &l.interpolation, &l.orbit);
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
                                                         Describe(read, kMaxImageBytes), "; the surface stays flat there"));
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
        const FileRead read = options_.files(path.absolute, kMaxMeshBytes);
        if (read.status != FileRead::Status::ok)
            r_.Fail(node, Concat("mesh file \"", path.display, "\" ", Describe(read, kMaxMeshBytes)));
        std::shared_ptr<const Mesh> mesh;
        if (IsGltfPath(path.display)) {
            GltfFile gltf = ParseGltf(read.bytes, path.display, options_.files, options_.max_triangles);
            mesh = AddMesh(path.display, std::move(gltf.mesh), std::move(gltf.materials), std::move(gltf.textures),
                           gltf.warnings);
        } else if (LowerExtension(path.display) == ".obj") {
            ObjMesh obj = ParseObj(read.bytes, path.display, options_.files);
            mesh = AddMesh(path.display, std::move(obj.mesh), std::move(obj.materials), {}, obj.warnings,
                           obj.texture_lines);
        } else {
            r_.Fail(node, Concat("mesh file \"", path.display, "\": unsupported type \"",
                                 fs::path(path.display).extension().string(), "\" (supported: ", kMeshTypes, ")"));
        }
        found = meshes_.emplace(path.absolute, mesh).first;
    }
    object.mesh = found->second;
}

// A mesh file's mesh and materials join the scene: its materials after those there are, named
// "FILE/MATERIAL"; their textures are a glTF file's decoded images ('textures'), or an OBJ file's
// image files, read here (a bad one reported at its line in the MTL file, 'texture_lines').
std::shared_ptr<const Mesh> Loader::AddMesh(const std::string& display, Mesh mesh, std::vector<Material> materials,
                                            std::vector<Texture> textures, const std::vector<std::string>& warnings,
                                            const std::vector<SourceLocation>& texture_lines) {
    for (const std::string& w : warnings) scene_.warnings.push_back(w);
    const int offset = static_cast<int>(scene_.materials.size());
    for (std::size_t i = 0; i < materials.size(); ++i) {
        Material& m = materials[i];
        m.name = fs::path(display).filename().string() + "/" + m.name;
        if (m.texture >= 0) {
            m.texture = AddTexture(std::move(textures[m.texture]));
        } else if (!m.texture_path.empty()) {
            const SourceLocation where = i < texture_lines.size() ? texture_lines[i] : SourceLocation{display, 0, 0};
            m.texture = LoadTexture(m.texture_path, m.texture_path, where);
        }
        scene_.materials.push_back(m);
    }
    for (int& m : mesh.triangle_materials)
        if (m >= 0) m += offset;
    return std::make_shared<const Mesh>(std::move(mesh));
}

int Loader::AddTexture(Texture texture) {
    const auto found = texture_index_.find(texture.path);
    if (found != texture_index_.end()) return found->second;
    const int index = static_cast<int>(scene_.textures.size());
    texture_index_[texture.path] = index;
    scene_.textures.push_back(std::move(texture));
    return index;
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
        ReadAnimation<TransformKey>(
            map.Get("animation"), "object animation", {"time", "translate", "rotate", "scale"},
            [&](const MapReader& key, TransformKey& k) { k.transform = ReadTransform(key, o.transform); }, &o.animation,
            &o.interpolation, &o.orbit);
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

// The place of a byte in the text, counting lines as yaml-cpp does.
SourceLocation PlaceOf(const std::string& file, const std::string& text, std::size_t offset) {
    SourceLocation where{file, 1, 1};
    for (std::size_t i = 0; i < offset; ++i) {
        if (text[i] == '\n') {
            ++where.line;
            where.column = 1;
        } else {
            ++where.column;
        }
    }
    return where;
}

// Where a second YAML document starts, or a location without a line when there is none: a "---"
// line after content, or content after a "..." line. (yaml-cpp's LoadAll, which would count the
// documents, loops forever on some malformed text, such as a lone ",".)
SourceLocation SecondDocument(const std::string& file, const std::string& text) {
    bool content = false, ended = false;
    for (std::size_t at = 0; at < text.size();) {
        std::size_t end = text.find('\n', at);
        if (end == std::string::npos) end = text.size();
        const std::string line = text.substr(at, end - at);
        const auto marker = [&](const char* m) {
            return line.compare(0, 3, m) == 0 && (line.size() == 3 || std::isspace(static_cast<unsigned char>(line[3])));
        };
        const bool starts = marker("---"), ends = marker("...");
        const std::string rest = starts || ends ? line.substr(3) : line;
        const std::size_t first = rest.find_first_not_of(" \t\r");
        const bool has_content = first != std::string::npos && rest[first] != '#' && (starts || rest[first] != '%');
        if ((starts && content) || (has_content && ended)) return PlaceOf(file, text, at);
        content |= has_content;
        ended |= ends && content;
        at = end + 1;
    }
    return {file, 0, 0};
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
                Concat("environment image \"", path.display, "\" ", Describe(read, kMaxImageBytes)));
    auto image = std::make_shared<EnvironmentImage>();
    image->path = path.absolute;
    std::string why;
    if (!DecodeEnvironmentImage(read.bytes, image.get(), &why))
        r_.Fail(map.Get("image"), Concat("environment image \"", path.display, "\": ", why));
    e.image = image;
}

Scene Loader::Load(const std::string& text) {
    scene_.path = r_.File();
    // yaml-cpp reads a NUL byte as the end of the text or as a bad escape; it is no text at all.
    const std::size_t nul = text.find('\0');
    if (nul != std::string::npos) ThrowInputError(PlaceOf(r_.File(), text, nul), "a NUL byte: this is not a text file");
    scene_.header_comment = HeaderComment(text);
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
        SourceLocation where{r_.File(), 0, 0};
        if (!e.mark.is_null()) {
            where.line = e.mark.line + 1;
            where.column = e.mark.column + 1;
        }
        // yaml-cpp's message for its depth limit is "bad file".
        const auto* deep = dynamic_cast<const YAML::DeepRecursion*>(&e);
        ThrowInputError(where, deep ? Concat("malformed YAML: nested more than ", deep->depth(), " levels deep")
                                    : Concat("malformed YAML: ", e.msg));
    }
    const SourceLocation second = SecondDocument(r_.File(), text);
    if (second.line > 0) ThrowInputError(second, "a second YAML document (after --- or ...): a scene file holds one");
    const MapReader map(r_, root, "the scene", {"camera", "settings", "materials", "lights", "objects", "environment"});
    if (map.Has("camera")) ReadCamera(map.Get("camera"));
    if (map.Has("settings")) ReadSettings(map.Get("settings"));
    if (map.Has("materials")) ReadMaterials(map.Get("materials"));
    if (map.Has("lights")) ReadLights(map.Get("lights"));
    if (map.Has("objects")) ReadObjects(map.Get("objects"));
    if (map.Has("environment")) ReadEnvironment(map.Get("environment"));
    return Finish();
}

Scene Loader::LoadGltf(const std::string& bytes) {
    scene_.path = r_.File();
    GltfFile gltf = ParseGltf(bytes, r_.File(), options_.files, options_.max_triangles);
    Object o;
    o.name = fs::path(r_.File()).stem().string();
    o.is_mesh = true;
    o.mesh_path = (absolute_dir_ / fs::path(r_.File()).filename()).lexically_normal().string();
    o.mesh =
        AddMesh(r_.File(), std::move(gltf.mesh), std::move(gltf.materials), std::move(gltf.textures), gltf.warnings);
    meshes_.emplace(o.mesh_path, o.mesh);
    scene_.objects.push_back(std::move(o));
    scene_.camera = gltf.camera;
    scene_.lights = std::move(gltf.lights);
    if (scene_.lights.empty()) {
        // A scene without light shows nothing: a lamp above the mesh, at about the irradiance of
        // the shipped scenes' lamps (1 W/m^2 at the mesh's centre).
        const Aabb bounds = MeshBounds(*scene_.objects[0].mesh);
        Light lamp;
        lamp.name = "added lamp";
        const float height = std::max(Length(bounds.Extent()), 1e-3f);
        lamp.position = bounds.Center() + Vec3(0.3f, 1.0f, 0.5f) * height;
        const float distance = Length(lamp.position - bounds.Center());
        lamp.power = std::min(4.0f * 3.14159265f * distance * distance, 1e9f);
        scene_.lights.push_back(lamp);
        scene_.warnings.push_back(Concat(r_.File(), ": warning: the file has no lights (KHR_lights_punctual); added a ",
                                         "point light above the mesh (save the scene to keep or change it)"));
    }
    return Finish();
}

Scene Loader::Finish() {
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
    const std::string extension = fs::path(path).extension().string();
    const bool gltf = IsGltfPath(path);
    if (!gltf && LowerExtension(path) != ".yaml" && LowerExtension(path) != ".yml")
        ThrowInputError({path, 0, 0},
                        Concat(extension.empty() ? std::string("a scene file name needs its type's extension")
                                                 : Concat("unsupported scene file type \"", extension, "\""),
                               " (supported: ", kSceneTypes, ")"));
    const std::size_t limit = gltf ? kMaxMeshBytes : kMaxSceneBytes;
    const FileRead read = DiskFileSource()(path, limit);
    if (read.status != FileRead::Status::ok)
        ThrowInputError({path, 0, 0}, Concat("cannot read the scene file: ",
                                             read.error.empty() ? Describe(read, limit) : read.error));
    if (!gltf) return LoadSceneFromString(read.bytes, path);
    const SceneLoadOptions options;
    return Loader(path, options, 0).LoadGltf(read.bytes);
}

Scene LoadSceneOrDefault(const std::string& path) {
    if (path.empty()) return LoadSceneFromString(BuiltinDefaultSceneYaml(), "<built-in>/ring.yaml");
    return LoadScene(path);
}

}  // namespace caustica
