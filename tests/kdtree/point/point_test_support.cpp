#include "tests/kdtree/point/point_test_support.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/error.h"
#include "kdtree/point/point_queries.h"
#include "kdtree/point/point_tree_builder.h"

namespace caustica::testing {

std::vector<NamedSet> StandardSets(uint32_t count) {
    std::vector<NamedSet> sets;
    sets.push_back({"uniform", MakePoints(PointDistribution::Uniform, count, kSeed)});
    sets.push_back({"clustered", MakePoints(PointDistribution::Clustered, count, kSeed)});
    std::vector<Vec3> dup = MakePoints(PointDistribution::Duplicates, 10000, kSeed);
    const std::vector<Vec3> rest = MakePoints(PointDistribution::Uniform, count / 10, kSeed + 1);
    dup.insert(dup.end(), rest.begin(), rest.end());
    sets.push_back({"duplicates", dup});
    sets.push_back({"plane", MakePoints(PointDistribution::Plane, count, kSeed)});
    sets.push_back({"room", MakePoints(PointDistribution::Room, count, kSeed)});
    // Flat in x (the plane turned) and in x and z (a line): axes with no list of their own.
    std::vector<Vec3> wall = MakePoints(PointDistribution::Plane, count, kSeed + 3);
    for (Vec3& p : wall) p = Vec3(p.z, p.x, p.y);
    sets.push_back({"plane flat in x", wall});
    std::vector<Vec3> line = MakePoints(PointDistribution::Uniform, count, kSeed + 4);
    for (Vec3& p : line) p = Vec3(0.5f, p.y, 0.5f);
    sets.push_back({"line", line});
    std::vector<Vec3> mixed = MakePoints(PointDistribution::Uniform, count, kSeed + 2);
    for (Vec3& p : mixed) p = p * 2.0f - Vec3(1.0f);
    mixed[0] = Vec3(-0.0f, 0.0f, -0.0f);
    sets.push_back({"mixed-sign", mixed});
    return sets;
}

std::vector<Vec3> StandardQueries(const std::vector<Vec3>& points, uint32_t count) {
    std::vector<Vec3> q = MakeQueries(points, count / 3, true, kSeed);
    const std::vector<Vec3> random = MakeQueries(points, count / 3, false, kSeed + 5);
    q.insert(q.end(), random.begin(), random.end());
    for (uint32_t i = 0; i < count / 3 && !points.empty(); ++i) q.push_back(points[(size_t(i) * 7919) % points.size()]);
    return q;
}

void BuildAndQuery(const Backend& backend, const std::vector<Vec3>& points, const std::vector<Vec3>& queries,
                   const PointTreeParams& params, const KnnSettings& settings, TreeOnBackend& out) {
    PointTreeBuilder builder(backend, params);
    out.positions.Upload(points);
    out.queries.Upload(queries);
    builder.Build(Span<const Vec3>(out.positions.span()), out.tree);
    out.radii.Compute(backend, out.tree.View(), params, std::max(settings.k, 1));
    KnnBatch(backend, out.tree.View(), out.radii.View(), Span<const Vec3>(out.queries.span()), settings, out.results);
    backend.Synchronize();
}

std::vector<std::string> CheckKnn(const std::vector<Vec3>& points, const std::vector<Vec3>& queries,
                                  const KnnSettings& settings, const std::vector<uint32_t>& counts,
                                  const std::vector<float>& radii, const std::vector<uint32_t>& indices,
                                  const std::vector<float>& dist2, float tolerance, double* max_rel_error) {
    std::vector<std::string> failures;
    auto fail = [&](const std::string& what) {
        if (failures.size() < 5) failures.push_back(what);
    };
    const size_t nq = queries.size();
    double worst = 0.0;
    for (size_t i = 0; i < nq; ++i) {
        const Vec3 q = queries[i];
        const auto exact = BruteForceKnn(Span<const Vec3>(points), q, settings.k, settings.max_radius);
        if (counts[i] != exact.size()) {
            fail(Concat("query ", i, ": ", counts[i], " neighbours, brute force ", exact.size()));
            continue;
        }
        std::set<uint32_t> got;
        for (uint32_t j = 0; j < counts[i]; ++j) {
            const uint32_t index = indices[j * nq + i];
            if (index >= points.size() || !got.insert(index).second) {
                fail(Concat("query ", i, ": bad or repeated index ", index));
                break;
            }
            if (dist2[j * nq + i] != Distance2(points[index], q)) fail(Concat("query ", i, ": wrong distance"));
        }
        if (exact.size() < size_t(settings.k)) {
            // Fewer than k within max_radius: all of them.
            for (const auto& e : exact)
                if (!got.count(e.second)) fail(Concat("query ", i, ": point ", e.second, " within max_radius missing"));
            continue;
        }
        if (exact.empty()) continue;
        const float kth = std::sqrt(exact.back().first);
        const double err = std::fabs(double(radii[i]) - double(kth)) / std::max(double(kth), 1e-30);
        worst = std::max(worst, kth > 0.0f ? err : std::fabs(double(radii[i])));
        if (std::fabs(radii[i] - kth) > tolerance * kth)
            fail(Concat("query ", i, " (", q.x, ", ", q.y, ", ", q.z, "): radius ", radii[i], ", exact k-th distance ", kth));
        const float inner = kth * (1.0f - tolerance);
        for (const auto& e : exact)
            if (std::sqrt(e.first) < inner && !got.count(e.second))
                fail(Concat("query ", i, ": point ", e.second, " at ", std::sqrt(e.first), " < ", inner, " missing"));
    }
    if (max_rel_error) *max_rel_error = worst;
    return failures;
}

std::vector<std::string> CheckKnn(const std::vector<Vec3>& points, const std::vector<Vec3>& queries,
                                  const KnnSettings& settings, const KnnResults& results, float tolerance,
                                  double* max_rel_error) {
    return CheckKnn(points, queries, settings, results.counts.Download(), results.radii.Download(),
                    results.indices.Download(), results.dist2.Download(), tolerance, max_rel_error);
}

std::vector<std::pair<std::string, PointTreeParams>> MediumCases() {
    std::vector<std::pair<std::string, PointTreeParams>> cases;
    for (int t : {1, 8, 32}) {
        PointTreeParams p;
        p.small_node_threshold = t;
        cases.push_back({"T " + std::to_string(t), p});
    }
    for (int depth : {6, 14}) {
        PointTreeParams p;
        p.max_depth = depth;
        cases.push_back({"max_depth " + std::to_string(depth), p});
    }
    return cases;
}

std::vector<NamedSet> MediumSets() {
    std::vector<NamedSet> sets = StandardSets(20000);
    for (uint32_t n : {2048u, 2049u, 5000u})
        sets.push_back({"plane " + std::to_string(n), MakePoints(PointDistribution::Plane, n, kSeed)});
    std::vector<Vec3> lump = MakePoints(PointDistribution::Uniform, 30000, kSeed);
    for (size_t i = 0; i < 1500; ++i) lump[i * 7] = Vec3(0.25f, 0.5f, 0.75f);
    sets.push_back({"1500 identical in 30000", lump});
    return sets;
}

}  // namespace caustica::testing
