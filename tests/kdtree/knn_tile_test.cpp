// KNN over tiles of coherent queries (knn_tile.h): the queries of a dense image-like raster share
// lists and still get the exact neighbours; the split of a tile into groups.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "kdtree/knn_batch.h"
#include "kdtree/knn_tile.h"
#include "point_test_support.h"

namespace caustica::testing {
namespace {

// Dense rasters (two queries per point, as a 1080p frame over 1M photons): most queries share a
// list, those at the raster's margin or near a dense curve take smaller groups or their own path.
void ExpectBothPathsRun(const TreeOnBackend& t, const std::vector<Vec3>& queries, const KnnSettings& settings) {
    const uint32_t tiles = uint32_t(queries.size() + kKnnTileQueries - 1) / kKnnTileQueries;
    const KnnTileWork w = CountKnnTileWork(t.tree.View(), t.radii.View(), Span<const Vec3>(queries), settings, tiles);
    SCOPED_TRACE(std::to_string(w.sharing) + " of " + std::to_string(w.queries) + " queries share");
    EXPECT_EQ(w.tiles, tiles);
    EXPECT_EQ(w.queries, queries.size());
    EXPECT_GT(w.sharing, w.queries / 2);
    EXPECT_LT(w.sharing, w.queries);
    EXPECT_GT(w.list_points, double(settings.k));
    EXPECT_LE(w.list_points, double(kKnnTileCandidates));
}

TEST(KnnTile, CoherentQueriesMatchBruteForce) {
    const Backend cpu = Backend::Cpu();
    const std::vector<Vec3> points = MakePoints(PointDistribution::Room, 8000, kSeed);
    const std::vector<Vec3> queries = MakeQueries(PointDistribution::Room, points, 16000, true, kSeed);
    KnnSettings settings;
    TreeOnBackend t(cpu);
    BuildAndQuery(cpu, points, queries, PointTreeParams(), settings, t);
    double err = 0.0;
    for (const std::string& f : CheckKnn(points, queries, settings, t.results, 1e-3f, &err)) ADD_FAILURE() << f;
    EXPECT_LE(err, 1e-3);
    ExpectBothPathsRun(t, queries, settings);
}

// At a larger size, against the exact KNN: the same counts, radii and neighbours.
TEST(KnnTile, CoherentQueriesMatchExactKnn) {
    const Backend cpu = Backend::Cpu();
    const std::vector<Vec3> points = MakePoints(PointDistribution::Plane, 64000, kSeed);
    const std::vector<Vec3> queries = MakeQueries(PointDistribution::Plane, points, 128000, true, kSeed);
    KnnSettings settings;
    TreeOnBackend t(cpu);
    BuildAndQuery(cpu, points, queries, PointTreeParams(), settings, t);
    KnnResults exact(cpu);
    ExactKnnBatch(cpu, t.tree.View(), Span<const Vec3>(queries), settings, exact);
    EXPECT_EQ(t.results.counts.Download(), exact.counts.Download());
    EXPECT_EQ(t.results.radii.Download(), exact.radii.Download());
    const KnnResultsView a = t.results.View(), b = exact.View();
    int reported = 0;
    for (uint32_t i = 0; i < a.queries; ++i) {
        std::vector<std::pair<float, uint32_t>> x, y;
        for (uint32_t j = 0; j < a.counts[i]; ++j) x.push_back({a.Dist2(i, j), a.Index(i, j)});
        for (uint32_t j = 0; j < b.counts[i]; ++j) y.push_back({b.Dist2(i, j), b.Index(i, j)});
        std::sort(x.begin(), x.end());
        std::sort(y.begin(), y.end());
        if (x != y && reported++ < 5) ADD_FAILURE() << "query " << i << ": other neighbours than the exact KNN";
    }
    ExpectBothPathsRun(t, queries, settings);
}

// Lanes of a made-up tile: query l at x = position[l], radius 1, and a "tree" with one point per
// unit of x, so a group's list holds its box's width in points.
struct LineLanes {
    std::vector<float> x;
    std::vector<std::pair<uint32_t, uint32_t>> gathers;  // (first, limit) of each call
    Aabb BallBox(uint32_t group) const {
        Aabb box;
        for (uint32_t l = 0; l < 32; ++l)
            if (group >> l & 1u) box.Extend(Aabb(Vec3(x[l] - 1.0f), Vec3(x[l] + 1.0f)));
        return box;
    }
    Aabb PointBox(uint32_t group) const {
        Aabb box;
        for (uint32_t l = 0; l < 32; ++l)
            if (group >> l & 1u) box.Extend(Vec3(x[l], 0.0f, 0.0f));
        return box;
    }
    uint32_t Below(uint32_t group, int axis, float value) const {
        uint32_t below = 0;
        for (uint32_t l = 0; l < 32; ++l)
            if ((group >> l & 1u) && Vec3(x[l], 0.0f, 0.0f)[axis] < value) below |= 1u << l;
        return below;
    }
    uint32_t Gather(const Aabb& box, uint32_t first, uint32_t limit) {
        gathers.push_back({first, limit});
        const uint32_t count = uint32_t(box.hi.x - box.lo.x);
        return count <= limit ? count : limit + 1;
    }
};

TEST(KnnTile, AFarQueryPartsFromTheRestAndGroupsShareTheCapacity) {
    LineLanes lanes;
    for (uint32_t l = 0; l < 32; ++l) lanes.x.push_back(float(l));
    lanes.x[31] = 1000.0f;  // off the receiver: the whole tile's box would hold 1002 points
    std::vector<std::array<uint32_t, 3>> groups;
    ShareTileLists(lanes, 0xffffffffu, 100, [&](uint32_t group, uint32_t first, uint32_t count) {
        groups.push_back({group, first, count});
    });
    // The whole tile does not fit; split at x = 500: lanes 0..30 (box -1..31, 32 points), then lane 31.
    ASSERT_EQ(groups.size(), 2u);
    EXPECT_EQ(groups[0][0], 0x7fffffffu);
    EXPECT_EQ(groups[0][1], 0u);
    EXPECT_EQ(groups[0][2], 32u);
    EXPECT_EQ(groups[1][0], 0x80000000u);
    EXPECT_EQ(groups[1][1], 32u);  // after the first group's list
    EXPECT_EQ(groups[1][2], 2u);
    ASSERT_EQ(lanes.gathers.size(), 3u);
    EXPECT_EQ(lanes.gathers[2].second, 100u - 32u);  // what the first group left
}

TEST(KnnTile, QueriesThatDoNotFitEvenAloneGetNoList) {
    LineLanes lanes;
    for (uint32_t l = 0; l < 32; ++l) lanes.x.push_back(float(l) * 10.0f);
    uint32_t assigned = 0;
    ShareTileLists(lanes, 0x3u, 1, [&](uint32_t group, uint32_t, uint32_t) { assigned |= group; });
    EXPECT_EQ(assigned, 0u);  // each lane's own box holds 2 points, the capacity is 1
    ShareTileLists(lanes, 0u, 512, [&](uint32_t group, uint32_t, uint32_t) { assigned |= group; });
    EXPECT_EQ(assigned, 0u);  // no members, no gathers
}

}  // namespace
}  // namespace caustica::testing
