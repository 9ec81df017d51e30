#include "renderer/scene/obj_loader.h"

#include <tiny_obj_loader.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>

#include "core/error.h"

namespace caustica {
namespace {

constexpr std::size_t kMaxMtlBytes = std::size_t(64) << 20;
constexpr std::size_t kMaxFaceVertices = 255;  // tinyobjloader stores polygon sizes in a byte

// Where statements sit in the file, found with the same line splitting and keyword tests as
// tinyobjloader (lines end at \n, \r\n or \r; text after a NUL byte is ignored), because
// tinyobjloader keeps no line numbers for faces and vertices.
struct ObjLines {
    std::vector<SourceLocation> vertices;     // where each 'v' is
    std::size_t normals = 0, texcoords = 0;   // 'vn' and 'vt' lines
    std::vector<SourceLocation> faces;        // where each 'f' is
    std::vector<std::size_t> face_sizes;      // vertices named on each 'f'
    struct Mtllib {
        int line, column;
        std::string names;
    };
    std::vector<Mtllib> mtllibs;
    // The first face index too large for 32 bits (tinyobjloader would wrap it round).
    struct Oversized {
        SourceLocation where;
        int kind = -1;  // 0 vertex, 1 texture coordinate, 2 normal
        std::string text;
    } oversized;
    std::string filtered;                     // the text given to tinyobjloader
};

bool IsSpace(char c) { return c == ' ' || c == '\t'; }

// Calls line(number, text, start) for each line: its number from 1, its text up to a NUL byte,
// and where its first word starts.
template <class Line>
void ForEachLine(const std::string& text, Line line) {
    std::size_t pos = 0;
    int number = 0;
    while (pos < text.size()) {
        std::size_t end = pos;
        while (end < text.size() && text[end] != '\n' && text[end] != '\r') ++end;
        std::size_t next = end;
        if (next < text.size()) next += (text[next] == '\r' && next + 1 < text.size() && text[next + 1] == '\n') ? 2 : 1;
        std::string content = text.substr(pos, end - pos);
        pos = next;
        const std::size_t nul = content.find('\0');
        if (nul != std::string::npos) content.resize(nul);
        std::size_t start = 0;
        while (start < content.size() && IsSpace(content[start])) ++start;
        line(++number, content, start);
    }
}

// Whether a keyword of the given length starts the line at 'start' (followed by a space).
bool Keyword(const std::string& line, std::size_t start, const char* word) {
    const std::size_t n = std::strlen(word);
    return line.compare(start, n, word) == 0 && start + n < line.size() && IsSpace(line[start + n]);
}

// Checks the numbers of a face's corner "v", "v/vt", "v//vn" or "v/vt/vn": one that does not fit
// in 32 bits is kept as the line's oversized index.
void CheckCornerIndices(const char* corner, const SourceLocation& where, ObjLines::Oversized* oversized) {
    for (int kind = 0; kind < 3 && *corner != '\0' && !IsSpace(*corner); ++kind) {
        const char* digits = corner + (*corner == '-' || *corner == '+' ? 1 : 0);
        std::size_t n = 0;
        while (std::isdigit(static_cast<unsigned char>(digits[n]))) ++n;
        std::size_t first = 0;
        while (first + 1 < n && digits[first] == '0') ++first;
        const std::string number(digits + first, n - first);
        if (oversized->kind < 0 && (number.size() > 10 || (number.size() == 10 && number > "2147483647")))
            *oversized = {where, kind, std::string(corner, std::size_t(digits - corner) + n)};
        corner = digits + n;
        while (*corner != '\0' && *corner != '/' && !IsSpace(*corner)) ++corner;
        if (*corner == '/') ++corner;
    }
}

ObjLines ScanLines(const std::string& text, const std::string& path) {
    ObjLines lines;
    lines.filtered.reserve(text.size());
    ForEachLine(text, [&](int number, const std::string& line, std::size_t start) {
        const char* token = line.c_str() + start;
        const bool has_second = start + 1 < line.size();
        // Tags ('t', for subdivision surfaces) are copied into every group by tinyobjloader,
        // which can take memory quadratic in the file size; they mean nothing here: blanked.
        if (token[0] == 't' && has_second && IsSpace(token[1])) {
            lines.filtered += '\n';
            return;
        }
        lines.filtered += line;
        lines.filtered += '\n';
        if (token[0] == 'v' && has_second && IsSpace(token[1])) {
            lines.vertices.push_back({path, number, static_cast<int>(start) + 1});
        } else if (Keyword(line, start, "vn")) {
            ++lines.normals;
        } else if (Keyword(line, start, "vt")) {
            ++lines.texcoords;
        } else if (token[0] == 'f' && has_second && IsSpace(token[1])) {
            std::size_t count = 0;
            const SourceLocation where{path, number, static_cast<int>(start) + 1};
            for (std::size_t i = 2; token[i] != '\0';) {
                while (IsSpace(token[i])) ++i;
                if (token[i] == '\0') break;
                ++count;
                CheckCornerIndices(token + i, where, &lines.oversized);
                while (token[i] != '\0' && !IsSpace(token[i])) ++i;
            }
            if (count < 3) ThrowInputError(where, Concat("a face needs at least 3 vertices, this one has ", count));
            if (count > kMaxFaceVertices)
                ThrowInputError(where, Concat("a face with ", count, " vertices: at most ", kMaxFaceVertices, " are supported"));
            lines.faces.push_back(where);
            lines.face_sizes.push_back(count);
        } else if (std::strncmp(token, "mtllib", 6) == 0 && IsSpace(token[6])) {
            lines.mtllibs.push_back({number, static_cast<int>(start) + 1, line.substr(start + 7)});
        }
    });
    if (lines.oversized.kind >= 0) {
        static const char* const kKinds[] = {"vertex", "texture coordinate", "normal"};
        const std::size_t counts[] = {lines.vertices.size(), lines.texcoords, lines.normals};
        const char* kind = kKinds[lines.oversized.kind];
        ThrowInputError(lines.oversized.where,
                        Concat(kind, " index out of range: the face names ", kind, " ", lines.oversized.text,
                               " but the file has ", counts[lines.oversized.kind]));
    }
    return lines;
}

// Reads MTL files through the FileSource, relative to the OBJ file; remembers the missing ones.
class MtlReader : public tinyobj::MaterialReader {
public:
    MtlReader(std::string dir, const FileSource& files) : dir_(std::move(dir)), files_(files) {}
    bool operator()(const std::string& name, std::vector<tinyobj::material_t>* materials,
                    std::map<std::string, int>* material_map, std::string* warn, std::string* err) override {
        const std::filesystem::path p = std::filesystem::path(name).is_absolute() ? std::filesystem::path(name)
                                                                                    : std::filesystem::path(dir_) / name;
        const FileRead read = files_(p.lexically_normal().string(), kMaxMtlBytes);
        if (read.status != FileRead::Status::ok) {
            missing.emplace_back(name, Describe(read, kMaxMtlBytes));
            return false;
        }
        mtl_dir = p.parent_path().string();
        FindTextureLines(read.bytes, p.lexically_normal().string());
        std::istringstream stream(read.bytes);
        tinyobj::LoadMtl(material_map, materials, &stream, warn, err);
        return true;
    }
    std::vector<std::pair<std::string, std::string>> missing;  // name, why
    std::string mtl_dir;
    std::map<std::string, SourceLocation> texture_lines;  // material name -> its map_Kd line

private:
    // The map_Kd line of each material (named by "newmtl NAME", as tinyobjloader reads it).
    void FindTextureLines(const std::string& text, const std::string& mtl_path) {
        std::string material;
        ForEachLine(text, [&](int number, const std::string& line, std::size_t start) {
            if (Keyword(line, start, "newmtl")) {
                material = line.substr(start + 7);
                material.erase(material.find_last_not_of(" \t") + 1);
            } else if (Keyword(line, start, "map_Kd")) {
                texture_lines[material] = {mtl_path, number, static_cast<int>(start) + 1};
            }
        });
    }

    std::string dir_;
    const FileSource& files_;
};

int LineNumberIn(const std::string& message) {
    const std::size_t at = message.rfind("line ");
    return at == std::string::npos ? 0 : std::atoi(message.c_str() + at + 5);
}

Material ToMaterial(const tinyobj::material_t& m, const std::string& mtl_dir) {
    Material out;
    out.name = m.name;
    auto rgb = [](const tinyobj::real_t* c) {
        auto clamp01 = [](float v) { return std::isfinite(v) ? std::fmin(std::fmax(v, 0.0f), 1.0f) : 0.0f; };
        return Rgb(clamp01(c[0]), clamp01(c[1]), clamp01(c[2]));
    };
    // illum 3: reflection (a mirror); 4, 6, 7: refraction (glass); anything else: diffuse.
    if (m.illum == 3) {
        out.type = MaterialType::mirror;
        out.color = rgb(m.specular);
    } else if (m.illum == 4 || m.illum == 6 || m.illum == 7) {
        out.type = MaterialType::glass;
        out.ior = std::isfinite(m.ior) && m.ior >= 1.0f && m.ior <= 4.0f ? m.ior : 1.5f;
    } else {
        out.color = rgb(m.diffuse);
        if (!m.diffuse_texname.empty()) {
            const std::filesystem::path t(m.diffuse_texname);
            out.texture_path = (t.is_absolute() ? t : std::filesystem::path(mtl_dir) / t).lexically_normal().string();
        }
    }
    return out;
}

}  // namespace

ObjMesh ParseObj(const std::string& text, const std::string& path, const FileSource& files) {
    const ObjLines lines = ScanLines(text, path);
    tinyobj::attrib_t attrib;
    std::vector<tinyobj::shape_t> shapes;
    std::vector<tinyobj::material_t> materials;
    std::string warn, err;
    MtlReader mtl(std::filesystem::path(path).parent_path().string(), files);
    std::istringstream stream(lines.filtered);
    const bool ok = tinyobj::LoadObj(&attrib, &shapes, &materials, &warn, &err, &stream, &mtl, /*triangulate=*/false);
    if (!ok) {
        // tinyobjloader names the line of the face it could not read; the scan knows its column.
        SourceLocation where{path, LineNumberIn(err), 0};
        for (const SourceLocation& f : lines.faces)
            if (f.line == where.line) where = f;
        ThrowInputError(where,
                        "malformed face: expected 1-based vertex indices such as \"f 1 2 3\" or \"f 1/1/1 2/2/2 3/3/3\"");
    }
    ObjMesh out;
    for (const auto& [name, why] : mtl.missing) {
        SourceLocation where{path, 0, 0};
        for (const ObjLines::Mtllib& m : lines.mtllibs) {
            if (m.names.find(name) != std::string::npos) {
                where.line = m.line;
                where.column = m.column;
                break;
            }
        }
        out.warnings.push_back(Concat(FormatLocation(where), ": warning: material library \"", name, "\" ", why,
                                      "; using a default material"));
    }
    for (const tinyobj::material_t& m : materials) {
        out.materials.push_back(ToMaterial(m, mtl.mtl_dir));
        const auto line = mtl.texture_lines.find(m.name);
        out.texture_lines.push_back(line != mtl.texture_lines.end() ? line->second : SourceLocation{path, 0, 0});
    }

    const std::size_t vertex_count = attrib.vertices.size() / 3;
    const std::size_t normal_count = attrib.normals.size() / 3;
    const std::size_t uv_count = attrib.texcoords.size() / 2;
    // Faces come out of the groups in file order: match them with the scanned face lines.
    std::size_t face = 0;
    Mesh& mesh = out.mesh;
    mesh.positions.resize(vertex_count);
    for (std::size_t v = 0; v < vertex_count; ++v) {
        const Vec3 p(attrib.vertices[3 * v], attrib.vertices[3 * v + 1], attrib.vertices[3 * v + 2]);
        if (!IsFinite(p) || std::fabs(p.x) > 1e9f || std::fabs(p.y) > 1e9f || std::fabs(p.z) > 1e9f)
            ThrowInputError(v < lines.vertices.size() ? lines.vertices[v] : SourceLocation{path, 0, 0},
                            "vertex coordinates must be finite numbers of at most 1e9");
        mesh.positions[v] = p;
    }
    std::size_t degenerate = 0;
    SourceLocation first_degenerate;
    std::vector<char> normal_given;  // per corner: the file gave a usable normal
    for (const tinyobj::shape_t& shape : shapes) {
        std::size_t offset = 0;
        for (std::size_t f = 0; f < shape.mesh.num_face_vertices.size(); ++f, ++face) {
            const std::size_t n = shape.mesh.num_face_vertices[f];
            CA_CHECK_MSG(face < lines.faces.size() && lines.face_sizes[face] == n, "OBJ face ", face,
                         " does not match the scanned face lines of ", path);
            const SourceLocation& where = lines.faces[face];
            const tinyobj::index_t* idx = &shape.mesh.indices[offset];
            offset += n;
            for (std::size_t c = 0; c < n; ++c) {
                auto check = [&](int index, std::size_t count, const char* what) {
                    if (index < 0 || static_cast<std::size_t>(index) >= count)
                        ThrowInputError(where, Concat(what, " index out of range: the face names ", what, " ",
                                                                index >= 0 ? Concat(index + 1) : Concat("before the first"),
                                                                " but the file has ", count));
                };
                check(idx[c].vertex_index, vertex_count, "vertex");
                if (idx[c].normal_index != -1) check(idx[c].normal_index, normal_count, "normal");
                if (idx[c].texcoord_index != -1) check(idx[c].texcoord_index, uv_count, "texture coordinate");
            }
            const int material = f < shape.mesh.material_ids.size() ? shape.mesh.material_ids[f] : -1;
            // Fan triangulation: (0, c, c+1).
            for (std::size_t c = 1; c + 1 < n; ++c) {
                const tinyobj::index_t corner[3] = {idx[0], idx[c], idx[c + 1]};
                const Vec3 a = mesh.positions[corner[0].vertex_index], b = mesh.positions[corner[1].vertex_index],
                           d = mesh.positions[corner[2].vertex_index];
                const Vec3 normal = Cross(b - a, d - a);
                if (!(LengthSquared(normal) > 0) || !IsFinite(normal)) {
                    if (degenerate++ == 0) first_degenerate = where;
                    continue;
                }
                for (const tinyobj::index_t& k : corner) {
                    mesh.indices.push_back(static_cast<std::uint32_t>(k.vertex_index));
                    Vec3 n = Normalize(normal);
                    bool given_ok = false;
                    if (k.normal_index != -1) {
                        const Vec3 given(attrib.normals[3 * k.normal_index], attrib.normals[3 * k.normal_index + 1],
                                         attrib.normals[3 * k.normal_index + 2]);
                        given_ok = IsFinite(given) && LengthSquared(given) > 1e-30f;
                        if (given_ok) n = Normalize(given);
                    }
                    normal_given.push_back(given_ok ? 1 : 0);
                    mesh.corner_normals.push_back(n);
                    mesh.corner_uvs.push_back(k.texcoord_index != -1
                                                  ? Vec2(attrib.texcoords[2 * k.texcoord_index],
                                                         attrib.texcoords[2 * k.texcoord_index + 1])
                                                  : Vec2(0, 0));
                }
                mesh.triangle_materials.push_back(material >= 0 && material < static_cast<int>(out.materials.size()) ? material : -1);
            }
        }
    }
    CA_CHECK_MSG(face == lines.faces.size(), "OBJ faces read ", face, " of ", lines.faces.size(), " in ", path);
    if (degenerate > 0)
        out.warnings.push_back(Concat(FormatLocation(first_degenerate), ": warning: ", degenerate,
                                      " degenerate (zero-area) triangle(s) dropped"));
    // Corners without a normal in the file get smooth normals, area-weighted per vertex.
    if (std::find(normal_given.begin(), normal_given.end(), 0) != normal_given.end()) {
        std::vector<Vec3> sum(vertex_count, Vec3(0.0f));
        for (std::size_t t = 0; t < mesh.TriangleCount(); ++t) {
            const std::uint32_t* v = &mesh.indices[3 * t];
            const Vec3 n = Cross(mesh.positions[v[1]] - mesh.positions[v[0]], mesh.positions[v[2]] - mesh.positions[v[0]]);
            for (int c = 0; c < 3; ++c) sum[v[c]] += n;
        }
        for (std::size_t i = 0; i < mesh.indices.size(); ++i) {
            const Vec3 s = sum[mesh.indices[i]];
            if (!normal_given[i] && LengthSquared(s) > 1e-30f && IsFinite(s)) mesh.corner_normals[i] = Normalize(s);
        }
    }
    if (mesh.indices.empty() && degenerate > 0)
        ThrowInputError(first_degenerate, Concat("all ", degenerate,
                                                 " triangles of the mesh are degenerate (zero area): none is left to draw"));
    if (mesh.indices.empty()) ThrowInputError({path, 0, 0}, "the mesh has no triangles (expected 'f' lines)");
    return out;
}

}  // namespace caustica
