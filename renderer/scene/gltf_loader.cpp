#include "renderer/scene/gltf_loader.h"

#include <tiny_gltf.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "core/error.h"
#include "renderer/scene/image_decode.h"
#include "renderer/scene/transform.h"

namespace caustica {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxBufferBytes = std::size_t(512) << 20;
constexpr int kMaxNodeDepth = 256;
constexpr double kPi = 3.14159265358979323846;
// Luminous efficacy of 555 nm light, lumens per watt: glTF lights are photometric (candela, lux),
// Caustica's radiometric (watts).
constexpr double kLumensPerWatt = 683;

bool EndsWithNoCase(const std::string& s, const std::string& suffix) {
    if (s.size() < suffix.size()) return false;
    for (std::size_t i = 0; i < suffix.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(s[s.size() - suffix.size() + i])) != suffix[i]) return false;
    return true;
}

// tinygltf reads external buffers and images through these, so they come through the FileSource.
struct FileAccess {
    const FileSource* files;
};

bool AnyFileExists(const std::string&, void*) { return true; }  // the read says whether it does
std::string SamePath(const std::string& path, void*) { return path; }
bool ReadThroughSource(std::vector<unsigned char>* out, std::string* err, const std::string& path, void* user) {
    const FileRead read = (*static_cast<FileAccess*>(user)->files)(path, kMaxBufferBytes);
    if (read.status != FileRead::Status::ok) {
        *err = Describe(read, kMaxBufferBytes);
        return false;
    }
    out->assign(read.bytes.begin(), read.bytes.end());
    return true;
}
bool NoWrites(std::string* err, const std::string&, const std::vector<unsigned char>&, void*) {
    *err = "writing is not supported";
    return false;
}

// Keeps an image's encoded bytes for decoding later (only the images that materials use are
// decoded, by the project's decoder). Images in a buffer view are read later, after their view is
// checked against its buffer: tinygltf hands their bytes over unchecked.
bool KeepEncodedImage(tinygltf::Image* image, const int, std::string*, std::string*, int, int,
                      const unsigned char* bytes, int size, void*) {
    if (image->bufferView == -1) image->image.assign(bytes, bytes + size);
    image->as_is = true;
    return true;
}

std::string Trimmed(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    for (char& c : s)
        if (c == '\n') c = ';';
    return s;
}

class GltfReader {
public:
    GltfReader(const tinygltf::Model& model, const std::string& path, const FileSource& files,
               std::size_t max_triangles)
        : m_(model), path_(path), files_(files), max_triangles_(max_triangles) {}

    GltfFile Read();

private:
    // A checked view of an accessor's elements.
    struct Elements {
        const unsigned char* data = nullptr;
        std::size_t stride = 0, count = 0;
        int component_type = 0, components = 0;
        bool normalized = false;
        double Get(std::size_t i, int c) const;
    };

    [[noreturn]] void Fail(const std::string& where, const std::string& what) const {
        ThrowInputError({path_, 0, 0}, Concat(where, ": ", what));
    }
    void Warn(const std::string& what) { out_.warnings.push_back(Concat(path_, ": warning: ", what)); }
    const unsigned char* ViewBytes(int view, const std::string& where, std::size_t* length) const;
    Elements Accessor(int index, const std::string& where, const std::vector<int>& types,
                      const std::vector<int>& component_types) const;
    Affine NodeMatrix(const tinygltf::Node& node, const std::string& where) const;
    void VisitNode(int index, const Affine& parent, int depth);
    void AddPrimitive(const tinygltf::Primitive& p, const Affine& world, const std::string& where);
    void AddCamera(const tinygltf::Camera& camera, const Affine& world, const std::string& where);
    void AddLight(int index, const Affine& world, const std::string& where);
    Material ToMaterial(int index);
    int TextureFor(const tinygltf::TextureInfo& info, const std::string& where);
    void FinishCamera();

    const tinygltf::Model& m_;
    std::string path_;
    const FileSource& files_;
    std::size_t max_triangles_;
    GltfFile out_;
    std::vector<char> visited_;
    std::vector<int> texture_of_image_;    // image -> index into out_.textures, -1 not yet decoded
    std::vector<int> directional_lights_;  // their power needs the mesh's bounds
    std::vector<double> directional_lux_;
    std::size_t degenerate_ = 0;
    bool camera_seen_ = false;
};

double GltfReader::Elements::Get(std::size_t i, int c) const {
    const unsigned char* p = data + i * stride;
    switch (component_type) {
        case TINYGLTF_COMPONENT_TYPE_FLOAT: {
            float v;
            std::memcpy(&v, p + 4 * c, 4);
            return v;
        }
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return normalized ? p[c] / 255.0 : p[c];
        case TINYGLTF_COMPONENT_TYPE_BYTE: {
            const double v = static_cast<signed char>(p[c]);
            return normalized ? std::max(v / 127.0, -1.0) : v;
        }
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
            std::uint16_t v;
            std::memcpy(&v, p + 2 * c, 2);
            return normalized ? v / 65535.0 : v;
        }
        case TINYGLTF_COMPONENT_TYPE_SHORT: {
            std::int16_t v;
            std::memcpy(&v, p + 2 * c, 2);
            return normalized ? std::max(v / 32767.0, -1.0) : v;
        }
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: {
            std::uint32_t v;
            std::memcpy(&v, p + 4 * c, 4);
            return v;
        }
    }
    return 0;
}

const unsigned char* GltfReader::ViewBytes(int view, const std::string& where, std::size_t* length) const {
    if (view < 0 || static_cast<std::size_t>(view) >= m_.bufferViews.size())
        Fail(where, Concat("buffer view ", view, " does not exist (the file has ", m_.bufferViews.size(), ")"));
    const tinygltf::BufferView& v = m_.bufferViews[view];
    const std::string at = Concat("bufferViews[", view, "]");
    if (v.buffer < 0 || static_cast<std::size_t>(v.buffer) >= m_.buffers.size())
        Fail(at, Concat("buffer ", v.buffer, " does not exist (the file has ", m_.buffers.size(), ")"));
    const std::size_t size = m_.buffers[v.buffer].data.size();
    if (v.byteOffset > size || v.byteLength > size - v.byteOffset)
        Fail(at, Concat("bytes ", v.byteOffset, " to ", v.byteOffset + v.byteLength, " lie outside buffer ", v.buffer,
                        " (", size, " bytes)"));
    *length = v.byteLength;
    return m_.buffers[v.buffer].data.data() + v.byteOffset;
}

GltfReader::Elements GltfReader::Accessor(int index, const std::string& where, const std::vector<int>& types,
                                          const std::vector<int>& component_types) const {
    if (index < 0 || static_cast<std::size_t>(index) >= m_.accessors.size())
        Fail(where, Concat("accessor ", index, " does not exist (the file has ", m_.accessors.size(), ")"));
    const tinygltf::Accessor& a = m_.accessors[index];
    const std::string at = Concat("accessors[", index, "]");
    if (a.sparse.isSparse) Fail(at, "sparse accessors are not supported");
    if (a.bufferView < 0) Fail(at, "an accessor without a bufferView is not supported");
    if (std::find(types.begin(), types.end(), a.type) == types.end())
        Fail(at, Concat("unexpected type for ", where, " (expected ",
                        types[0] == TINYGLTF_TYPE_SCALAR ? "SCALAR"
                        : types[0] == TINYGLTF_TYPE_VEC2 ? "VEC2"
                                                         : "VEC3",
                        ")"));
    if (std::find(component_types.begin(), component_types.end(), a.componentType) == component_types.end())
        Fail(at, Concat("unsupported componentType ", a.componentType, " for ", where));
    std::size_t length = 0;
    const unsigned char* bytes = ViewBytes(a.bufferView, at, &length);
    Elements e;
    e.component_type = a.componentType;
    e.components = tinygltf::GetNumComponentsInType(static_cast<uint32_t>(a.type));
    e.normalized = a.normalized;
    e.count = a.count;
    const int stride = a.ByteStride(m_.bufferViews[a.bufferView]);
    const std::size_t element = static_cast<std::size_t>(
        tinygltf::GetComponentSizeInBytes(static_cast<uint32_t>(a.componentType)) * e.components);
    if (stride <= 0 || static_cast<std::size_t>(stride) < element) Fail(at, Concat("invalid byteStride ", stride));
    e.stride = static_cast<std::size_t>(stride);
    if (e.count == 0) Fail(at, "count must be at least 1");
    // The last element must end inside the view (written so that nothing overflows).
    if (a.byteOffset > length || element > length - a.byteOffset ||
        (e.count - 1) > (length - a.byteOffset - element) / e.stride)
        Fail(at, Concat(e.count, " elements from byte ", a.byteOffset, " do not fit in bufferViews[", a.bufferView,
                        "] (", length, " bytes)"));
    e.data = bytes + a.byteOffset;
    return e;
}

Affine GltfReader::NodeMatrix(const tinygltf::Node& node, const std::string& where) const {
    auto finite = [&](const std::vector<double>& v, std::size_t n, const char* what) {
        if (v.empty()) return false;
        if (v.size() != n) Fail(where, Concat(what, " needs ", n, " numbers, not ", v.size()));
        for (double x : v)
            if (!std::isfinite(x) || std::fabs(x) > 1e9)
                Fail(where, Concat(what, " must be finite numbers of at most 1e9"));
        return true;
    };
    if (finite(node.matrix, 16, "matrix")) {
        const std::vector<double>& c = node.matrix;  // column-major
        if (c[3] != 0 || c[7] != 0 || c[11] != 0 || c[15] != 1)
            Fail(where, "matrix must be affine (last row 0, 0, 0, 1)");
        Affine a;
        for (int r = 0; r < 3; ++r) a.rows[r] = Vec3(float(c[r]), float(c[4 + r]), float(c[8 + r]));
        a.t = Vec3(float(c[12]), float(c[13]), float(c[14]));
        return a;
    }
    Vec3 t(0.0f), s(1.0f);
    Quaternion q;
    if (finite(node.translation, 3, "translation"))
        t = Vec3(float(node.translation[0]), float(node.translation[1]), float(node.translation[2]));
    if (finite(node.scale, 3, "scale")) s = Vec3(float(node.scale[0]), float(node.scale[1]), float(node.scale[2]));
    if (finite(node.rotation, 4, "rotation")) {
        const std::vector<double>& r = node.rotation;  // x, y, z, w
        const double norm = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
        if (!(norm > 1e-6)) Fail(where, "rotation must be a unit quaternion");
        q = {float(r[3] / norm), float(r[0] / norm), float(r[1] / norm), float(r[2] / norm)};
    }
    return ToAffine(t, q, s);
}

void GltfReader::VisitNode(int index, const Affine& parent, int depth) {
    const std::string where = Concat("nodes[", index, "]");
    if (index < 0 || static_cast<std::size_t>(index) >= m_.nodes.size())
        Fail(where, Concat("node ", index, " does not exist (the file has ", m_.nodes.size(), ")"));
    if (visited_[index]) Fail(where, "the node is reached twice (a node has at most one parent, and no cycles)");
    if (depth > kMaxNodeDepth) Fail(where, Concat("nodes nest deeper than ", kMaxNodeDepth, " levels"));
    visited_[index] = 1;
    const tinygltf::Node& node = m_.nodes[index];
    const Affine world = Compose(parent, NodeMatrix(node, where));
    if (node.mesh >= 0) {
        if (static_cast<std::size_t>(node.mesh) >= m_.meshes.size())
            Fail(where, Concat("mesh ", node.mesh, " does not exist (the file has ", m_.meshes.size(), ")"));
        const tinygltf::Mesh& mesh = m_.meshes[node.mesh];
        for (std::size_t p = 0; p < mesh.primitives.size(); ++p)
            AddPrimitive(mesh.primitives[p], world, Concat("meshes[", node.mesh, "].primitives[", p, "]"));
    }
    if (node.camera >= 0) {
        if (static_cast<std::size_t>(node.camera) >= m_.cameras.size())
            Fail(where, Concat("camera ", node.camera, " does not exist (the file has ", m_.cameras.size(), ")"));
        AddCamera(m_.cameras[node.camera], world, Concat("cameras[", node.camera, "]"));
    }
    const auto light = node.extensions.find("KHR_lights_punctual");
    if (light != node.extensions.end()) {
        const tinygltf::Value& v = light->second;
        if (!v.IsObject() || !v.Get("light").IsNumber())
            Fail(where + ".extensions.KHR_lights_punctual", "expected {\"light\": index}");
        AddLight(v.Get("light").GetNumberAsInt(), world, where + ".extensions.KHR_lights_punctual");
    }
    for (int child : node.children) VisitNode(child, world, depth + 1);
}

void GltfReader::AddPrimitive(const tinygltf::Primitive& p, const Affine& world, const std::string& where) {
    const int mode = p.mode < 0 ? TINYGLTF_MODE_TRIANGLES : p.mode;
    if (mode != TINYGLTF_MODE_TRIANGLES && mode != TINYGLTF_MODE_TRIANGLE_STRIP && mode != TINYGLTF_MODE_TRIANGLE_FAN) {
        Warn(Concat(where, ": mode ", mode, " (points or lines) has no triangles; skipped"));
        return;
    }
    const auto position = p.attributes.find("POSITION");
    if (position == p.attributes.end()) Fail(where, "a primitive needs a POSITION attribute");
    const Elements positions = Accessor(position->second, where + ".attributes.POSITION", {TINYGLTF_TYPE_VEC3},
                                        {TINYGLTF_COMPONENT_TYPE_FLOAT});
    const std::size_t vertex_count = positions.count;
    auto attribute = [&](const char* name, int type, const std::vector<int>& components, Elements* e) {
        const auto found = p.attributes.find(name);
        if (found == p.attributes.end()) return false;
        const std::string at = Concat(where, ".attributes.", name);
        *e = Accessor(found->second, at, {type}, components);
        if (e->count != vertex_count) Fail(at, Concat(e->count, " values for ", vertex_count, " positions"));
        return true;
    };
    Elements normals, uvs;
    const bool has_normals = attribute("NORMAL", TINYGLTF_TYPE_VEC3, {TINYGLTF_COMPONENT_TYPE_FLOAT}, &normals);
    const bool has_uvs = attribute(
        "TEXCOORD_0", TINYGLTF_TYPE_VEC2,
        {TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT},
        &uvs);
    int material = -1;
    if (p.material >= 0) {
        if (static_cast<std::size_t>(p.material) >= m_.materials.size())
            Fail(where, Concat("material ", p.material, " does not exist (the file has ", m_.materials.size(), ")"));
        material = p.material;
    }
    // The corners in drawing order, then the triangles of the mode.
    // Limits first, so that a hostile count allocates nothing: the triangles the corners make,
    // and at most three vertices a triangle.
    const std::string at = where + ".indices";
    Elements indices;
    if (p.indices >= 0)
        indices = Accessor(p.indices, at, {TINYGLTF_TYPE_SCALAR},
                           {TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT,
                            TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT});
    const std::size_t corner_count = p.indices >= 0 ? indices.count : vertex_count;
    const std::size_t triangle_count = mode == TINYGLTF_MODE_TRIANGLES ? corner_count / 3
                                       : corner_count >= 3             ? corner_count - 2
                                                                       : 0;
    if (out_.mesh.TriangleCount() + triangle_count > max_triangles_ || vertex_count > 3 * max_triangles_)
        Fail(where, Concat("the file has more than ", max_triangles_, " triangles"));
    std::vector<std::uint32_t> corners;
    if (p.indices >= 0) {
        const Elements& e = indices;
        corners.resize(e.count);
        for (std::size_t i = 0; i < e.count; ++i) {
            const double v = e.Get(i, 0);
            if (v >= static_cast<double>(vertex_count))
                Fail(at, Concat("index ", v, " at position ", i, " is out of range (", vertex_count, " vertices)"));
            corners[i] = static_cast<std::uint32_t>(v);
        }
    } else {
        corners.resize(vertex_count);
        for (std::size_t i = 0; i < vertex_count; ++i) corners[i] = static_cast<std::uint32_t>(i);
    }
    std::vector<std::array<std::uint32_t, 3>> triangles;
    if (mode == TINYGLTF_MODE_TRIANGLES) {
        if (corners.size() % 3 != 0) Fail(where, Concat(corners.size(), " corners do not make whole triangles"));
        for (std::size_t i = 0; i + 2 < corners.size(); i += 3)
            triangles.push_back({corners[i], corners[i + 1], corners[i + 2]});
    } else {
        for (std::size_t i = 2; i < corners.size(); ++i) {
            if (mode == TINYGLTF_MODE_TRIANGLE_FAN)
                triangles.push_back({corners[0], corners[i - 1], corners[i]});
            else if (i % 2 == 0)
                triangles.push_back({corners[i - 2], corners[i - 1], corners[i]});
            else
                triangles.push_back({corners[i - 1], corners[i - 2], corners[i]});  // keeps the winding
        }
    }
    Mesh& mesh = out_.mesh;

    const std::uint32_t base = static_cast<std::uint32_t>(mesh.positions.size());
    for (std::size_t v = 0; v < vertex_count; ++v) {
        const Vec3 local(float(positions.Get(v, 0)), float(positions.Get(v, 1)), float(positions.Get(v, 2)));
        const Vec3 p = world.Point(local);
        if (!IsFinite(local) || !IsFinite(p) || std::fabs(p.x) > 1e9f || std::fabs(p.y) > 1e9f || std::fabs(p.z) > 1e9f)
            Fail(where + ".attributes.POSITION",
                 Concat("vertex ", v, " is not a finite point within 1e9 of the origin"));
        mesh.positions.push_back(p);
    }
    const ObjectPlacement placement = ToPlacement(world);
    for (std::array<std::uint32_t, 3> t : triangles) {
        // A mirroring transform turns the winding: swap two corners back.
        if (placement.mirrored) std::swap(t[1], t[2]);
        const Vec3 a = mesh.positions[base + t[0]], b = mesh.positions[base + t[1]], c = mesh.positions[base + t[2]];
        const Vec3 face = Cross(b - a, c - a);
        if (!(LengthSquared(face) > 0) || !IsFinite(face)) {
            ++degenerate_;
            continue;
        }
        for (std::uint32_t k : t) {
            mesh.indices.push_back(base + k);
            // Without normals in the file, glTF asks for flat ones.
            Vec3 n = Normalize(face);
            if (has_normals) {
                const Vec3 given(float(normals.Get(k, 0)), float(normals.Get(k, 1)), float(normals.Get(k, 2)));
                if (IsFinite(given) && LengthSquared(given) > 1e-30f) n = placement.Normal(given);
            }
            mesh.corner_normals.push_back(n);
            // glTF's v runs down the image, Caustica's (as OBJ's) up.
            mesh.corner_uvs.push_back(has_uvs ? Vec2(float(uvs.Get(k, 0)), 1.0f - float(uvs.Get(k, 1))) : Vec2(0, 0));
        }
        mesh.triangle_materials.push_back(material);
    }
}

void GltfReader::AddCamera(const tinygltf::Camera& camera, const Affine& world, const std::string& where) {
    if (camera_seen_) return;  // the first camera is the view
    camera_seen_ = true;
    if (camera.type != "perspective") {
        Warn(Concat(where, ": an ", camera.type, " camera is not supported (perspective only); using a default view"));
        return;
    }
    const double yfov = camera.perspective.yfov * 180.0 / kPi;
    if (!std::isfinite(yfov) || yfov < 1 || yfov > 179)
        Fail(where, Concat("yfov must be 1 to 179 degrees, got ", yfov));
    Camera& c = out_.camera;
    c.fov_degrees = static_cast<float>(yfov);
    const double aspect = camera.perspective.aspectRatio;
    if (std::isfinite(aspect) && aspect > 0)
        c.width = std::clamp(static_cast<int>(std::lround(c.height * aspect)), 1, 16384);
    // A glTF camera looks down its -z axis with +y up; its look-at point is placed in FinishCamera.
    c.position = world.t;
    const Vec3 forward = -world.Direction(Vec3(0, 0, 1)), up = world.Direction(Vec3(0, 1, 0));
    if (!(LengthSquared(forward) > 1e-12f) || !(LengthSquared(Cross(forward, up)) > 1e-12f))
        Fail(where, "the camera's node transform flattens its view");
    c.look_at = c.position + Normalize(forward);
    c.up = Normalize(up);
    out_.has_camera = true;
}

void GltfReader::AddLight(int index, const Affine& world, const std::string& where) {
    if (index < 0 || static_cast<std::size_t>(index) >= m_.lights.size())
        Fail(where, Concat("light ", index, " does not exist (the file has ", m_.lights.size(), ")"));
    const tinygltf::Light& g = m_.lights[index];
    const std::string at = Concat("extensions.KHR_lights_punctual.lights[", index, "]");
    Light l;
    l.name = !g.name.empty() ? g.name : Concat("light ", out_.lights.size());
    if (!g.color.empty()) {
        if (g.color.size() != 3) Fail(at, "color needs 3 numbers");
        for (double c : g.color)
            if (!std::isfinite(c) || c < 0 || c > 1) Fail(at, "color values must be 0 to 1");
        l.color = Rgb(float(g.color[0]), float(g.color[1]), float(g.color[2]));
    }
    if (!std::isfinite(g.intensity) || g.intensity < 0 || g.intensity > 1e12) Fail(at, "intensity must be 0 to 1e12");
    l.position = world.t;
    const Vec3 direction = -world.Direction(Vec3(0, 0, 1));  // lights shine down their -z axis
    if (g.type != "point") {
        if (!(LengthSquared(direction) > 1e-12f)) Fail(where, "the light's node transform flattens its direction");
        l.direction = Normalize(direction);
    }
    if (g.type == "point" || g.type == "spot") {
        // Candela (lumens per steradian) over the whole sphere, in watts.
        l.power = static_cast<float>(4 * kPi * g.intensity / kLumensPerWatt);
        l.type = g.type == "point" ? LightType::point : LightType::spot;
        if (l.type == LightType::spot) {
            const double inner = g.spot.innerConeAngle * 180 / kPi, outer = g.spot.outerConeAngle * 180 / kPi;
            if (!(outer > 0 && outer <= 90) || !(inner >= 0 && inner <= outer))
                Fail(at, "spot cone angles must satisfy 0 <= innerConeAngle <= outerConeAngle <= pi / 2");
            l.inner_angle_degrees = static_cast<float>(inner);
            l.outer_angle_degrees = static_cast<float>(outer);
        }
    } else if (g.type == "directional") {
        l.type = LightType::directional;
        directional_lights_.push_back(static_cast<int>(out_.lights.size()));
        directional_lux_.push_back(g.intensity);
    } else {
        Fail(at, Concat("unknown light type \"", g.type, "\" (known: point, spot, directional)"));
    }
    out_.lights.push_back(l);
}

int GltfReader::TextureFor(const tinygltf::TextureInfo& info, const std::string& where) {
    if (info.index < 0) return -1;
    if (static_cast<std::size_t>(info.index) >= m_.textures.size())
        Fail(where, Concat("texture ", info.index, " does not exist (the file has ", m_.textures.size(), ")"));
    if (info.texCoord != 0)
        Warn(Concat(where, ": texture coordinates set ", info.texCoord, " is not read; using set 0"));
    const int image = m_.textures[info.index].source;
    if (image < 0) return -1;
    if (static_cast<std::size_t>(image) >= m_.images.size())
        Fail(Concat("textures[", info.index, "]"), Concat("image ", image, " does not exist"));
    if (texture_of_image_[image] >= 0) return texture_of_image_[image];
    const tinygltf::Image& g = m_.images[image];
    const std::string at = Concat("images[", image, "]");
    std::string bytes;
    if (g.bufferView >= 0) {
        std::size_t length = 0;
        const unsigned char* data = ViewBytes(g.bufferView, at, &length);
        bytes.assign(reinterpret_cast<const char*>(data), length);
    } else if (!g.image.empty()) {
        bytes.assign(g.image.begin(), g.image.end());
    } else {
        Warn(Concat(at, ": image \"", g.uri, "\" could not be read; using the material's colour"));
        return -1;
    }
    Texture texture;
    // Images inside the file are named by their JSON path, files by their absolute path.
    const fs::path file = fs::absolute(path_).lexically_normal();
    texture.path = g.bufferView >= 0 || g.uri.rfind("data:", 0) == 0
                       ? Concat(file.string(), "#", at)
                       : (file.parent_path() / g.uri).lexically_normal().string();
    std::string why;
    if (!DecodeTexture(bytes, &texture, &why)) Fail(at, why);
    out_.textures.push_back(std::move(texture));
    texture_of_image_[image] = static_cast<int>(out_.textures.size() - 1);
    return texture_of_image_[image];
}

Material GltfReader::ToMaterial(int index) {
    const tinygltf::Material& g = m_.materials[index];
    const std::string at = Concat("materials[", index, "]");
    const tinygltf::PbrMetallicRoughness& pbr = g.pbrMetallicRoughness;
    auto number = [&](const tinygltf::Value& object, const char* key, double fallback, double lo, double hi) {
        if (!object.IsObject() || !object.Has(key)) return fallback;
        const tinygltf::Value& v = object.Get(key);
        const double x = v.IsNumber() ? v.GetNumberAsDouble() : std::nan("");
        if (!(x >= lo && x <= hi)) Fail(at, Concat(key, " must be a number from ", lo, " to ", hi));
        return x;
    };
    auto extension = [&](const char* name) {
        const auto found = g.extensions.find(name);
        return found == g.extensions.end() ? tinygltf::Value() : found->second;
    };
    if (pbr.baseColorFactor.size() != 4) Fail(at, "baseColorFactor needs 4 numbers");
    Rgb base;
    for (int c = 0; c < 3; ++c) {
        const double v = pbr.baseColorFactor[c];
        if (!std::isfinite(v) || v < 0 || v > 1) Fail(at, "baseColorFactor values must be 0 to 1");
        base[c] = static_cast<float>(v);
    }
    Material m;
    m.name = !g.name.empty() ? g.name : Concat("material ", index);
    const double transmission = number(extension("KHR_materials_transmission"), "transmissionFactor", 0, 0, 1);
    if (transmission > 0) {
        m.type = MaterialType::glass;
        m.color = Rgb(1, 1, 1);
        m.ior = static_cast<float>(number(extension("KHR_materials_ior"), "ior", 1.5, 1, 4));
        // Beer-Lambert: light keeps attenuationColor after attenuationDistance metres.
        const tinygltf::Value volume = extension("KHR_materials_volume");
        const double distance = number(volume, "attenuationDistance", 0, 0, 1e9);
        if (distance > 0 && volume.Has("attenuationColor")) {
            const tinygltf::Value& color = volume.Get("attenuationColor");
            if (!color.IsArray() || color.ArrayLen() != 3) Fail(at, "attenuationColor needs 3 numbers");
            for (int c = 0; c < 3; ++c) {
                const tinygltf::Value& v = color.Get(c);
                const double x = v.IsNumber() ? v.GetNumberAsDouble() : -1;
                if (!(x >= 0 && x <= 1)) Fail(at, "attenuationColor values must be 0 to 1");
                m.absorption[c] = static_cast<float>(std::min(x > 0 ? -std::log(x) / distance : 1e6, 1e6));
            }
        }
    } else if (std::isfinite(pbr.metallicFactor) && pbr.metallicFactor >= 0.5) {
        m.type = MaterialType::mirror;
        m.metal = true;
        m.color = base;
    } else {
        m.type = MaterialType::diffuse;
        m.color = base;
        m.texture = TextureFor(pbr.baseColorTexture, at + ".pbrMetallicRoughness.baseColorTexture");
        if (m.texture >= 0) m.texture_path = out_.textures[m.texture].path;
    }
    return m;
}

void GltfReader::FinishCamera() {
    // The mesh's bounding sphere frames a default view, aims the camera's look-at and sizes
    // directional lights (whose power Caustica gives through that sphere's disc).
    Aabb bounds;
    for (const Vec3& p : out_.mesh.positions) bounds.Extend(p);
    const Vec3 center = out_.mesh.positions.empty() ? Vec3(0.0f) : bounds.Center();
    const float radius = out_.mesh.positions.empty() ? 1.0f : std::max(0.5f * Length(bounds.Extent()), 1e-3f);
    Camera& c = out_.camera;
    if (out_.has_camera) {
        const Vec3 forward = Normalize(c.look_at - c.position);
        c.look_at = c.position + forward * std::max(Dot(center - c.position, forward), 1e-2f * radius);
    } else {
        c.look_at = center;
        const float distance = radius / std::tan(0.5f * c.fov_degrees * float(kPi) / 180.0f) * 1.1f;
        c.position = center + Normalize(Vec3(0, 0.6f, 1)) * distance;
    }
    for (std::size_t i = 0; i < directional_lights_.size(); ++i)
        out_.lights[directional_lights_[i]].power =
            static_cast<float>(directional_lux_[i] * kPi * radius * radius / kLumensPerWatt);
}

GltfFile GltfReader::Read() {
    visited_.assign(m_.nodes.size(), 0);
    texture_of_image_.assign(m_.images.size(), -1);
    std::vector<int> roots;
    if (!m_.scenes.empty()) {
        const int scene = m_.defaultScene >= 0 ? m_.defaultScene : 0;
        if (static_cast<std::size_t>(scene) >= m_.scenes.size())
            Fail("scene", Concat("scene ", scene, " does not exist (the file has ", m_.scenes.size(), ")"));
        roots = m_.scenes[scene].nodes;
    } else {
        // No scene: every node that is no other node's child.
        std::vector<char> child(m_.nodes.size(), 0);
        for (const tinygltf::Node& n : m_.nodes)
            for (int c : n.children)
                if (c >= 0 && static_cast<std::size_t>(c) < child.size()) child[c] = 1;
        for (std::size_t i = 0; i < m_.nodes.size(); ++i)
            if (!child[i]) roots.push_back(static_cast<int>(i));
    }
    for (int root : roots) VisitNode(root, Affine(), 0);
    if (out_.mesh.indices.empty()) ThrowInputError({path_, 0, 0}, "the file's scene has no triangles");
    for (std::size_t i = 0; i < m_.materials.size(); ++i) out_.materials.push_back(ToMaterial(static_cast<int>(i)));
    if (degenerate_ > 0) Warn(Concat(degenerate_, " degenerate (zero-area) triangle(s) dropped"));
    if (!m_.animations.empty() || !m_.skins.empty())
        Warn("animations and skins are not read: the nodes stand as the file places them");
    FinishCamera();
    return std::move(out_);
}

}  // namespace

bool IsGltfPath(const std::string& path) { return EndsWithNoCase(path, ".gltf") || EndsWithNoCase(path, ".glb"); }

GltfFile ParseGltf(const std::string& bytes, const std::string& path, const FileSource& files,
                   std::size_t max_triangles) {
    tinygltf::TinyGLTF loader;
    FileAccess access{&files};
    loader.SetFsCallbacks({AnyFileExists, SamePath, ReadThroughSource, NoWrites, &access});
    loader.SetImageLoader(KeepEncodedImage, nullptr);
    tinygltf::Model model;
    std::string err, warn;
    const std::string base = fs::path(path).parent_path().string();
    if (bytes.size() > 0xffffffffu) ThrowInputError({path, 0, 0}, "the file is larger than 4 GiB");
    const bool binary = bytes.size() >= 4 && bytes.compare(0, 4, "glTF") == 0;
    const bool ok =
        binary ? loader.LoadBinaryFromMemory(&model, &err, &warn, reinterpret_cast<const unsigned char*>(bytes.data()),
                                             static_cast<unsigned int>(bytes.size()), base)
               : loader.LoadASCIIFromString(&model, &err, &warn, bytes.data(), static_cast<unsigned int>(bytes.size()),
                                            base);
    if (!ok) ThrowInputError({path, 0, 0}, Trimmed(err.empty() ? "not a glTF 2.0 file" : err));
    GltfFile out = GltfReader(model, path, files, max_triangles).Read();
    if (!warn.empty()) out.warnings.insert(out.warnings.begin(), Concat(path, ": warning: ", Trimmed(warn)));
    return out;
}

}  // namespace caustica
