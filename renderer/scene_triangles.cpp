#include "renderer/scene_triangles.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <tiny_obj_loader.h>

#include "core/error.h"

namespace caustica {
namespace {

// The line of the face that became the index-th triangle (faces of n vertices give n - 2), for
// error messages; 0 if not found.
int LineOfTriangle(const std::string& path, size_t index) {
    std::ifstream in(path);
    std::string line;
    size_t triangles = 0;
    for (int number = 1; std::getline(in, line); ++number) {
        std::istringstream words(line);
        std::string word;
        if (!(words >> word) || word != "f") continue;
        size_t vertices = 0;
        while (words >> word) ++vertices;
        triangles += vertices >= 3 ? vertices - 2 : 0;
        if (index < triangles) return number;
    }
    return 0;
}

// Polygons are fan-triangulated by tinyobjloader; missing material libraries are not an error
// here (the benchmark needs geometry only).
std::vector<Triangle> LoadObjTriangles(const std::string& path) {
    tinyobj::ObjReaderConfig config;
    config.triangulate = true;
    config.vertex_color = false;
    config.mtl_search_path = std::filesystem::path(path).parent_path().string();
    tinyobj::ObjReader reader;
    if (!reader.ParseFromFile(path, config)) {
        std::string message = reader.Error();
        while (!message.empty() && (message.back() == '\n' || message.back() == '\r')) message.pop_back();
        ThrowInputError({path, 0, 0}, Concat("cannot read the mesh: ", message.empty() ? "unknown error" : message));
    }
    // tinyobjloader drops faces with bad vertex indices and only warns ("... (line N.)"): that is
    // bad input here. Other warnings (such as a missing material library) are not.
    const std::string& warning = reader.Warning();
    const size_t bad_index = warning.find("indices out of bounds");
    if (bad_index != std::string::npos) {
        const size_t at = warning.find("(line ", bad_index);
        const int line = at == std::string::npos ? 0 : std::atoi(warning.c_str() + at + 6);
        ThrowInputError({path, line, line > 0 ? 1 : 0}, "a face names a vertex index out of range");
    }
    const tinyobj::attrib_t& attrib = reader.GetAttrib();
    std::vector<Triangle> out;
    const auto fail = [&](const std::string& what) { ThrowInputError({path, LineOfTriangle(path, out.size()), 1}, what); };
    for (const tinyobj::shape_t& shape : reader.GetShapes()) {
        const std::vector<tinyobj::index_t>& idx = shape.mesh.indices;
        size_t offset = 0;
        for (size_t f = 0; f < shape.mesh.num_face_vertices.size(); ++f) {
            const size_t n = shape.mesh.num_face_vertices[f];
            if (n != 3) fail(Concat("a face with ", n, " vertices after triangulation (expected 3)"));
            Vec3 v[3];
            for (int k = 0; k < 3; ++k) {
                const int vi = idx[offset + k].vertex_index;
                if (vi < 0 || size_t(3 * vi + 2) >= attrib.vertices.size())
                    fail(Concat("face names vertex ", vi + 1, " but there are ", attrib.vertices.size() / 3,
                                " vertices"));
                v[k] = Vec3(float(attrib.vertices[3 * vi]), float(attrib.vertices[3 * vi + 1]),
                            float(attrib.vertices[3 * vi + 2]));
                if (!std::isfinite(v[k].x) || !std::isfinite(v[k].y) || !std::isfinite(v[k].z))
                    fail(Concat("face uses vertex ", vi + 1, ", which is not finite"));
            }
            out.push_back({v[0], v[1], v[2]});
            offset += n;
        }
    }
    return out;
}

bool EndsWith(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::vector<Triangle> LoadTrianglesForBench(const std::string& path) {
    if (EndsWith(path, ".obj")) return LoadObjTriangles(path);
    // TEMPORARY (for the lead): .yaml scenes go through the scene loader, which lives on another
    // branch; replace this line with a call to it when merging.
    if (EndsWith(path, ".yaml") || EndsWith(path, ".yml"))
        ThrowInputError({path, 0, 0}, ".yaml scenes need the scene loader (not merged into this build yet)");
    ThrowInputError({path, 0, 0}, "unknown scene file type (expected .obj or .yaml)");
}

}  // namespace caustica
