// Triangle scenes for the kd-tree tests: generated ones (seeded, reproducible) and the real meshes
// in ../shared/models read with the scene loader.
#pragma once


#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/rng.h"
#include "kdtree/triangle/triangle.h"
#include "renderer/bench/generated_meshes.h"
#include "renderer/bench/scene_triangles.h"

namespace caustica::testing {

inline Vec3 RandomPoint(Rng& rng, Vec3 lo, Vec3 hi) {
    return Vec3(lo.x + (hi.x - lo.x) * rng.NextFloat(), lo.y + (hi.y - lo.y) * rng.NextFloat(),
                lo.z + (hi.z - lo.z) * rng.NextFloat());
}

// Triangles whose corners are anywhere in the unit cube: long, crossing triangles.
inline std::vector<Triangle> RandomTriangles(int n, uint64_t seed) {
    Rng rng(seed, 0, 0, 0);
    std::vector<Triangle> t(n);
    for (auto& tri : t) {
        tri.v0 = RandomPoint(rng, Vec3(0.0f), Vec3(1.0f));
        tri.v1 = RandomPoint(rng, Vec3(0.0f), Vec3(1.0f));
        tri.v2 = RandomPoint(rng, Vec3(0.0f), Vec3(1.0f));
    }
    return t;
}

// Small triangles (corners within 'size' of a centre) scattered in a 10-unit cube.
inline std::vector<Triangle> TriangleSoup(int n, float size, uint64_t seed) {
    Rng rng(seed, 0, 1, 0);
    std::vector<Triangle> t(n);
    for (auto& tri : t) {
        const Vec3 c = RandomPoint(rng, Vec3(-5.0f), Vec3(5.0f));
        tri.v0 = c + RandomPoint(rng, Vec3(-size), Vec3(size));
        tri.v1 = c + RandomPoint(rng, Vec3(-size), Vec3(size));
        tri.v2 = c + RandomPoint(rng, Vec3(-size), Vec3(size));
    }
    return t;
}

// A UV sphere of radius r around c: 2 * rings * segments triangles (closed, shared edges).
inline std::vector<Triangle> Sphere(int rings, int segments, Vec3 c = Vec3(0.0f), float r = 1.0f) {
    auto at = [&](int i, int j) {
        const float theta = 3.14159265f * float(i) / float(rings);
        const float phi = 2.0f * 3.14159265f * float(j % segments) / float(segments);
        return c + Vec3(std::sin(theta) * std::cos(phi), std::cos(theta), std::sin(theta) * std::sin(phi)) * r;
    };
    std::vector<Triangle> t;
    for (int i = 0; i < rings; ++i)
        for (int j = 0; j < segments; ++j) {
            t.push_back({at(i, j), at(i + 1, j), at(i + 1, j + 1)});
            t.push_back({at(i, j), at(i + 1, j + 1), at(i, j + 1)});
        }
    return t;
}

// Axis-aligned unit cubes on a grid: many triangles lying in common planes.
inline std::vector<Triangle> CubeGrid(int per_side) {
    std::vector<Triangle> t;
    for (int x = 0; x < per_side; ++x)
        for (int y = 0; y < per_side; ++y)
            for (int z = 0; z < per_side; ++z) {
                const Vec3 o(2.0f * x, 2.0f * y, 2.0f * z);
                for (int axis = 0; axis < 3; ++axis)
                    for (int side = 0; side < 2; ++side) {
                        const int u = (axis + 1) % 3, v = (axis + 2) % 3;
                        Vec3 p[4];
                        for (int k = 0; k < 4; ++k) {
                            p[k] = o;
                            p[k][axis] += float(side);
                            p[k][u] += float(k == 1 || k == 2);
                            p[k][v] += float(k >= 2);
                        }
                        t.push_back({p[0], p[1], p[2]});
                        t.push_back({p[0], p[2], p[3]});
                    }
            }
    return t;
}

// The generated machined parts (renderer/bench/generated_meshes.h) side by side: large flat faces
// parallel to the axes, triangles lying in common planes, fans of long thin triangles.
inline std::vector<Triangle> FlatFacedParts() {
    std::vector<Triangle> t;
    const std::vector<Triangle> parts[4] = {FlatBracket(), FlatBoxWithHoles(), FlatStackedPlates(), FlatGear()};
    for (int p = 0; p < 4; ++p)
        for (Triangle tri : parts[p]) {
            const Vec3 offset(1.5f * float(p), 0.0f, 0.0f);
            tri.v0 += offset;
            tri.v1 += offset;
            tri.v2 += offset;
            t.push_back(tri);
        }
    return t;
}

// Small objects on a floor a few hundred times their size (a glass on a table): a ball, and a ring
// beside a smaller ball (tests/kdtree/triangle/flat_faces_test.cpp).
inline std::vector<Triangle> BallOnAFloor() {
    std::vector<Triangle> t = FlatGrid(-1.0f, 1.0f, 0.0f, 1);
    const std::vector<Triangle> sphere = TessellatedSphere(Vec3(0.0f, 0.0f, 0.05f), 0.05f, 64, 96);
    t.insert(t.end(), sphere.begin(), sphere.end());
    return t;
}

inline std::vector<Triangle> RingAndBallOnAFloor() {
    std::vector<Triangle> t = FlatGrid(-1.0f, 1.0f, 0.0f, 1);
    const std::vector<Triangle> ring = TessellatedTorus(Vec3(0.3f, -0.2f, 0.02f), 0.06f, 0.02f, 96, 48);
    const std::vector<Triangle> ball = TessellatedSphere(Vec3(-0.1f, 0.05f, 0.03f), 0.03f, 48, 64);
    t.insert(t.end(), ring.begin(), ring.end());
    t.insert(t.end(), ball.begin(), ball.end());
    return t;
}

// The triangles of an OBJ file, through the project's checked mesh loader.
inline std::vector<Triangle> LoadObj(const std::string& path) { return LoadTrianglesForBench(path); }

}  // namespace caustica::testing
