// Writes small glTF 2.0 files for tests: accessors over one binary buffer, meshes, nodes,
// materials, cameras and punctual lights, as JSON text (the buffer inline as a base64 data URI,
// or in a .bin file) or as a binary .glb.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "renderer/scene/scene.h"

namespace caustica::testing {

class GltfBuilder {
public:
    // Adds floats with 'components' per element (2, 3) as an accessor; returns its index.
    int AddFloats(const std::vector<float>& values, int components) {
        const char* type = components == 2 ? "VEC2" : components == 3 ? "VEC3" : "SCALAR";
        return AddAccessor(values.data(), values.size() * 4, 5126, values.size() / components, type);
    }
    int AddIndices(const std::vector<std::uint32_t>& indices) {
        return AddAccessor(indices.data(), indices.size() * 4, 5125, indices.size(), "SCALAR");
    }
    // A mesh of one triangle primitive; 'extra' are more primitive members (",\"material\": 0").
    int AddMesh(int positions, int indices = -1, int normals = -1, int uvs = -1, const std::string& extra = "") {
        std::string p = "{\"attributes\": {\"POSITION\": " + std::to_string(positions);
        if (normals >= 0) p += ", \"NORMAL\": " + std::to_string(normals);
        if (uvs >= 0) p += ", \"TEXCOORD_0\": " + std::to_string(uvs);
        p += "}";
        if (indices >= 0) p += ", \"indices\": " + std::to_string(indices);
        meshes.push_back("{\"primitives\": [" + p + extra + "}]}");
        return int(meshes.size()) - 1;
    }
    // A node given as the members of its JSON object ("\"mesh\": 0, \"translation\": [1, 2, 3]").
    int AddNode(const std::string& members) {
        nodes.push_back("{" + members + "}");
        return int(nodes.size()) - 1;
    }
    // An embedded image (PNG or JPG bytes) through a buffer view; returns the texture index.
    int AddImage(const std::string& bytes, const std::string& mime) {
        const int view = AddView(bytes.data(), bytes.size());
        images.push_back("{\"bufferView\": " + std::to_string(view) + ", \"mimeType\": \"" + mime + "\"}");
        textures.push_back("{\"source\": " + std::to_string(images.size() - 1) + "}");
        return int(textures.size()) - 1;
    }

    // The JSON text; buffer_uri: "" for a .glb's own buffer, "inline" for a base64 data URI, or a
    // file name (write Bin() there).
    std::string Json(const std::string& buffer_uri) const {
        std::string j = "{\"asset\": {\"version\": \"2.0\"}";
        if (!nodes.empty()) {
            std::string roots;
            for (int r : scene_roots) roots += (roots.empty() ? "" : ", ") + std::to_string(r);
            j += ", \"scene\": 0, \"scenes\": [{\"nodes\": [" + roots + "]}]";
        }
        std::string buffer = "{\"byteLength\": " + std::to_string(bin_.size());
        if (buffer_uri == "inline")
            buffer += ", \"uri\": \"data:application/octet-stream;base64," + Base64(bin_) + "\"";
        else if (!buffer_uri.empty())
            buffer += ", \"uri\": \"" + buffer_uri + "\"";
        buffer += "}";
        j += ", \"buffers\": [" + buffer + "]";
        j += List("bufferViews", views) + List("accessors", accessors) + List("meshes", meshes) + List("nodes", nodes) +
             List("materials", materials) + List("cameras", cameras) + List("images", images) +
             List("textures", textures);
        if (!lights.empty()) {
            j += ", \"extensions\": {\"KHR_lights_punctual\": {" + List("lights", lights).substr(2) + "}}";
            j += ", \"extensionsUsed\": [\"KHR_lights_punctual\"]";
        }
        return j + "}";
    }
    const std::string& Bin() const { return bin_; }

    // The .glb container: a 12-byte header, the JSON chunk and the BIN chunk, each 4-byte aligned.
    std::string Glb() const {
        std::string json = Json("");
        while (json.size() % 4) json += ' ';
        std::string bin = bin_;
        while (bin.size() % 4) bin += '\0';
        std::string out = "glTF";
        Put32(&out, 2);
        Put32(&out, std::uint32_t(12 + 8 + json.size() + 8 + bin.size()));
        Put32(&out, std::uint32_t(json.size()));
        out += "JSON" + json;
        Put32(&out, std::uint32_t(bin.size()));
        out += std::string("BIN\0", 4) + bin;
        return out;
    }

    std::vector<std::string> accessors, views, meshes, nodes, materials, cameras, lights, images, textures;
    std::vector<int> scene_roots;

private:
    int AddView(const void* data, std::size_t bytes) {
        while (bin_.size() % 4) bin_ += '\0';
        views.push_back("{\"buffer\": 0, \"byteOffset\": " + std::to_string(bin_.size()) +
                        ", \"byteLength\": " + std::to_string(bytes) + "}");
        bin_.append(static_cast<const char*>(data), bytes);
        return int(views.size()) - 1;
    }
    int AddAccessor(const void* data, std::size_t bytes, int component_type, std::size_t count, const char* type) {
        const int view = AddView(data, bytes);
        accessors.push_back("{\"bufferView\": " + std::to_string(view) +
                            ", \"componentType\": " + std::to_string(component_type) +
                            ", \"count\": " + std::to_string(count) + ", \"type\": \"" + type + "\"}");
        return int(accessors.size()) - 1;
    }
    static std::string List(const char* name, const std::vector<std::string>& items) {
        if (items.empty()) return "";
        std::string s = std::string(", \"") + name + "\": [";
        for (std::size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + items[i];
        return s + "]";
    }
    static void Put32(std::string* out, std::uint32_t v) {
        char b[4];
        std::memcpy(b, &v, 4);
        out->append(b, 4);
    }
    static std::string Base64(const std::string& in) {
        static const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        std::string out;
        for (std::size_t i = 0; i < in.size(); i += 3) {
            std::uint32_t v = std::uint32_t(static_cast<unsigned char>(in[i])) << 16;
            if (i + 1 < in.size()) v |= std::uint32_t(static_cast<unsigned char>(in[i + 1])) << 8;
            if (i + 2 < in.size()) v |= std::uint32_t(static_cast<unsigned char>(in[i + 2]));
            out += digits[(v >> 18) & 63];
            out += digits[(v >> 12) & 63];
            out += i + 1 < in.size() ? digits[(v >> 6) & 63] : '=';
            out += i + 2 < in.size() ? digits[v & 63] : '=';
        }
        return out;
    }
    std::string bin_;
};

// A mesh (three corners a triangle, as a shape generates it) as one glTF mesh with normals and
// texture coordinates, unindexed so that every corner keeps its own normal.
inline int AddShapeMesh(GltfBuilder& b, const Mesh& mesh, const std::string& extra = "") {
    std::vector<float> positions, normals, uvs;
    for (std::size_t i = 0; i < mesh.indices.size(); ++i) {
        const Vec3 p = mesh.positions[mesh.indices[i]], n = mesh.corner_normals[i];
        positions.insert(positions.end(), {p.x, p.y, p.z});
        normals.insert(normals.end(), {n.x, n.y, n.z});
        uvs.insert(uvs.end(), {mesh.corner_uvs[i].x, 1.0f - mesh.corner_uvs[i].y});
    }
    return b.AddMesh(b.AddFloats(positions, 3), -1, b.AddFloats(normals, 3), b.AddFloats(uvs, 2), extra);
}

}  // namespace caustica::testing
