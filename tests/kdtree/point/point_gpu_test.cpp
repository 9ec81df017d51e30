// The point kd-tree on the GPU against its CPU twin: the same tree bit for bit, the same node
// radii and the same KNN results (both methods), and the GPU results against brute force. Label gpu.
#include <gtest/gtest.h>

#include <cstring>

#include "core/sm_share.h"
#include "core/thread_stream.h"
#include "core/timer.h"
#include "kdtree/point/point_tree_builder.h"
#include "kdtree/point/point_tree_check.h"
#include "tests/kdtree/point/point_test_support.h"
#include "tests/test_support.h"

namespace caustica::testing {
namespace {

template <class T>
void ExpectSameBytes(const Buffer<T>& a, const Buffer<T>& b, const char* what) {
    const std::vector<T> x = a.Download(), y = b.Download();
    ASSERT_EQ(x.size(), y.size()) << what;
    size_t first = x.size();
    for (size_t i = 0; i < x.size() && first == x.size(); ++i)
        if (std::memcmp(&x[i], &y[i], sizeof(T)) != 0) first = i;
    EXPECT_EQ(first, x.size()) << what << " differ first at item " << first;
}

void ExpectSameTree(const PointTree& gpu, const PointTree& cpu) {
    ExpectSameBytes(gpu.nodes, cpu.nodes, "nodes");
    ExpectSameBytes(gpu.boxes, cpu.boxes, "boxes");
    ExpectSameBytes(gpu.ranges, cpu.ranges, "ranges");
    ExpectSameBytes(gpu.points, cpu.points, "points (leaf order)");
    EXPECT_EQ(gpu.max_depth, cpu.max_depth);
    EXPECT_EQ(gpu.radius, cpu.radius);
}

// Counts and radii bit for bit, and each query's neighbours in the same order (the slots past a
// query's count are not written).
void ExpectSameResults(const KnnResults& gpu, const KnnResults& cpu) {
    ExpectSameBytes(gpu.counts, cpu.counts, "counts");
    ExpectSameBytes(gpu.radii, cpu.radii, "radii");
    ASSERT_EQ(gpu.queries(), cpu.queries());
    const std::vector<uint32_t> counts = cpu.counts.Download();
    const std::vector<uint32_t> gi = gpu.indices.Download(), ci = cpu.indices.Download();
    const std::vector<float> gd = gpu.dist2.Download(), cd = cpu.dist2.Download();
    const size_t nq = counts.size();
    int reported = 0;
    for (size_t i = 0; i < nq; ++i) {
        for (uint32_t j = 0; j < counts[i]; ++j) {
            const size_t at = j * nq + i;
            if ((gi[at] != ci[at] || std::memcmp(&gd[at], &cd[at], sizeof(float)) != 0) && reported++ < 5)
                ADD_FAILURE() << "query " << i << " neighbour " << j << ": GPU " << gi[at] << " at " << gd[at]
                              << ", CPU " << ci[at] << " at " << cd[at];
        }
    }
}

void Build(const Backend& backend, const std::vector<Vec3>& points, const PointTreeParams& params, PointTree& tree) {
    Buffer<Vec3> positions(backend);
    positions.Upload(points);
    PointTreeBuilder(backend, params).Build(Span<const Vec3>(positions.span()), tree);
}

TEST(PointTreeGpu, SameTreeSameRadiiSameKnnAsCpu) {
    CA_REQUIRE_GPU(gpu);
    const Backend cpu = Backend::Cpu();
    for (const NamedSet& set : StandardSets(50000)) {
        const std::vector<Vec3> queries = StandardQueries(set.points, 1500);
        for (KnnMethod method : {KnnMethod::Histogram, KnnMethod::Exact}) {
            SCOPED_TRACE(set.name + ", " + KnnMethodName(method) + ", seed " + std::to_string(kSeed));
            KnnSettings settings;
            settings.method = method;
            TreeOnBackend g(gpu), c(cpu);
            BuildAndQuery(gpu, set.points, queries, PointTreeParams(), settings, g);
            BuildAndQuery(cpu, set.points, queries, PointTreeParams(), settings, c);
            EXPECT_EQ(CheckPointTree(g.tree, Span<const Vec3>(set.points), PointTreeParams().max_depth), "");
            ExpectSameTree(g.tree, c.tree);
            ExpectSameBytes(g.radii.estimates(), c.radii.estimates(), "node radii");
            ExpectSameResults(g.results, c.results);
            double err = 0.0;
            for (const std::string& f : CheckKnn(set.points, queries, settings, g.results, 1e-3f, &err))
                ADD_FAILURE() << f;
            EXPECT_LE(err, 1e-3);
        }
    }
}

// The medium subtrees on the GPU, a block each, against the CPU's, and both against the tree of
// the large-node levels alone (medium_node_threshold = small_node_threshold).
TEST(PointTreeGpu, MediumSubtreesAsCpu) {
    CA_REQUIRE_GPU(gpu);
    const Backend cpu = Backend::Cpu();
    for (const NamedSet& set : MediumSets()) {
        for (const auto& [name, params] : MediumCases()) {
            SCOPED_TRACE(set.name + ", " + name + ", seed " + std::to_string(kSeed));
            PointTreeParams levels = params;
            levels.medium_node_threshold = params.small_node_threshold;
            PointTree g(gpu), c(cpu), l(gpu);
            Build(gpu, set.points, params, g);
            Build(cpu, set.points, params, c);
            Build(gpu, set.points, levels, l);
            EXPECT_EQ(CheckPointTree(g, Span<const Vec3>(set.points), params.max_depth), "");
            ExpectSameTree(g, c);
            ExpectSameTree(l, c);
        }
    }
}

TEST(PointTreeGpu, TinySetsAndMaxRadius) {
    CA_REQUIRE_GPU(gpu);
    const Backend cpu = Backend::Cpu();
    for (uint32_t n : {0u, 1u, 49u, 50u, 51u, 33u}) {
        const std::vector<Vec3> points = MakePoints(PointDistribution::Uniform, n, kSeed);
        const std::vector<Vec3> queries = StandardQueries(points, 90);
        for (KnnMethod method : {KnnMethod::Histogram, KnnMethod::Exact}) {
            SCOPED_TRACE("points: " + std::to_string(n) + ", " + KnnMethodName(method));
            KnnSettings settings;
            settings.method = method;
            settings.max_radius = 0.5f;
            TreeOnBackend g(gpu), c(cpu);
            BuildAndQuery(gpu, points, queries, PointTreeParams(), settings, g);
            BuildAndQuery(cpu, points, queries, PointTreeParams(), settings, c);
            ExpectSameTree(g.tree, c.tree);
            ExpectSameResults(g.results, c.results);
            for (const std::string& f : CheckKnn(points, queries, settings, g.results, 1e-3f, nullptr))
                ADD_FAILURE() << f;
        }
    }
}

TEST(PointTreeGpu, ExactKnnWithLargeKAsCpu) {
    // k = 120: the GPU keeps the heap in the result slot instead of shared memory.
    CA_REQUIRE_GPU(gpu);
    const Backend cpu = Backend::Cpu();
    const std::vector<Vec3> points = MakePoints(PointDistribution::Clustered, 50000, kSeed);
    const std::vector<Vec3> queries = StandardQueries(points, 1500);
    KnnSettings settings;
    settings.method = KnnMethod::Exact;
    settings.k = 120;
    TreeOnBackend g(gpu), c(cpu);
    BuildAndQuery(gpu, points, queries, PointTreeParams(), settings, g);
    BuildAndQuery(cpu, points, queries, PointTreeParams(), settings, c);
    ExpectSameResults(g.results, c.results);
    double err = 0.0;
    for (const std::string& f : CheckKnn(points, queries, settings, g.results, 0.0f, &err)) ADD_FAILURE() << f;
    EXPECT_EQ(err, 0.0);
}

// The exact search on one share of the SMs, joined from the other (kdtree/point/knn_join.h): each
// query's neighbours as the CPU finds them, whichever launch took it. 2M queries keep the first
// launch busy for milliseconds, so the joining one takes some (core_gpu_tests checks the sharing).
TEST(PointTreeGpu, ExactKnnJoinedFromAnotherShareAsCpu) {
    CA_REQUIRE_GPU(gpu);
    const Backend cpu = Backend::Cpu();
    const std::vector<Vec3> points = MakePoints(PointDistribution::Clustered, 200000, kSeed);
    const std::vector<Vec3> queries = MakeQueries(points, 2000000, false, kSeed);
    KnnSettings settings;
    settings.method = KnnMethod::Exact;
    TreeOnBackend g(gpu), c(cpu);
    BuildAndQuery(gpu, points, queries, PointTreeParams(), settings, g);
    BuildAndQuery(cpu, points, queries, PointTreeParams(), settings, c);
    const SmShares shares(gpu.device(), 16);
    KnnResults joined(gpu);
    KnnJoin join(gpu);
    // The second use starts its counters afresh and hands its chunks out by the first use's times.
    for (int round = 0; round < 2; ++round) {
        {
            const ThreadStreamScope scope(shares.SecondStream());
            KnnBatch(gpu, g.tree.View(), g.radii.View(), Span<const Vec3>(g.queries.span()), settings, joined, &join);
        }
        {
            const ThreadStreamScope scope(shares.FirstStream());
            join.Join();
        }
        shares.Synchronize();
        ExpectSameResults(joined, c.results);
    }
}

TEST(PointTreeGpu, MillionPointsSameTreeAndExactKnn) {
    CA_REQUIRE_GPU(gpu);
    const Backend cpu = Backend::Cpu();
    const std::vector<Vec3> points = MakePoints(PointDistribution::Plane, 1000000, kSeed);
    const std::vector<Vec3> queries = MakeQueries(points, 20000, true, kSeed);
    KnnSettings settings;
    TreeOnBackend g(gpu), c(cpu);
    BuildAndQuery(gpu, points, queries, PointTreeParams(), settings, g);
    BuildAndQuery(cpu, points, queries, PointTreeParams(), settings, c);
    ExpectSameTree(g.tree, c.tree);
    ExpectSameResults(g.results, c.results);
    KnnSettings exact_settings = settings;
    exact_settings.method = KnnMethod::Exact;
    KnnResults exact(gpu);
    KnnBatch(gpu, g.tree.View(), g.radii.View(), Span<const Vec3>(g.queries.span()), exact_settings, exact);
    ExpectSameBytes(exact.radii, g.results.radii, "exact vs histogram radii");
}

}  // namespace
}  // namespace caustica::testing
