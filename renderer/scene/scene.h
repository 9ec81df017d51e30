// A scene as loaded from YAML: what the file says, in the units it says it (metres, degrees,
// watts, seconds), plus the meshes and images it refers to. EvaluateScene (scene_eval.h) turns it
// into world-space geometry for one moment of the animation.
//
// Conventions: +Y is up; angles in files are degrees; colours are linear RGB in [0, 1] (texture
// images are sRGB and decoded by the renderer); light power is radiant flux in watts.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/sine_waves.h"
#include "core/tone_map.h"
#include "core/vec.h"

namespace caustica {

// ---- Transforms and animation -------------------------------------------------------------------

// A rotation as written in the file: Euler angles in degrees applied about x, then y, then z, or
// an angle in degrees about an axis. Kept in that form so that saving writes back what was read
// and so that keyframes can spin by more than half a turn.
struct Rotation {
    enum class Kind { euler, axis_angle };
    Kind kind = Kind::euler;
    Vec3 euler_degrees{0, 0, 0};
    Vec3 axis{0, 1, 0};  // unit length when kind == axis_angle
    float angle_degrees = 0;
};

// Applied as scale, then rotate, then translate.
struct Transform {
    Vec3 translate{0, 0, 0};
    Rotation rotate;
    Vec3 scale{1, 1, 1};
};

struct TransformKey {
    double time = 0;  // seconds
    Transform transform;
};

struct Vec3Key {
    double time = 0;  // seconds
    Vec3 value;
};

// How keyframes are joined: straight lines (the default), or a smooth curve through every key
// (cubic Hermite with Catmull-Rom velocities; at rest at the first and the last key).
enum class Interpolation { linear, smooth };

// A turn about the axis through 'center', instead of keyframes: the position at time t is the
// rest position turned by 360 t / period degrees about the axis (counter-clockwise seen from the
// axis's tip). Only the position moves; the orientation stays.
struct Orbit {
    bool enabled = false;
    Vec3 center{0, 0, 0};
    Vec3 axis{0, 1, 0};  // unit length
    double period = 1;   // seconds per turn
};

// ---- Camera, lights, materials ------------------------------------------------------------------

struct CameraKey {
    double time = 0;
    Vec3 position, look_at;
};

struct Camera {
    Vec3 position{0, 2, 5};
    Vec3 look_at{0, 0, 0};
    Vec3 up{0, 1, 0};
    float fov_degrees = 45;  // vertical field of view
    int width = 800, height = 600;
    // A thin lens: its diameter in metres (0: a pinhole, everything sharp) and the distance from
    // the camera, along the view direction, of the plane in focus (0: the distance to look_at, at
    // every moment of an animation).
    float aperture = 0;
    float focus_distance = 0;
    std::vector<CameraKey> animation;  // sorted by time; empty when still; overrides position/look_at
};

// Whether a view direction lies too close to the up direction to orient the image by (the
// loader refuses a still camera or a keyframe so; an animated camera may pass through it).
bool ViewAlongUp(Vec3 view, Vec3 up);

enum class LightType { point, spot, directional, rect, disc, sphere };

struct Light {
    std::string name;
    LightType type = LightType::point;
    Vec3 position{0, 5, 0};        // point and spot
    Vec3 direction{0, -1, 0};      // spot and directional (unit length), unless aimed at target
    bool aimed = false;            // spot/directional: direction = target - position at each time
    Vec3 target{0, 0, 0};
    float inner_angle_degrees = 20;  // spot: full intensity inside this half-angle
    float outer_angle_degrees = 30;  // spot: no light outside this half-angle
    float width = 0.5f, height = 0.5f;  // rect: along its x and z axes
    float radius = 0.25f;            // disc, sphere
    Rotation rotate;                 // rect, disc: turns the light, which faces -y unturned
    Rgb color{1, 1, 1};
    float power = 100;               // watts (rect, disc: a point light's that shines as brightly
                                     // straight ahead; docs/scenes.md)
    std::vector<Vec3Key> animation;  // positions over time, sorted; when present they override
                                     // 'position' (an editor moving the light edits the keys)
    Interpolation interpolation = Interpolation::linear;
    Orbit orbit;                     // when enabled (and no keys): 'position' turns about it
};

enum class MaterialType { diffuse, mirror, glass };

struct Checker {
    bool enabled = false;
    Rgb color_a{0.9f, 0.9f, 0.9f}, color_b{0.2f, 0.2f, 0.2f};
    float scale = 8;  // squares per unit of texture coordinate
};

// Glass whose index of refraction depends on the wavelength (docs/scenes.md): given by its Abbe
// number (with ior as n_d, the index at 587.6 nm) or by Cauchy's A and B, as written.
struct Dispersion {
    enum class Kind { none, abbe, cauchy };
    Kind kind = Kind::none;
    float abbe = 0;                 // abbe: V = (n_d - 1) / (n_F - n_C)
    float cauchy_a = 0, cauchy_b = 0;  // cauchy: n = A + B / l^2, l in micrometres (ior is then n_d of it)
};
bool operator==(const Dispersion& a, const Dispersion& b);

// n_d (at 587.6 nm) of Cauchy's n = A + B / l^2, l in micrometres.
float CauchyIndexD(float a, float b);

struct Material {
    std::string name;
    MaterialType type = MaterialType::diffuse;
    bool metal = false;           // a mirror written as "metal" (rendered alike, saved as written)
    Rgb color{0.8f, 0.8f, 0.8f};  // diffuse albedo or mirror tint
    std::string texture_path;     // diffuse: absolute path of a PNG/JPG image, or empty
    int texture = -1;             // index into Scene::textures, or -1 (none, or the file is missing)
    Checker checker;              // diffuse: procedural checkerboard instead of color
    float ior = 1.5f;             // glass: index of refraction (n_d when dispersive)
    Dispersion dispersion;        // glass
    Rgb absorption{0, 0, 0};      // glass: absorption coefficient per metre, per channel
};

// An image decoded to 8-bit RGBA (sRGB-encoded colour, as stored in the file), rows from the top.
struct Texture {
    std::string path;
    int width = 0, height = 0;
    std::vector<std::uint8_t> rgba;
};

// ---- The world beyond the scene -------------------------------------------------------------------

// An equirectangular image in linear RGB, rows from the top (the zenith).
struct EnvironmentImage {
    std::string path;
    int width = 0, height = 0;
    std::vector<Rgb> texels;
};

// What a ray that leaves the scene sees. It is not a light source (no photons, no direct light).
struct Environment {
    enum class Kind { constant, gradient, image };
    Kind kind = Kind::constant;
    Rgb color{0, 0, 0};            // constant
    Rgb horizon{0, 0, 0};          // gradient: at the horizon and below it
    Rgb zenith{0, 0, 0};           // gradient: straight up
    std::string image_path;        // image: absolute path of a .hdr, PNG or JPG file
    std::shared_ptr<const EnvironmentImage> image;
    float rotate_degrees = 0;      // turn about +y
    float intensity = 1;           // scales the radiance
};

// ---- Shapes and meshes ---------------------------------------------------------------------------

using Wave = SineWave;  // one wave of a height field (core/sine_waves.h)

// A greyscale image, row-major from the top, values in [0, 1].
struct HeightImage {
    std::string path;
    int width = 0, height = 0;
    std::vector<float> values;
};

// A built-in generated shape, in object space. Sizes are metres, counts are tessellation.
struct Shape {
    enum class Kind { plane, box, sphere, cylinder, ring, revolution, heightfield };
    Kind kind = Kind::plane;
    Vec3 size{1, 1, 1};          // plane: x and z; box: x, y, z; heightfield: x and z
    float radius = 0.5f;         // sphere, cylinder
    float inner_radius = 0.4f;   // ring
    float outer_radius = 0.5f;   // ring
    float height = 1;            // cylinder, ring: along y, centred at y = 0
    int segments = 64;           // around the y axis (sphere, cylinder, ring, revolution)
    int rings = 32;              // sphere: latitude bands
    bool caps = true;            // cylinder: closed ends
    std::vector<Vec2> profile;   // revolution: (radius, y) points, revolved about y
    int resolution_x = 64, resolution_z = 64;  // heightfield: quads along x and z
    std::vector<Wave> waves;     // heightfield
    std::string image_path;      // heightfield: optional greyscale image (absolute path)
    float image_height = 0.1f;   // heightfield: height of a white pixel, metres
    std::shared_ptr<const HeightImage> image;  // loaded image, or null when none/missing
};

// A triangle mesh in object space. Corner attributes hold three entries per triangle.
struct Mesh {
    std::vector<Vec3> positions;
    std::vector<std::uint32_t> indices;  // three per triangle, into positions
    std::vector<Vec3> corner_normals;    // unit shading normals
    std::vector<Vec2> corner_uvs;
    std::vector<int> triangle_materials; // scene material per triangle, or -1: the object's own
    std::size_t TriangleCount() const { return indices.size() / 3; }
};

struct Object {
    std::string name;
    bool is_mesh = false;        // true: a mesh file (OBJ or glTF); false: a built-in shape
    std::string mesh_path;       // absolute path of the mesh file
    Shape shape;
    int material = -1;           // index into Scene::materials; -1: the mesh's own (OBJ) materials
    Transform transform;                  // used when there is no animation
    std::vector<TransformKey> animation;  // sorted by time; empty when still; overrides transform
    Interpolation interpolation = Interpolation::linear;
    Orbit orbit;                          // when enabled (and no keys): the translation turns about it
    std::shared_ptr<const Mesh> mesh;     // object-space mesh (a mesh file's, or generated at time 0)
    bool animated_shape = false;          // heightfield whose waves move: regenerated per frame
};

struct Settings {
    // The ambient term of a scene that turns indirect light off and gives no ambient of its own.
    static constexpr float kAmbientWithoutIndirect = 0.02f;

    int photons = 1000000;  // per frame on the GPU; the CPU uses at most 100,000 unless asked
    int k = 50;
    Rgb ambient{0.0f, 0.0f, 0.0f};
    // Indirect light from the global photon map: on unless the file gives an ambient term (which
    // stood for it before) or says indirect: false.
    bool indirect = true;
    int global_photons = 250000;  // per sample on the GPU; the CPU uses at most 100,000 unless asked
    int global_k = 64;            // global photons per indirect estimate
    // Final gathering's rays per visible diffuse point and sample; 0: the indirect estimate is the
    // global map's density right at the point (cheap and smooth, for the viewer).
    int gather_rays = 0;
    // The viewer's edge-aware filter of indirect light (render and bench leave it off unless asked).
    bool denoise = true;
    // Progressive photon mapping: the estimates' radii shrink from sample to sample, as
    // r_{i+1}^2 = r_i^2 (i + alpha) / (i + 1); on, like indirect light, unless the file gives an
    // ambient term or says progressive: false.
    bool progressive = true;
    float alpha = 2.0f / 3.0f;
    int max_bounces = 8;
    int specular_splits = 3;  // bounces at which eye rays follow both branches at glass
    int shadow_samples = 4;   // shadow rays per diffuse point and area light in a sample
    double frame_rate = 30;  // frames per second for sequences
    double duration = 0;     // animation length in seconds; 0: the last keyframe's time
    ToneMap tone_map = ToneMap::None;  // of 8-bit images, after the exposure (EXR stays linear)
};

struct Scene {
    std::string path;  // the file it came from (for messages)
    Camera camera;
    Settings settings;
    std::vector<Material> materials;  // user materials first, then OBJ (MTL) ones, then default
    std::vector<Texture> textures;
    std::vector<Light> lights;
    std::vector<Object> objects;
    Environment environment;
    int user_materials = 0;     // materials[0, user_materials) came from the scene file
    int default_material = -1;  // grey diffuse for triangles with no material, or -1 if unused
    std::vector<std::string> warnings;  // from loading, compiler-style (not compared by ==)
    std::string header_comment;  // the file's opening comment lines, kept on saving (not compared)
};

// Structural equality of what a scene file says (meshes and images compare by their paths and
// shape parameters, not by their contents).
bool operator==(const Rotation& a, const Rotation& b);
bool operator==(const Transform& a, const Transform& b);
bool operator==(const Orbit& a, const Orbit& b);
bool operator==(const Camera& a, const Camera& b);
bool operator==(const Light& a, const Light& b);
bool operator==(const Material& a, const Material& b);
bool operator==(const Shape& a, const Shape& b);
bool operator==(const Object& a, const Object& b);
bool operator==(const Settings& a, const Settings& b);
bool operator==(const Environment& a, const Environment& b);
bool operator==(const Scene& a, const Scene& b);
inline bool operator!=(const Transform& a, const Transform& b) { return !(a == b); }
inline bool operator!=(const Camera& a, const Camera& b) { return !(a == b); }
inline bool operator!=(const Light& a, const Light& b) { return !(a == b); }
inline bool operator!=(const Material& a, const Material& b) { return !(a == b); }
inline bool operator!=(const Object& a, const Object& b) { return !(a == b); }
inline bool operator!=(const Scene& a, const Scene& b) { return !(a == b); }

const char* ToString(LightType type);
const char* ToString(MaterialType type);
const char* ToString(Interpolation interpolation);
// The material's type as a scene file writes it ("metal" for a mirror written so).
const char* TypeWord(const Material& material);
const char* ToString(Shape::Kind kind);
const char* ToString(Environment::Kind kind);

}  // namespace caustica
