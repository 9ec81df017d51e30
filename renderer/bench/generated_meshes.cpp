#include "renderer/bench/generated_meshes.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/rng.h"

namespace caustica {
namespace {

constexpr float kPi = 3.14159265358979323846f;

// Two triangles for the quad (a, b, c, d) in winding order.
void AddQuad(Vec3 a, Vec3 b, Vec3 c, Vec3 d, std::vector<Triangle>& out) {
    out.push_back({a, b, c});
    out.push_back({a, c, d});
}

// Triangles over a grid of precomputed vertices (rows x cols, row-major), closing rows/columns
// cyclically where asked.
void AddGrid(const std::vector<Vec3>& v, int rows, int cols, bool wrap_cols, std::vector<Triangle>& out) {
    const int quad_cols = wrap_cols ? cols : cols - 1;
    for (int r = 0; r + 1 < rows; ++r)
        for (int c = 0; c < quad_cols; ++c) {
            const int c1 = (c + 1) % cols;
            AddQuad(v[r * cols + c], v[r * cols + c1], v[(r + 1) * cols + c1], v[(r + 1) * cols + c], out);
        }
}

// The boundary of a union of grid cells: cell (i, j, k) spans [x[i], x[i+1]] x [y[j], y[j+1]] x
// [z[k], z[k+1]] and is solid where solid(i, j, k). Each face between a solid and an empty cell
// (or the outside) becomes two triangles, wound outward.
template <class Solid>
std::vector<Triangle> GridSolid(const std::vector<float> (&coords)[3], const Solid& solid) {
    const int n[3] = {int(coords[0].size()) - 1, int(coords[1].size()) - 1, int(coords[2].size()) - 1};
    const auto at = [&](int i, int j, int k) {
        return i >= 0 && j >= 0 && k >= 0 && i < n[0] && j < n[1] && k < n[2] && solid(i, j, k);
    };
    std::vector<Triangle> out;
    for (int i = 0; i < n[0]; ++i)
        for (int j = 0; j < n[1]; ++j)
            for (int k = 0; k < n[2]; ++k) {
                if (!at(i, j, k)) continue;
                const int cell[3] = {i, j, k};
                for (int axis = 0; axis < 3; ++axis)
                    for (int side = 0; side < 2; ++side) {
                        int nb[3] = {i, j, k};
                        nb[axis] += side ? 1 : -1;
                        if (at(nb[0], nb[1], nb[2])) continue;
                        const int u = (axis + 1) % 3, w = (axis + 2) % 3;
                        Vec3 p[4];
                        for (int c = 0; c < 4; ++c) {
                            p[c][axis] = coords[axis][cell[axis] + side];
                            p[c][u] = coords[u][cell[u] + (c == 1 || c == 2)];
                            p[c][w] = coords[w][cell[w] + (c >= 2)];
                        }
                        if (side) AddQuad(p[0], p[1], p[2], p[3], out);
                        else AddQuad(p[0], p[3], p[2], p[1], out);
                    }
            }
    return out;
}

}  // namespace

std::vector<Triangle> TessellatedSphere(Vec3 center, float radius, int rings, int segments) {
    CA_CHECK(rings >= 2 && segments >= 3);
    std::vector<Triangle> out;
    const Vec3 north = center + Vec3(0, 0, radius), south = center - Vec3(0, 0, radius);
    // Ring r (1 .. rings-1) at polar angle pi * r / rings.
    std::vector<Vec3> v;
    for (int r = 1; r < rings; ++r) {
        const float theta = kPi * float(r) / float(rings);
        for (int s = 0; s < segments; ++s) {
            const float phi = 2.0f * kPi * float(s) / float(segments);
            v.push_back(center + Vec3(std::sin(theta) * std::cos(phi), std::sin(theta) * std::sin(phi), std::cos(theta)) *
                                     radius);
        }
    }
    for (int s = 0; s < segments; ++s) {
        const int s1 = (s + 1) % segments;
        out.push_back({north, v[s], v[s1]});
        out.push_back({south, v[(rings - 2) * segments + s1], v[(rings - 2) * segments + s]});
    }
    AddGrid(v, rings - 1, segments, true, out);
    return out;
}

std::vector<Triangle> TessellatedTorus(Vec3 center, float major_radius, float minor_radius, int major_segments,
                                       int minor_segments) {
    CA_CHECK(major_segments >= 3 && minor_segments >= 3);
    std::vector<Vec3> v;
    for (int i = 0; i <= major_segments; ++i) {
        const int wrapped = i % major_segments;  // the last row repeats the first, bit for bit
        const float a = 2.0f * kPi * float(wrapped) / float(major_segments);
        for (int j = 0; j < minor_segments; ++j) {
            const float b = 2.0f * kPi * float(j) / float(minor_segments);
            const float ring = major_radius + minor_radius * std::cos(b);
            v.push_back(center + Vec3(ring * std::cos(a), ring * std::sin(a), minor_radius * std::sin(b)));
        }
    }
    std::vector<Triangle> out;
    AddGrid(v, major_segments + 1, minor_segments, true, out);
    return out;
}

std::vector<Triangle> TessellatedBox(const Aabb& box, int divisions) {
    CA_CHECK(divisions >= 1);
    const int n = divisions;
    // Coordinate i (0..n) along axis a: the same expression wherever the point appears.
    const auto coord = [&](int a, int i) {
        return i == n ? box.hi[a] : box.lo[a] + (box.hi[a] - box.lo[a]) * (float(i) / float(n));
    };
    std::vector<Triangle> out;
    for (int axis = 0; axis < 3; ++axis) {
        const int u = (axis + 1) % 3, w = (axis + 2) % 3;
        for (int side = 0; side < 2; ++side) {
            std::vector<Vec3> v;
            for (int i = 0; i <= n; ++i)
                for (int j = 0; j <= n; ++j) {
                    Vec3 p;
                    p[axis] = side ? box.hi[axis] : box.lo[axis];
                    p[u] = coord(u, i);
                    p[w] = coord(w, j);
                    v.push_back(p);
                }
            AddGrid(v, n + 1, n + 1, false, out);
        }
    }
    return out;
}

std::vector<Triangle> FlatGrid(float lo, float hi, float z, int n) {
    CA_CHECK(n >= 1);
    std::vector<Vec3> v;
    for (int i = 0; i <= n; ++i)
        for (int j = 0; j <= n; ++j) {
            const float x = i == n ? hi : lo + (hi - lo) * (float(i) / float(n));
            const float y = j == n ? hi : lo + (hi - lo) * (float(j) / float(n));
            v.push_back(Vec3(x, y, z));
        }
    std::vector<Triangle> out;
    AddGrid(v, n + 1, n + 1, false, out);
    return out;
}

std::vector<Triangle> InstancedMeshScene(size_t target_triangles, uint64_t seed) {
    // Two unit-sized prototypes of similar size; each copy picks one.
    const std::vector<Triangle> prototypes[2] = {TessellatedSphere(Vec3(0.0f), 1.0f, 24, 48),
                                                 TessellatedTorus(Vec3(0.0f), 0.8f, 0.3f, 48, 24)};
    const size_t mean = (prototypes[0].size() + prototypes[1].size()) / 2;
    const size_t copies = std::max<size_t>(1, (target_triangles + mean / 2) / mean);
    // Copies of radius ~1 spread so that about a tenth of the volume is covered.
    const float side = 2.5f * std::cbrt(float(copies));
    std::vector<Triangle> out;
    out.reserve(copies * mean + mean);
    for (size_t c = 0; c < copies; ++c) {
        Rng rng(seed, 0, 0, c);
        const std::vector<Triangle>& proto = prototypes[rng.NextU32() & 1];
        const float scale = 0.4f + 0.8f * rng.NextFloat();
        const Vec3 offset(side * rng.NextFloat(), side * rng.NextFloat(), side * rng.NextFloat());
        // A random rotation from a random unit axis and angle (Rodrigues).
        const float z = 2.0f * rng.NextFloat() - 1.0f, phi = 2.0f * kPi * rng.NextFloat();
        const float rxy = std::sqrt(std::max(0.0f, 1.0f - z * z));
        const Vec3 k(rxy * std::cos(phi), rxy * std::sin(phi), z);
        const float angle = 2.0f * kPi * rng.NextFloat(), cs = std::cos(angle), sn = std::sin(angle);
        const auto transform = [&](Vec3 p) {
            const Vec3 r = p * cs + Cross(k, p) * sn + k * (Dot(k, p) * (1.0f - cs));
            return r * scale + offset;
        };
        for (const Triangle& t : proto) out.push_back({transform(t.v0), transform(t.v1), transform(t.v2)});
    }
    return out;
}

std::vector<Triangle> FlatBracket() {
    // Base: x [0, 1], y [0, 0.1], z [0, 0.6]; upright: x [0, 0.1], y [0, 0.8]; holes 0.1 wide.
    const std::vector<float> coords[3] = {{0.0f, 0.1f, 0.25f, 0.35f, 0.55f, 0.65f, 0.85f, 0.95f, 1.0f},
                                          {0.0f, 0.1f, 0.3f, 0.4f, 0.55f, 0.65f, 0.8f},
                                          {0.0f, 0.15f, 0.25f, 0.35f, 0.45f, 0.6f}};
    return GridSolid(coords, [](int i, int j, int k) {
        const bool base = j == 0 && !((i == 2 || i == 4 || i == 6) && (k == 1 || k == 3));
        const bool upright = i == 0 && !((j == 2 || j == 4) && (k == 1 || k == 3));
        return base || upright;
    });
}

std::vector<Triangle> FlatBoxWithHoles() {
    // Walls 0.05 thick around [0, 1] x [0, 0.7] x [0, 0.5], each pierced by windows.
    const std::vector<float> coords[3] = {{0.0f, 0.05f, 0.2f, 0.35f, 0.6f, 0.75f, 0.95f, 1.0f},
                                          {0.0f, 0.05f, 0.25f, 0.45f, 0.65f, 0.7f},
                                          {0.0f, 0.05f, 0.2f, 0.3f, 0.45f, 0.5f}};
    return GridSolid(coords, [](int i, int j, int k) {
        const bool wall_x = i == 0 || i == 6, wall_y = j == 0 || j == 4, wall_z = k == 0 || k == 4;
        if (!(wall_x || wall_y || wall_z)) return false;
        const bool window_x = i == 2 || i == 4, window_y = j == 2, window_z = k == 2;
        if (wall_x && !wall_y && !wall_z) return !(window_y && window_z);
        if (wall_y && !wall_x && !wall_z) return !(window_x && window_z);
        if (wall_z && !wall_x && !wall_y) return !(window_x && window_y);
        return true;
    });
}

std::vector<Triangle> FlatStackedPlates() {
    // Five plates 0.04 thick, 0.2 apart; each has a square hole around the middle.
    std::vector<float> z;
    for (int p = 0; p < 5; ++p) z.insert(z.end(), {0.2f * float(p), 0.2f * float(p) + 0.04f});
    const std::vector<float> coords[3] = {{0.0f, 0.4f, 0.6f, 1.0f}, {0.0f, 0.3f, 0.7f, 1.0f}, z};
    return GridSolid(coords, [](int i, int j, int k) { return k % 2 == 0 && !(i == 1 && j == 1); });
}

std::vector<Triangle> FlatGear() {
    // 24 teeth between radii 0.4 and 0.5, a bore of radius 0.15, 0.2 thick; the caps are fans
    // between the bore and the outline.
    constexpr int kTeeth = 24, kSteps = 4 * kTeeth;
    const float thickness = 0.2f;
    std::vector<Vec3> outline, bore;
    for (int s = 0; s < kSteps; ++s) {
        const float a = 2.0f * kPi * float(s) / float(kSteps);
        const float r = (s / 2) % 2 == 0 ? 0.5f : 0.4f;  // two steps on a tooth, two between teeth
        outline.push_back(Vec3(r * std::cos(a), r * std::sin(a), 0.0f));
        bore.push_back(Vec3(0.15f * std::cos(a), 0.15f * std::sin(a), 0.0f));
    }
    const Vec3 up(0.0f, 0.0f, thickness);
    std::vector<Triangle> out;
    for (int s = 0; s < kSteps; ++s) {
        const int t = (s + 1) % kSteps;
        AddQuad(outline[s], outline[t], outline[t] + up, outline[s] + up, out);  // outer wall
        AddQuad(bore[t], bore[s], bore[s] + up, bore[t] + up, out);              // bore wall
        AddQuad(bore[s] + up, outline[s] + up, outline[t] + up, bore[t] + up, out);  // top cap
        AddQuad(bore[t], outline[t], outline[s], bore[s], out);                  // bottom cap
    }
    return out;
}

std::vector<Triangle> CoincidentBoxes(size_t n) {
    const std::vector<Triangle> box = TessellatedBox(Aabb(Vec3(0.0f), Vec3(1.0f)), 1);
    std::vector<Triangle> out(n);
    for (size_t i = 0; i < n; ++i) out[i] = box[i % box.size()];
    return out;
}

}  // namespace caustica
