// Scenes, ray sets, builders and brute-force checks shared by the kd-tree test suites.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "core/span.h"
#include "kdtree/triangle/ray.h"
#include "kdtree/triangle/sah_params.h"
#include "kdtree/triangle/sah_tree.h"
#include "kdtree/triangle/triangle.h"

namespace caustica::testing {

struct NamedScene {
    std::string name;
    std::vector<Triangle> triangles;
};

// Triangles with random corners in a cube of side `extent`, each of size about `size`.
std::vector<Triangle> RandomTriangles(size_t count, uint64_t seed, float extent, float size);
// Small scenes of each kind: random triangles, spheres and boxes touching and sharing edges,
// flat grids, instanced copies.
std::vector<NamedScene> GeneratedScenes();
// The meshes of ../shared/models that the tests use (file names).
std::vector<std::string> ModelFiles();
// The named meshes of the models folder, loaded; a missing one is a test failure.
std::vector<NamedScene> LoadModels(const std::string& models_dir, const std::vector<std::string>& files);

// A builder under test: builds a tree in host memory from host triangles. Builders that run on
// the GPU copy in and out, so every case is checked the same way.
struct BuilderCase {
    std::string name;
    std::function<void(Span<const Triangle>, const SahParams&, SahTree&)> build;
};
// gtest prints a case by its name.
inline void PrintTo(const BuilderCase& c, std::ostream* os) { *os << c.name; }
// The builders that run on the CPU; the BFS builder joins when it is in the build.
std::vector<BuilderCase> CpuBuilders();

// Rays of every kind the issue lists, count of each kind about per_kind:
// camera rays, random rays, rays along the axes (some exactly through vertices, so inside split
// planes), rays aimed exactly at vertices and edge midpoints, rays starting on triangles.
std::vector<Ray> MixedRays(const std::vector<Triangle>& triangles, size_t per_kind, uint64_t seed);
// Rays from the centre of a closed mesh through its vertices and edge midpoints.
std::vector<Ray> RaysFromInsideThroughVerticesAndEdges(const std::vector<Triangle>& closed_mesh, Vec3 inside);

// Rays that lie in or start on the tree's split planes: for up to `count` interior nodes, rays from
// a point of the plane inside the root box, parallel to the plane (in it), along the other two
// axes, and across it; and rays from outside the box inside the plane.
std::vector<Ray> SplitPlaneRays(const SahTree& tree, size_t count, uint64_t seed);

// A tree of the deepest kind traversal accepts: a comb of kMaxTraversalDepth splits along x at
// 64, 63, ..., 1, each cutting off one leaf [k, k + 1] of the box [0, 65] x [-1, 1] x [-1, 1], with
// two triangles across the box (at x = 0.3 and x = 64.95), and rays along x through every plane.
struct CombScene {
    SahTree tree{MemorySpace::Host};
    std::vector<Triangle> triangles;
    std::vector<Ray> rays;
};
CombScene DeepestComb();

// Expects the closest hits (triangle, t, u, v) to equal the expected ones; reports the first few
// differences and returns their number.
size_t ExpectSameClosestHits(const std::vector<Hit>& hits, const std::vector<Hit>& expected,
                             const std::vector<Ray>& rays, const std::string& what);

// Traces rays through the tree (CPU) and by brute force; expects identical closest hits (triangle,
// t, u, v) and identical occlusion of shadow segments toward a light. Returns the number of rays
// that hit something (to make sure a test is not vacuous).
size_t ExpectMatchesBruteForce(const SahTree& tree, const std::vector<Triangle>& triangles,
                               const std::vector<Ray>& rays, const std::string& what);

// The same for every walk of TraversalWalks() (tests/kdtree/triangle/traversal_walks.h), on the
// CPU; each walk must also visit the stack walk's leaves and make its ray-triangle tests, ray by
// ray. Returns each walk's restarts over all rays (to make sure restarts happened).
std::vector<uint64_t> ExpectEveryWalkMatchesBruteForce(const SahTree& tree, const std::vector<Triangle>& triangles,
                                                       const std::vector<Ray>& rays, const std::string& what);

// Validates the tree and expects no problems (printing the report when there are).
void ExpectValidTree(const SahTree& tree, const std::vector<Triangle>& triangles, const SahParams& params,
                     const std::string& what);

}  // namespace caustica::testing
