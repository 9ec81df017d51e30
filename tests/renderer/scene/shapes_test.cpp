// Built-in shapes: triangle counts, closed and consistently wound meshes, volumes and bounds.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <utility>

#include "renderer/scene/shapes.h"

namespace caustica {
namespace {

constexpr double kPi = 3.14159265358979323846;

// Every directed edge appears once and its reverse once: a closed, consistently wound surface.
::testing::AssertionResult IsClosed(const Mesh& mesh) {
    std::map<std::pair<std::uint32_t, std::uint32_t>, int> edges;
    for (std::size_t t = 0; t < mesh.TriangleCount(); ++t)
        for (int c = 0; c < 3; ++c) ++edges[{mesh.indices[3 * t + c], mesh.indices[3 * t + (c + 1) % 3]}];
    for (const auto& [edge, count] : edges) {
        if (count != 1) return ::testing::AssertionFailure() << "edge " << edge.first << "-" << edge.second << " used " << count << " times";
        const auto reverse = edges.find({edge.second, edge.first});
        if (reverse == edges.end()) return ::testing::AssertionFailure() << "edge " << edge.first << "-" << edge.second << " has no twin";
    }
    return ::testing::AssertionSuccess();
}

double SignedVolume(const Mesh& mesh) {
    double volume = 0;
    for (std::size_t t = 0; t < mesh.TriangleCount(); ++t) {
        const Vec3 a = mesh.positions[mesh.indices[3 * t]], b = mesh.positions[mesh.indices[3 * t + 1]],
                   c = mesh.positions[mesh.indices[3 * t + 2]];
        volume += Dot(a, Cross(b, c)) / 6.0;
    }
    return volume;
}

Aabb Bounds(const Mesh& mesh) {
    Aabb box;
    for (std::uint32_t i : mesh.indices) box.Extend(mesh.positions[i]);
    return box;
}

// Attributes line up with triangles, every shading normal is unit length and on the outer side
// of its triangle.
void ExpectConsistentAttributes(const Mesh& mesh) {
    ASSERT_EQ(mesh.indices.size(), 3 * mesh.TriangleCount());
    ASSERT_EQ(mesh.corner_normals.size(), mesh.indices.size());
    ASSERT_EQ(mesh.corner_uvs.size(), mesh.indices.size());
    ASSERT_EQ(mesh.triangle_materials.size(), mesh.TriangleCount());
    for (std::size_t t = 0; t < mesh.TriangleCount(); ++t) {
        const Vec3 a = mesh.positions[mesh.indices[3 * t]], b = mesh.positions[mesh.indices[3 * t + 1]],
                   c = mesh.positions[mesh.indices[3 * t + 2]];
        const Vec3 face = Cross(b - a, c - a);
        ASSERT_GT(LengthSquared(face), 0.0f) << "degenerate triangle " << t;
        for (int k = 0; k < 3; ++k) {
            const Vec3 n = mesh.corner_normals[3 * t + k];
            ASSERT_NEAR(Length(n), 1.0f, 1e-5f) << "triangle " << t;
            ASSERT_GT(Dot(n, Normalize(face)), 0.2f) << "triangle " << t << " corner " << k;
        }
    }
}

void ExpectBounds(const Mesh& mesh, Vec3 lo, Vec3 hi, float tolerance) {
    const Aabb box = Bounds(mesh);
    for (int i = 0; i < 3; ++i) {
        EXPECT_NEAR(box.lo[i], lo[i], tolerance) << "axis " << i;
        EXPECT_NEAR(box.hi[i], hi[i], tolerance) << "axis " << i;
    }
}

TEST(Shapes, Plane) {
    Shape s;
    s.kind = Shape::Kind::plane;
    s.size = Vec3(4, 0, 2);
    const Mesh mesh = GenerateShape(s, 0);
    EXPECT_EQ(mesh.TriangleCount(), 2u);
    ExpectConsistentAttributes(mesh);
    ExpectBounds(mesh, {-2, 0, -1}, {2, 0, 1}, 0);
    for (Vec3 n : mesh.corner_normals) EXPECT_EQ(n, Vec3(0, 1, 0));
}

TEST(Shapes, Box) {
    Shape s;
    s.kind = Shape::Kind::box;
    s.size = Vec3(1, 2, 3);
    const Mesh mesh = GenerateShape(s, 0);
    EXPECT_EQ(mesh.TriangleCount(), 12u);
    EXPECT_TRUE(IsClosed(mesh));
    ExpectConsistentAttributes(mesh);
    EXPECT_NEAR(SignedVolume(mesh), 6.0, 1e-5);
    ExpectBounds(mesh, {-0.5f, -1, -1.5f}, {0.5f, 1, 1.5f}, 0);
}

TEST(Shapes, Sphere) {
    for (int seg : {3, 4, 64}) {
        for (int rings : {2, 3, 32}) {
            Shape s;
            s.kind = Shape::Kind::sphere;
            s.radius = 2;
            s.segments = seg;
            s.rings = rings;
            const Mesh mesh = GenerateShape(s, 0);
            EXPECT_EQ(mesh.TriangleCount(), static_cast<std::size_t>(2 * seg * (rings - 1)));
            EXPECT_TRUE(IsClosed(mesh)) << seg << "x" << rings;
            EXPECT_GT(SignedVolume(mesh), 0.0);
            if (seg == 3 || rings == 2) continue;  // too coarse for shading normals to match faces
            ExpectConsistentAttributes(mesh);
        }
    }
    Shape s;
    s.kind = Shape::Kind::sphere;
    s.radius = 2;
    s.segments = 256;
    s.rings = 128;
    const Mesh mesh = GenerateShape(s, 0);
    EXPECT_NEAR(SignedVolume(mesh), 4.0 / 3.0 * kPi * 8, 0.01 * 4.0 / 3.0 * kPi * 8);
    ExpectBounds(mesh, Vec3(-2), Vec3(2), 1e-5f);
}

TEST(Shapes, Cylinder) {
    Shape s;
    s.kind = Shape::Kind::cylinder;
    s.radius = 0.5f;
    s.height = 2;
    s.segments = 128;
    const Mesh closed = GenerateShape(s, 0);
    EXPECT_EQ(closed.TriangleCount(), 4u * 128);
    EXPECT_TRUE(IsClosed(closed));
    ExpectConsistentAttributes(closed);
    EXPECT_NEAR(SignedVolume(closed), kPi * 0.25 * 2, 0.001 * kPi * 0.5);
    ExpectBounds(closed, {-0.5f, -1, -0.5f}, {0.5f, 1, 0.5f}, 1e-5f);
    s.caps = false;
    const Mesh open = GenerateShape(s, 0);
    EXPECT_EQ(open.TriangleCount(), 2u * 128);
    EXPECT_FALSE(IsClosed(open));
}

TEST(Shapes, RingIsAThickOpenTube) {
    Shape s;
    s.kind = Shape::Kind::ring;
    s.inner_radius = 0.95f;
    s.outer_radius = 1.0f;
    s.height = 0.45f;
    s.segments = 384;
    const Mesh mesh = GenerateShape(s, 0);
    EXPECT_EQ(mesh.TriangleCount(), 3072u);  // Zhou et al. 2008, Fig. 6a: about 3K
    EXPECT_TRUE(IsClosed(mesh));
    ExpectConsistentAttributes(mesh);
    const double volume = kPi * (1.0 - 0.95 * 0.95) * 0.45;
    EXPECT_NEAR(SignedVolume(mesh), volume, 0.001 * volume);
    ExpectBounds(mesh, {-1, -0.225f, -1}, {1, 0.225f, 1}, 1e-5f);
    // The inner wall faces the axis.
    for (std::size_t i = 0; i < mesh.indices.size(); ++i) {
        const Vec3 p = mesh.positions[mesh.indices[i]];
        const Vec3 n = mesh.corner_normals[i];
        if (std::fabs(n.y) > 0.5f) continue;
        const float radius = std::sqrt(p.x * p.x + p.z * p.z);
        const float radial = (p.x * n.x + p.z * n.z) / radius;
        EXPECT_NEAR(radial, radius < 0.975f ? -1.0f : 1.0f, 1e-4f);
    }
}

TEST(Shapes, RevolutionOfAClosedProfileIsASolid) {
    Shape s;
    s.kind = Shape::Kind::revolution;
    s.segments = 96;
    // A cylinder with a cone on top: axis, out, up, in to the apex on the axis.
    s.profile = {{0, 0}, {1, 0}, {1, 1}, {0, 2}};
    const Mesh mesh = GenerateShape(s, 0);
    EXPECT_EQ(mesh.TriangleCount(), 96u + 2 * 96 + 96);
    EXPECT_TRUE(IsClosed(mesh));
    ExpectConsistentAttributes(mesh);
    const double volume = kPi * 1 + kPi / 3;
    EXPECT_NEAR(SignedVolume(mesh), volume, 0.002 * volume);
    ExpectBounds(mesh, {-1, 0, -1}, {1, 2, 1}, 1e-5f);
    // Smooth normals along the gentle curve of a sphere profile.
    Shape sphere;
    sphere.kind = Shape::Kind::revolution;
    sphere.segments = 64;
    for (int i = 0; i <= 32; ++i) {
        const double theta = kPi * i / 32;  // from the south pole up
        sphere.profile.push_back(Vec2(static_cast<float>(std::sin(theta)), static_cast<float>(-std::cos(theta))));
    }
    sphere.profile.front().x = 0;
    sphere.profile.back().x = 0;
    const Mesh ball = GenerateShape(sphere, 0);
    EXPECT_TRUE(IsClosed(ball));
    for (std::size_t i = 0; i < ball.indices.size(); ++i) {
        const Vec3 p = ball.positions[ball.indices[i]];
        if (std::fabs(p.y) > 0.99f) continue;  // fans at the poles use averaged normals
        EXPECT_GT(Dot(ball.corner_normals[i], Normalize(p)), 0.999f);
    }
}

TEST(Shapes, OpenRevolutionProfile) {
    Shape s;
    s.kind = Shape::Kind::revolution;
    s.segments = 10;
    s.profile = {{1, 0}, {1, 1}};  // a tube without ends
    const Mesh mesh = GenerateShape(s, 0);
    EXPECT_EQ(mesh.TriangleCount(), 20u);
    EXPECT_FALSE(IsClosed(mesh));
    ExpectConsistentAttributes(mesh);
}

TEST(Shapes, HeightfieldWavesMoveWithTime) {
    Shape s;
    s.kind = Shape::Kind::heightfield;
    s.size = Vec3(4, 0, 2);
    s.resolution_x = 40;
    s.resolution_z = 20;
    s.waves = {Wave{0.1f, 1.0f, 0.0f, 0.5f, 0.0f}, Wave{0.05f, 0.5f, 90.0f, 0.25f, 1.0f}};
    EXPECT_TRUE(ShapeIsAnimated(s));
    const Mesh at0 = GenerateShape(s, 0);
    const Mesh at1 = GenerateShape(s, 1);
    EXPECT_EQ(at0.TriangleCount(), 2u * 40 * 20);
    ExpectConsistentAttributes(at0);
    const Aabb box = Bounds(at0);
    EXPECT_FLOAT_EQ(box.lo.x, -2);
    EXPECT_FLOAT_EQ(box.hi.z, 1);
    EXPECT_GE(box.lo.y, -0.15f - 1e-6f);
    EXPECT_LE(box.hi.y, 0.15f + 1e-6f);
    // Vertex heights follow the sum of sines exactly.
    for (std::size_t v = 0; v < at1.positions.size(); v += 37) {
        const Vec3 p = at1.positions[v];
        EXPECT_NEAR(p.y, WaveHeight(s.waves, p.x, p.z, 1.0), 1e-6f);
    }
    bool moved = false;
    for (std::size_t v = 0; v < at0.positions.size(); ++v) moved |= std::fabs(at0.positions[v].y - at1.positions[v].y) > 1e-3f;
    EXPECT_TRUE(moved);
    // A wave that travels one wavelength is back where it started.
    Shape one = s;
    one.waves = {Wave{0.1f, 2.0f, 0.0f, 0.5f, 0.0f}};
    const Mesh a = GenerateShape(one, 0), b = GenerateShape(one, 4.0);
    for (std::size_t v = 0; v < a.positions.size(); ++v) ASSERT_NEAR(a.positions[v].y, b.positions[v].y, 1e-5f);
    // Still water is not animated.
    one.waves[0].speed = 0;
    EXPECT_FALSE(ShapeIsAnimated(one));
}

TEST(Shapes, HeightfieldFromAnImage) {
    auto image = std::make_shared<HeightImage>();
    image->width = 2;
    image->height = 2;
    image->values = {0, 1, 0, 1};  // rising along x
    Shape s;
    s.kind = Shape::Kind::heightfield;
    s.size = Vec3(1, 0, 1);
    s.resolution_x = s.resolution_z = 4;
    s.image = image;
    s.image_height = 0.5f;
    const Mesh mesh = GenerateShape(s, 0);
    for (const Vec3& p : mesh.positions) EXPECT_NEAR(p.y, 0.5f * (p.x + 0.5f), 1e-6f);
}

}  // namespace
}  // namespace caustica
