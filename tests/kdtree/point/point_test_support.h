// Shared pieces of the point-tree suites: data sets, building on a backend, and the KNN check
// against brute force.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/backend.h"
#include "core/vec.h"
#include "kdtree/point/knn_batch.h"
#include "kdtree/point/node_radius.h"
#include "kdtree/point/point_samples.h"
#include "kdtree/point/point_tree.h"

namespace caustica::testing {

constexpr uint64_t kSeed = 20081210;

struct NamedSet {
    std::string name;
    std::vector<Vec3> points;
};

// Uniform, clustered (caustic-like), duplicate-heavy (10K identical points and a sparse rest),
// planar (flat in z, and flat in x), a room's walls, a line, and a mixed-sign uniform set, each of
// about `count` points.
std::vector<NamedSet> StandardSets(uint32_t count);

// The sets and parameters on which the medium subtrees (kdtree/point/point_medium_subtree.h) must make
// the tree that the large-node levels make: every kind of set, sizes either side of the largest
// medium root, a few thousand identical points (a medium root that cannot split), small-node
// thresholds from 1 to 32, and depth bounds that stop inside the medium subtrees.
std::vector<NamedSet> MediumSets();
std::vector<std::pair<std::string, PointTreeParams>> MediumCases();

// Queries off the set (coherent and random) and on it (at points of the set).
std::vector<Vec3> StandardQueries(const std::vector<Vec3>& points, uint32_t count);

// Everything one KNN run needs, on one backend.
struct TreeOnBackend {
    explicit TreeOnBackend(const Backend& backend) : tree(backend), radii(backend), results(backend), positions(backend), queries(backend) {}
    PointTree tree;
    NodeRadii radii;
    KnnResults results;
    Buffer<Vec3> positions;
    Buffer<Vec3> queries;
};

void BuildAndQuery(const Backend& backend, const std::vector<Vec3>& points, const std::vector<Vec3>& queries,
                   const PointTreeParams& params, const KnnSettings& settings, TreeOnBackend& out);

// Checks KNN results (host copies) against brute force: the count, the k-th radius within `tolerance`
// (relative) of the exact k-th distance, every point closer than that distance minus the
// tolerance present, each returned distance right. Returns the failures' descriptions (at most a
// few), empty when all pass; *max_rel_error gets the largest radius error seen.
std::vector<std::string> CheckKnn(const std::vector<Vec3>& points, const std::vector<Vec3>& queries,
                                  const KnnSettings& settings, const std::vector<uint32_t>& counts,
                                  const std::vector<float>& radii, const std::vector<uint32_t>& indices,
                                  const std::vector<float>& dist2, float tolerance, double* max_rel_error);

// The same on a TreeOnBackend's results.
std::vector<std::string> CheckKnn(const std::vector<Vec3>& points, const std::vector<Vec3>& queries,
                                  const KnnSettings& settings, const KnnResults& results, float tolerance,
                                  double* max_rel_error);

}  // namespace caustica::testing
