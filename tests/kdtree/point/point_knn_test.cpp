// Queries on the point kd-tree on the CPU, against brute force: histogram KNN (Algorithm 6) with
// node-radius estimates, exact KNN with and without them, range search, conservative r0, maximum radius, tiny sets.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/parallel_for.h"
#include "kdtree/point/point_queries.h"
#include "kdtree/point/point_tree_builder.h"
#include "tests/kdtree/point/point_test_support.h"

namespace caustica::testing {
namespace {

constexpr float kTolerance = 1e-3f;  // 0.1%, as Zhou et al. 2008 report for nhist = 32, niter = 2

void ExpectNoFailures(const std::vector<std::string>& failures) {
    for (const std::string& f : failures) ADD_FAILURE() << f << " (seed " << kSeed << ")";
}

TEST(PointKnn, HistogramKnnMatchesBruteForceOnEverySet) {
    const Backend cpu = Backend::Cpu();
    for (const NamedSet& set : StandardSets(20000)) {
        const std::vector<Vec3> queries = StandardQueries(set.points, 900);
        for (int k : {1, 8, 50}) {
            SCOPED_TRACE(set.name + ", k " + std::to_string(k));
            KnnSettings settings;
            settings.k = k;
            TreeOnBackend t(cpu);
            BuildAndQuery(cpu, set.points, queries, PointTreeParams(), settings, t);
            double err = 0.0;
            ExpectNoFailures(CheckKnn(set.points, queries, settings, t.results, kTolerance, &err));
            EXPECT_LE(err, kTolerance);
        }
    }
}

TEST(PointKnn, TinySets) {
    const Backend cpu = Backend::Cpu();
    const int k = 50;
    for (uint32_t n : {0u, 1u, uint32_t(k - 1), uint32_t(k), uint32_t(k + 1)}) {
        for (KnnMethod method : {KnnMethod::Histogram, KnnMethod::Exact}) {
            SCOPED_TRACE("points: " + std::to_string(n) + ", " + KnnMethodName(method));
            const std::vector<Vec3> points = MakePoints(PointDistribution::Uniform, n, kSeed);
            const std::vector<Vec3> queries = StandardQueries(points, 60);
            KnnSettings settings;
            settings.k = k;
            settings.method = method;
            TreeOnBackend t(cpu);
            BuildAndQuery(cpu, points, queries, PointTreeParams(), settings, t);
            ExpectNoFailures(CheckKnn(points, queries, settings, t.results, kTolerance, nullptr));
            const std::vector<uint32_t> counts = t.results.counts.Download();
            for (uint32_t c : counts) EXPECT_EQ(c, std::min<uint32_t>(n, k));
        }
    }
}

TEST(PointKnn, MaxRadiusReturnsFewerPoints) {
    const Backend cpu = Backend::Cpu();
    const std::vector<Vec3> points = MakePoints(PointDistribution::Clustered, 20000, kSeed);
    const std::vector<Vec3> queries = StandardQueries(points, 600);
    for (KnnMethod method : {KnnMethod::Histogram, KnnMethod::Exact}) {
        SCOPED_TRACE(KnnMethodName(method));
        KnnSettings settings;
        settings.method = method;
        settings.k = 50;
        settings.max_radius = 0.01f;  // dense on the curve, sparse off it
        TreeOnBackend t(cpu);
        BuildAndQuery(cpu, points, queries, PointTreeParams(), settings, t);
        ExpectNoFailures(CheckKnn(points, queries, settings, t.results, kTolerance, nullptr));
        const std::vector<uint32_t> counts = t.results.counts.Download();
        const std::vector<float> radii = t.results.radii.Download();
        int fewer = 0;
        for (size_t i = 0; i < counts.size(); ++i) {
            if (counts[i] < 50) {
                ++fewer;
                EXPECT_EQ(radii[i], settings.max_radius);
            }
        }
        EXPECT_GT(fewer, 0);
        EXPECT_LT(fewer, int(counts.size()));
    }
}

TEST(PointKnn, OtherHistogramSettingsStayExact) {
    const Backend cpu = Backend::Cpu();
    const std::vector<Vec3> points = MakePoints(PointDistribution::Plane, 10000, kSeed);
    const std::vector<Vec3> queries = StandardQueries(points, 300);
    for (int bins : {4, 32}) {
        for (int iterations : {1, 3}) {
            SCOPED_TRACE("bins " + std::to_string(bins) + ", iterations " + std::to_string(iterations));
            PointTreeParams params;
            params.histogram_bins = bins;
            params.iterations = iterations;
            KnnSettings settings;
            settings.bins = bins;
            settings.iterations = iterations;
            TreeOnBackend t(cpu);
            BuildAndQuery(cpu, points, queries, params, settings, t);
            ExpectNoFailures(CheckKnn(points, queries, settings, t.results, kTolerance, nullptr));
        }
    }
}

TEST(PointKnn, WithoutRadiusEstimatesAndWithTooSmallR0) {
    // r0 infinite (no node radii) and r0 far too small must both still give the exact answer.
    const Backend cpu = Backend::Cpu();
    const std::vector<Vec3> points = MakePoints(PointDistribution::Clustered, 10000, kSeed);
    const std::vector<Vec3> queries = StandardQueries(points, 300);
    PointTree tree(cpu);
    PointTreeBuilder(cpu).Build(Span<const Vec3>(points), tree);
    for (KnnMethod method : {KnnMethod::Histogram, KnnMethod::Exact}) {
        SCOPED_TRACE(KnnMethodName(method));
        KnnSettings settings;
        settings.method = method;
        KnnResults results(cpu);
        KnnBatch(cpu, tree.View(), NodeRadiusView{}, Span<const Vec3>(queries), settings, results);
        ExpectNoFailures(CheckKnn(points, queries, settings, results, kTolerance, nullptr));
        std::vector<uint32_t> counts, indices(queries.size() * 50);
        std::vector<float> radii, dist2(queries.size() * 50);
        for (size_t i = 0; i < queries.size(); ++i) {
            const KnnSlot slot{indices.data() + i, dist2.data() + i, uint32_t(queries.size())};
            const float r0 = 1e-6f;
            LocalHistogram hist;
            NoWork work;
            const KnnOutcome o = method == KnnMethod::Exact
                                     ? ExactKnn(tree.View(), queries[i], r0, settings, slot, work)
                                     : HistogramKnn(tree.View(), queries[i], r0, settings, hist, slot);
            counts.push_back(o.count);
            radii.push_back(o.radius);
        }
        ExpectNoFailures(CheckKnn(points, queries, settings, counts, radii, indices, dist2, kTolerance, nullptr));
    }
}

// A render pass's own functor calling the per-query function with its own storage, as the shading
// pass will: the same answers as the batch.
struct GatherInOwnFunctor {
    PointTreeView tree;
    NodeRadiusView radii;
    const Vec3* queries;
    KnnSettings settings;
    float* radius;
    CA_HD void operator()(int i) const {
        uint32_t indices[64];
        float dist2[64];
        LocalHistogram hist;
        radius[i] = KnnAtPoint(tree, radii, queries[i], settings, hist, KnnSlot{indices, dist2, 1}).radius;
    }
};

TEST(PointKnn, PerQueryFunctionInACallersFunctor) {
    const Backend cpu = Backend::Cpu();
    const std::vector<Vec3> points = MakePoints(PointDistribution::Clustered, 10000, kSeed);
    const std::vector<Vec3> queries = StandardQueries(points, 300);
    KnnSettings settings;
    TreeOnBackend t(cpu);
    BuildAndQuery(cpu, points, queries, PointTreeParams(), settings, t);
    std::vector<float> radius(queries.size());
    ParallelFor(cpu, "test gather", queries.size(),
                GatherInOwnFunctor{t.tree.View(), t.radii.View(), queries.data(), settings, radius.data()});
    EXPECT_EQ(radius, t.results.radii.Download());
}

TEST(PointKnn, RadiusEstimateIsConservative) {
    const Backend cpu = Backend::Cpu();
    for (const NamedSet& set : StandardSets(20000)) {
        SCOPED_TRACE(set.name);
        const std::vector<Vec3> queries = StandardQueries(set.points, 900);
        PointTreeParams params;
        PointTree tree(cpu);
        PointTreeBuilder(cpu, params).Build(Span<const Vec3>(set.points), tree);
        NodeRadii radii(cpu);
        radii.Compute(cpu, tree.View(), params, 50);
        EXPECT_GT(radii.estimated_nodes(), 0u);
        int below = 0, finite = 0;
        for (const Vec3& q : queries) {
            const auto exact = BruteForceKnn(Span<const Vec3>(set.points), q, 50);
            const float kth = std::sqrt(exact.back().first);
            const float r0 = EstimateRadius(tree.View(), radii.View(), q);
            if (r0 < kth && ++below <= 5) ADD_FAILURE() << "r0 " << r0 << " below the k-th distance " << kth;
            finite += std::isfinite(r0) ? 1 : 0;
        }
        EXPECT_EQ(finite, int(queries.size()));  // every path has an estimate
    }
}

TEST(PointKnn, ExactKnnMatchesBruteForce) {
    // Without r0 and pruned by the node radii's r0: the exact k-th distance either way.
    const Backend cpu = Backend::Cpu();
    for (const NamedSet& set : StandardSets(20000)) {
        SCOPED_TRACE(set.name);
        const std::vector<Vec3> queries = StandardQueries(set.points, 600);
        KnnSettings settings;
        settings.method = KnnMethod::Exact;
        TreeOnBackend t(cpu);
        BuildAndQuery(cpu, set.points, queries, PointTreeParams(), settings, t);
        for (const NodeRadiusView r0 : {NodeRadiusView{}, t.radii.View()}) {
            SCOPED_TRACE(r0.estimates ? "from r0" : "without r0");
            KnnResults results(cpu);
            KnnBatch(cpu, t.tree.View(), r0, Span<const Vec3>(queries), settings, results);
            double err = 0.0;
            ExpectNoFailures(CheckKnn(set.points, queries, settings, results, 0.0f, &err));
            EXPECT_EQ(err, 0.0);
        }
    }
}

TEST(PointKnn, RangeSearchMatchesBruteForce) {
    const Backend cpu = Backend::Cpu();
    for (const NamedSet& set : StandardSets(20000)) {
        SCOPED_TRACE(set.name);
        const std::vector<Vec3> queries = StandardQueries(set.points, 300);
        PointTree tree(cpu);
        PointTreeBuilder(cpu).Build(Span<const Vec3>(set.points), tree);
        for (float r : {0.0f, 0.01f, 0.05f}) {
            for (const Vec3& q : queries) {
                std::vector<uint32_t> found, expected;
                RangeSearch(tree.View(), q, r, [&](const TreePoint& p, float) { found.push_back(p.index); });
                for (uint32_t i = 0; i < set.points.size(); ++i)
                    if (Distance2(set.points[i], q) <= r * r) expected.push_back(i);
                std::sort(found.begin(), found.end());
                ASSERT_EQ(found, expected) << "r " << r;
            }
        }
    }
}

}  // namespace
}  // namespace caustica::testing
