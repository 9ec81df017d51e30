#include "renderer/scene/shapes.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace caustica {
namespace {

constexpr float kPi = 3.14159265358979323846f;

// Appends vertices and triangles; generators share vertex indices themselves.
struct MeshBuilder {
    Mesh mesh;

    std::uint32_t Vertex(Vec3 p) {
        mesh.positions.push_back(p);
        return static_cast<std::uint32_t>(mesh.positions.size() - 1);
    }
    void Triangle(std::uint32_t a, std::uint32_t b, std::uint32_t c, Vec3 na, Vec3 nb, Vec3 nc, Vec2 ta, Vec2 tb,
                  Vec2 tc) {
        mesh.indices.insert(mesh.indices.end(), {a, b, c});
        mesh.corner_normals.insert(mesh.corner_normals.end(), {na, nb, nc});
        mesh.corner_uvs.insert(mesh.corner_uvs.end(), {ta, tb, tc});
        mesh.triangle_materials.push_back(-1);
    }
    // Quad a-b-c-d counter-clockwise seen from outside, as triangles (a, b, c) and (a, c, d).
    void Quad(const std::uint32_t v[4], const Vec3 n[4], const Vec2 t[4]) {
        Triangle(v[0], v[1], v[2], n[0], n[1], n[2], t[0], t[1], t[2]);
        Triangle(v[0], v[2], v[3], n[0], n[2], n[3], t[0], t[2], t[3]);
    }
};

float Angle(int j, int segments) { return 2.0f * kPi * static_cast<float>(j % segments) / static_cast<float>(segments); }

// A point at angle phi on the circle of radius r at height y; phi grows from +x towards -z so
// that quads (j, j+1) wind counter-clockwise seen from outside.
Vec3 OnCircle(float r, float y, float phi) { return Vec3(r * std::cos(phi), y, -r * std::sin(phi)); }
Vec3 Radial(float phi) { return Vec3(std::cos(phi), 0, -std::sin(phi)); }

void Plane(MeshBuilder& b, const Shape& s) {
    const float hx = 0.5f * s.size.x, hz = 0.5f * s.size.z;
    const std::uint32_t v[4] = {b.Vertex({-hx, 0, -hz}), b.Vertex({-hx, 0, hz}), b.Vertex({hx, 0, hz}),
                                b.Vertex({hx, 0, -hz})};
    const Vec3 up(0, 1, 0);
    const Vec3 n[4] = {up, up, up, up};
    const Vec2 t[4] = {{0, 0}, {0, 1}, {1, 1}, {1, 0}};
    b.Quad(v, n, t);
}

void Box(MeshBuilder& b, const Shape& s) {
    const Vec3 h = s.size * 0.5f;
    std::uint32_t corner[8];  // bit 0: +x, bit 1: +y, bit 2: +z
    for (int i = 0; i < 8; ++i) corner[i] = b.Vertex({(i & 1) ? h.x : -h.x, (i & 2) ? h.y : -h.y, (i & 4) ? h.z : -h.z});
    // Each face: its normal and four corners counter-clockwise seen from outside.
    const struct {
        Vec3 normal;
        int c[4];
    } faces[6] = {{{1, 0, 0}, {1, 3, 7, 5}},  {{-1, 0, 0}, {0, 4, 6, 2}}, {{0, 1, 0}, {2, 6, 7, 3}},
                  {{0, -1, 0}, {0, 1, 5, 4}}, {{0, 0, 1}, {4, 5, 7, 6}},  {{0, 0, -1}, {0, 2, 3, 1}}};
    const Vec2 t[4] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    for (const auto& f : faces) {
        const std::uint32_t v[4] = {corner[f.c[0]], corner[f.c[1]], corner[f.c[2]], corner[f.c[3]]};
        const Vec3 n[4] = {f.normal, f.normal, f.normal, f.normal};
        b.Quad(v, n, t);
    }
}

void Sphere(MeshBuilder& b, const Shape& s) {
    const int seg = s.segments, rings = s.rings;
    const float r = s.radius;
    const std::uint32_t top = b.Vertex({0, r, 0});
    // Latitude circles i = 1 .. rings-1, each with seg vertices.
    auto circle_start = static_cast<std::uint32_t>(b.mesh.positions.size());
    for (int i = 1; i < rings; ++i) {
        const float theta = kPi * static_cast<float>(i) / static_cast<float>(rings);
        for (int j = 0; j < seg; ++j) b.Vertex(OnCircle(r * std::sin(theta), r * std::cos(theta), Angle(j, seg)));
    }
    const std::uint32_t bottom = b.Vertex({0, -r, 0});
    auto at = [&](int i, int j) { return circle_start + static_cast<std::uint32_t>((i - 1) * seg + j % seg); };
    auto normal = [&](std::uint32_t v) { return b.mesh.positions[v] / r; };
    auto uv = [&](int i, int j) { return Vec2(static_cast<float>(j) / seg, static_cast<float>(i) / rings); };
    for (int j = 0; j < seg; ++j) {
        const Vec2 pole_uv((j + 0.5f) / seg, 0.0f);
        b.Triangle(top, at(1, j), at(1, j + 1), {0, 1, 0}, normal(at(1, j)), normal(at(1, j + 1)), pole_uv, uv(1, j),
                   uv(1, j + 1));
        for (int i = 1; i < rings - 1; ++i) {
            const std::uint32_t v[4] = {at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)};
            const Vec3 n[4] = {normal(v[0]), normal(v[1]), normal(v[2]), normal(v[3])};
            const Vec2 t[4] = {uv(i, j), uv(i + 1, j), uv(i + 1, j + 1), uv(i, j + 1)};
            b.Quad(v, n, t);
        }
        const Vec2 south_uv((j + 0.5f) / seg, 1.0f);
        b.Triangle(bottom, at(rings - 1, j + 1), at(rings - 1, j), {0, -1, 0}, normal(at(rings - 1, j + 1)),
                   normal(at(rings - 1, j)), south_uv, uv(rings - 1, j + 1), uv(rings - 1, j));
    }
}

// A wall between two circles of vertices (lower first), facing outward (+1) or toward the axis (-1).
void Wall(MeshBuilder& b, std::uint32_t lower, std::uint32_t upper, int seg, float facing, float v_lower, float v_upper) {
    for (int j = 0; j < seg; ++j) {
        const std::uint32_t j0 = static_cast<std::uint32_t>(j), j1 = static_cast<std::uint32_t>((j + 1) % seg);
        const Vec3 n0 = Radial(Angle(j, seg)) * facing, n1 = Radial(Angle(j + 1, seg)) * facing;
        const float u0 = static_cast<float>(j) / seg, u1 = static_cast<float>(j + 1) / seg;
        if (facing > 0) {
            const std::uint32_t v[4] = {lower + j0, lower + j1, upper + j1, upper + j0};
            const Vec3 n[4] = {n0, n1, n1, n0};
            const Vec2 t[4] = {{u0, v_lower}, {u1, v_lower}, {u1, v_upper}, {u0, v_upper}};
            b.Quad(v, n, t);
        } else {
            const std::uint32_t v[4] = {lower + j0, upper + j0, upper + j1, lower + j1};
            const Vec3 n[4] = {n0, n0, n1, n1};
            const Vec2 t[4] = {{u0, v_lower}, {u0, v_upper}, {u1, v_upper}, {u1, v_lower}};
            b.Quad(v, n, t);
        }
    }
}

// A flat annulus between an inner and an outer circle of vertices at height y, facing +y (up) or
// -y; inner == nullptr makes a disc (a fan around 'centre').
void Annulus(MeshBuilder& b, const std::uint32_t* inner, std::uint32_t centre, std::uint32_t outer, int seg, bool up,
             float outer_radius) {
    const Vec3 n = up ? Vec3(0, 1, 0) : Vec3(0, -1, 0);
    auto planar = [&](std::uint32_t v) {
        const Vec3 p = b.mesh.positions[v];
        return Vec2(0.5f + 0.5f * p.x / outer_radius, 0.5f + 0.5f * p.z / outer_radius);
    };
    for (int j = 0; j < seg; ++j) {
        const std::uint32_t o0 = outer + static_cast<std::uint32_t>(j), o1 = outer + static_cast<std::uint32_t>((j + 1) % seg);
        if (inner == nullptr) {
            if (up) b.Triangle(centre, o0, o1, n, n, n, planar(centre), planar(o0), planar(o1));
            else b.Triangle(centre, o1, o0, n, n, n, planar(centre), planar(o1), planar(o0));
            continue;
        }
        const std::uint32_t i0 = *inner + static_cast<std::uint32_t>(j), i1 = *inner + static_cast<std::uint32_t>((j + 1) % seg);
        const std::uint32_t v_up[4] = {i0, o0, o1, i1};
        const std::uint32_t v_down[4] = {i0, i1, o1, o0};
        const std::uint32_t* v = up ? v_up : v_down;
        const Vec3 ns[4] = {n, n, n, n};
        const Vec2 t[4] = {planar(v[0]), planar(v[1]), planar(v[2]), planar(v[3])};
        b.Quad(v, ns, t);
    }
}

std::uint32_t Circle(MeshBuilder& b, float r, float y, int seg) {
    const auto start = static_cast<std::uint32_t>(b.mesh.positions.size());
    for (int j = 0; j < seg; ++j) b.Vertex(OnCircle(r, y, Angle(j, seg)));
    return start;
}

void Cylinder(MeshBuilder& b, const Shape& s) {
    const int seg = s.segments;
    const float h = 0.5f * s.height;
    const std::uint32_t lower = Circle(b, s.radius, -h, seg), upper = Circle(b, s.radius, h, seg);
    Wall(b, lower, upper, seg, 1.0f, 0.0f, 1.0f);
    if (!s.caps) return;
    Annulus(b, nullptr, b.Vertex({0, h, 0}), upper, seg, true, s.radius);
    Annulus(b, nullptr, b.Vertex({0, -h, 0}), lower, seg, false, s.radius);
}

void Ring(MeshBuilder& b, const Shape& s) {
    const int seg = s.segments;
    const float h = 0.5f * s.height;
    const std::uint32_t outer_low = Circle(b, s.outer_radius, -h, seg), outer_high = Circle(b, s.outer_radius, h, seg);
    const std::uint32_t inner_low = Circle(b, s.inner_radius, -h, seg), inner_high = Circle(b, s.inner_radius, h, seg);
    Wall(b, outer_low, outer_high, seg, 1.0f, 0.0f, 1.0f);
    Wall(b, inner_low, inner_high, seg, -1.0f, 0.0f, 1.0f);
    Annulus(b, &inner_high, 0, outer_high, seg, true, s.outer_radius);
    Annulus(b, &inner_low, 0, outer_low, seg, false, s.outer_radius);
}

// Surface of revolution: the profile (r, y) swept about the y axis. Walking the profile with the
// solid on the left (bottom to top on the outside) gives outward normals. Points on the axis
// (r == 0) are single vertices with fans around them.
void Revolution(MeshBuilder& b, const Shape& s) {
    const int seg = s.segments;
    const std::vector<Vec2>& profile = s.profile;
    const int m = static_cast<int>(profile.size());
    // Outward normal of each profile segment in the (r, y) half-plane: the tangent turned clockwise.
    std::vector<Vec2> seg_normal(m - 1);
    std::vector<float> v_coord(m, 0.0f);
    for (int k = 0; k + 1 < m; ++k) {
        const float dr = profile[k + 1].x - profile[k].x, dy = profile[k + 1].y - profile[k].y;
        const float length = std::sqrt(dr * dr + dy * dy);
        seg_normal[k] = length > 0 ? Vec2(dy / length, -dr / length) : Vec2(1, 0);
        v_coord[k + 1] = v_coord[k] + length;
    }
    if (v_coord[m - 1] > 0) for (float& v : v_coord) v /= v_coord[m - 1];
    // Smooth across a profile vertex unless the profile turns by more than 45 degrees there.
    const float crease_cosine = std::cos(kPi / 4);
    auto vertex_normal = [&](int k, int segment) {
        Vec2 n = seg_normal[segment];
        const int other = (k == segment) ? segment - 1 : segment + 1;
        if (other >= 0 && other < m - 1) {
            const Vec2 o = seg_normal[other];
            if (n.x * o.x + n.y * o.y > crease_cosine) {
                const float x = n.x + o.x, y = n.y + o.y, l = std::sqrt(x * x + y * y);
                n = Vec2(x / l, y / l);
            }
        }
        return n;
    };
    std::vector<std::uint32_t> start(m);  // first vertex of each profile point's circle
    for (int k = 0; k < m; ++k) {
        start[k] = profile[k].x == 0 ? b.Vertex({0, profile[k].y, 0}) : Circle(b, profile[k].x, profile[k].y, seg);
    }
    auto index = [&](int k, int j) { return profile[k].x == 0 ? start[k] : start[k] + static_cast<std::uint32_t>(j % seg); };
    auto normal3 = [&](Vec2 n, int j) { return Radial(Angle(j, seg)) * n.x + Vec3(0, n.y, 0); };
    for (int k = 0; k + 1 < m; ++k) {
        const Vec2 na = vertex_normal(k, k), nb = vertex_normal(k + 1, k);
        for (int j = 0; j < seg; ++j) {
            const float u0 = static_cast<float>(j) / seg, u1 = static_cast<float>(j + 1) / seg;
            const std::uint32_t a0 = index(k, j), a1 = index(k, j + 1), b0 = index(k + 1, j), b1 = index(k + 1, j + 1);
            const Vec3 na0 = normal3(na, j), na1 = normal3(na, j + 1), nb0 = normal3(nb, j), nb1 = normal3(nb, j + 1);
            const Vec2 ta0(u0, v_coord[k]), ta1(u1, v_coord[k]), tb0(u0, v_coord[k + 1]), tb1(u1, v_coord[k + 1]);
            // The quad (a0, a1, b1, b0) faces outward; a point on the axis collapses it to a triangle.
            if (profile[k].x == 0) {
                const Vec2 ta((u0 + u1) * 0.5f, v_coord[k]);
                b.Triangle(a0, b1, b0, normal3(na, j) * 0.5f + normal3(na, j + 1) * 0.5f, nb1, nb0, ta, tb1, tb0);
            } else if (profile[k + 1].x == 0) {
                const Vec2 tb((u0 + u1) * 0.5f, v_coord[k + 1]);
                b.Triangle(a0, a1, b0, na0, na1, normal3(nb, j) * 0.5f + normal3(nb, j + 1) * 0.5f, ta0, ta1, tb);
            } else {
                const std::uint32_t v[4] = {a0, a1, b1, b0};
                const Vec3 n[4] = {na0, na1, nb1, nb0};
                const Vec2 t[4] = {ta0, ta1, tb1, tb0};
                b.Quad(v, n, t);
            }
        }
    }
    for (Vec3& n : b.mesh.corner_normals) {
        const float l = Length(n);
        n = l > 0 ? n / l : Vec3(0, 1, 0);
    }
}

float SampleImage(const HeightImage& image, float u, float v) {
    const float x = std::clamp(u, 0.0f, 1.0f) * static_cast<float>(image.width - 1);
    const float y = std::clamp(v, 0.0f, 1.0f) * static_cast<float>(image.height - 1);
    const int x0 = static_cast<int>(x), y0 = static_cast<int>(y);
    const int x1 = std::min(x0 + 1, image.width - 1), y1 = std::min(y0 + 1, image.height - 1);
    const float fx = x - static_cast<float>(x0), fy = y - static_cast<float>(y0);
    auto at = [&](int px, int py) { return image.values[static_cast<std::size_t>(py) * image.width + px]; };
    return (at(x0, y0) * (1 - fx) + at(x1, y0) * fx) * (1 - fy) + (at(x0, y1) * (1 - fx) + at(x1, y1) * fx) * fy;
}

void Heightfield(MeshBuilder& b, const Shape& s, double time) {
    const HeightGrid g = HeightfieldGrid(s);
    std::vector<float> height = HeightfieldBaseHeights(s);
    for (uint32_t j = 0; j <= g.quads_z; ++j)
        for (uint32_t i = 0; i <= g.quads_x; ++i) height[g.Vertex(i, j)] += WaveHeight(s.waves, g.X(i), g.Z(j), time);
    b.mesh.positions.reserve(height.size());
    for (uint32_t j = 0; j <= g.quads_z; ++j)
        for (uint32_t i = 0; i <= g.quads_x; ++i) b.Vertex({g.X(i), height[g.Vertex(i, j)], g.Z(j)});
    std::vector<Vec3> normal(height.size());
    for (uint32_t j = 0; j <= g.quads_z; ++j)
        for (uint32_t i = 0; i <= g.quads_x; ++i) normal[g.Vertex(i, j)] = g.Normal(height.data(), i, j);
    const std::size_t triangles = static_cast<std::size_t>(2) * g.quads_x * g.quads_z;
    b.mesh.indices.reserve(3 * triangles);
    b.mesh.corner_normals.reserve(3 * triangles);
    b.mesh.corner_uvs.reserve(3 * triangles);
    b.mesh.triangle_materials.reserve(triangles);
    for (uint32_t j = 0; j < g.quads_z; ++j) {
        for (uint32_t i = 0; i < g.quads_x; ++i) {
            std::uint32_t v[4];
            Vec3 n[4];
            Vec2 t[4];
            for (int c = 0; c < 4; ++c) {
                const uint32_t ci = i + QuadCornerI(c), cj = j + QuadCornerJ(c);
                v[c] = g.Vertex(ci, cj);
                n[c] = normal[v[c]];
                t[c] = g.Uv(ci, cj);
            }
            b.Quad(v, n, t);
        }
    }
}

}  // namespace

float WaveHeight(const std::vector<Wave>& waves, float x, float z, double time) {
    return SineWavesHeight(waves.data(), int(waves.size()), x, z, time);
}

HeightGrid HeightfieldGrid(const Shape& s) {
    return {uint32_t(s.resolution_x), uint32_t(s.resolution_z), s.size.x, s.size.z};
}

std::vector<float> HeightfieldBaseHeights(const Shape& s) {
    const HeightGrid g = HeightfieldGrid(s);
    std::vector<float> base(static_cast<std::size_t>(g.quads_x + 1) * (g.quads_z + 1), 0.0f);
    if (s.image)
        for (uint32_t j = 0; j <= g.quads_z; ++j)
            for (uint32_t i = 0; i <= g.quads_x; ++i) {
                const Vec2 uv = g.Uv(i, j);
                base[g.Vertex(i, j)] = s.image_height * SampleImage(*s.image, uv.x, uv.y);
            }
    return base;
}

Aabb HeightfieldReach(const Shape& s) {
    // A little more than the amplitudes' sum, which rounds in float where the heights sum in double.
    const float reach = 1.001f * SineWavesReach(s.waves.data(), int(s.waves.size()));
    const float image_low = s.image ? std::min(0.0f, s.image_height) : 0.0f;
    const float image_high = s.image ? std::max(0.0f, s.image_height) : 0.0f;
    return Aabb(Vec3(-0.5f * s.size.x, image_low - reach, -0.5f * s.size.z),
                Vec3(0.5f * s.size.x, image_high + reach, 0.5f * s.size.z));
}

bool ShapeIsAnimated(const Shape& shape) {
    if (shape.kind != Shape::Kind::heightfield) return false;
    for (const Wave& w : shape.waves)
        if (w.speed != 0 && w.amplitude != 0) return true;
    return false;
}

std::size_t ShapeTriangleCount(const Shape& s) {
    const auto seg = static_cast<std::size_t>(s.segments);
    switch (s.kind) {
    case Shape::Kind::plane: return 2;
    case Shape::Kind::box: return 12;
    case Shape::Kind::sphere: return 2 * seg * static_cast<std::size_t>(s.rings - 1);
    case Shape::Kind::cylinder: return (s.caps ? 4 : 2) * seg;
    case Shape::Kind::ring: return 8 * seg;
    case Shape::Kind::revolution: {
        std::size_t n = 0;
        for (std::size_t k = 0; k + 1 < s.profile.size(); ++k)
            n += (s.profile[k].x == 0 || s.profile[k + 1].x == 0) ? seg : 2 * seg;
        return n;
    }
    case Shape::Kind::heightfield:
        return 2 * static_cast<std::size_t>(s.resolution_x) * static_cast<std::size_t>(s.resolution_z);
    }
    return 0;
}

Mesh GenerateShape(const Shape& shape, double time) {
    MeshBuilder b;
    switch (shape.kind) {
    case Shape::Kind::plane: Plane(b, shape); break;
    case Shape::Kind::box: Box(b, shape); break;
    case Shape::Kind::sphere: Sphere(b, shape); break;
    case Shape::Kind::cylinder: Cylinder(b, shape); break;
    case Shape::Kind::ring: Ring(b, shape); break;
    case Shape::Kind::revolution: Revolution(b, shape); break;
    case Shape::Kind::heightfield: Heightfield(b, shape, time); break;
    }
    CA_CHECK_EQ(b.mesh.TriangleCount(), ShapeTriangleCount(shape));
    return std::move(b.mesh);
}

}  // namespace caustica
