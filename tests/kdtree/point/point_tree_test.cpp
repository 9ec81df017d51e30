// The point kd-tree build on the CPU: valid trees on every kind of set, determinism, reuse of the
// builder, the depth bound, and points through PointTraits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "kdtree/point/point_tree_builder.h"
#include "kdtree/point/point_tree_check.h"
#include "tests/kdtree/point/point_test_support.h"

namespace caustica::testing {
namespace {

PointTree BuildOn(const Backend& backend, const std::vector<Vec3>& points, const PointTreeParams& params = {}) {
    Buffer<Vec3> positions(backend);
    positions.Upload(points);
    PointTree tree(backend);
    PointTreeBuilder builder(backend, params);
    builder.Build(Span<const Vec3>(positions.span()), tree);
    return tree;
}

template <class T>
bool SameBytes(const Buffer<T>& a, const Buffer<T>& b) {
    const std::vector<T> x = a.Download(), y = b.Download();
    return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(T)) == 0);
}

bool SameTree(const PointTree& a, const PointTree& b) {
    return SameBytes(a.nodes, b.nodes) && SameBytes(a.boxes, b.boxes) && SameBytes(a.ranges, b.ranges) &&
           SameBytes(a.points, b.points) && a.max_depth == b.max_depth && a.radius == b.radius;
}

TEST(PointTreeBuild, ValidOnEverySet) {
    const Backend cpu = Backend::Cpu();
    for (const NamedSet& set : StandardSets(20000)) {
        for (float fraction : {0.0f, PointTreeParams().min_split_fraction, 0.5f}) {
            SCOPED_TRACE(set.name + ", min_split_fraction " + std::to_string(fraction) + ", seed " + std::to_string(kSeed));
            PointTreeParams params;
            params.min_split_fraction = fraction;
            const PointTree tree = BuildOn(cpu, set.points, params);
            EXPECT_EQ(CheckPointTree(tree, Span<const Vec3>(set.points), params.max_depth), "");
            EXPECT_GT(tree.nodes.size(), 1u);
        }
    }
}

TEST(PointTreeBuild, PointMedianFallbackShortensClusteredTrees) {
    // On a caustic-like set the spatial median alone needs more levels than the point-median
    // fallback (1M points on the plane: 32 large-node levels against 22).
    const Backend cpu = Backend::Cpu();
    const std::vector<Vec3> points = MakePoints(PointDistribution::Plane, 100000, kSeed);
    PointTreeParams spatial;
    spatial.min_split_fraction = 0.0f;
    EXPECT_LT(BuildOn(cpu, points).max_depth, BuildOn(cpu, points, spatial).max_depth);
}

TEST(PointTreeBuild, FlatWallsStayShallow) {
    // Points on the walls of a room have flat boxes. An empty-space cut that leaves the cell as it
    // was used to repeat on them down to max_depth (48), with thousands of points in a leaf.
    const Backend cpu = Backend::Cpu();
    const std::vector<Vec3> points = MakePoints(PointDistribution::Room, 20000, kSeed);
    const PointTree tree = BuildOn(cpu, points);
    EXPECT_LT(tree.max_depth, 30);
    uint32_t largest_leaf = 0;
    for (const KdNode& n : tree.nodes.Download())
        if (n.IsLeaf()) largest_leaf = std::max(largest_leaf, n.Count());
    EXPECT_LE(largest_leaf, uint32_t(PointTreeParams().small_node_threshold));
}

TEST(PointTreeBuild, TinySets) {
    const Backend cpu = Backend::Cpu();
    for (uint32_t n : {0u, 1u, 2u, 31u, 32u, 33u, 49u, 50u, 51u, 200u}) {
        SCOPED_TRACE("points: " + std::to_string(n));
        const std::vector<Vec3> points = MakePoints(PointDistribution::Uniform, n, kSeed);
        const PointTree tree = BuildOn(cpu, points);
        EXPECT_EQ(CheckPointTree(tree, Span<const Vec3>(points), PointTreeParams().max_depth), "");
    }
}

TEST(PointTreeBuild, AllIdenticalPointsMakeOneLeaf) {
    const Backend cpu = Backend::Cpu();
    const std::vector<Vec3> points = MakePoints(PointDistribution::Duplicates, 10000, kSeed);
    const PointTree tree = BuildOn(cpu, points);
    EXPECT_EQ(CheckPointTree(tree, Span<const Vec3>(points), PointTreeParams().max_depth), "");
    EXPECT_EQ(tree.nodes.size(), 1u);
}

TEST(PointTreeBuild, SmallNodesSplitByVvh) {
    // A spread-out set with a small R: the small-node stage must split nodes below T.
    const Backend cpu = Backend::Cpu();
    const std::vector<Vec3> points = MakePoints(PointDistribution::Uniform, 5000, kSeed);
    PointTreeParams params;
    params.radius = 1e-4f;
    params.cost_traversal = 1.0f;
    const PointTree tree = BuildOn(cpu, points, params);
    ASSERT_EQ(CheckPointTree(tree, Span<const Vec3>(points), params.max_depth), "");
    uint32_t largest_leaf = 0;
    for (const KdNode& n : tree.nodes.Download())
        if (n.IsLeaf()) largest_leaf = std::max(largest_leaf, n.Count());
    EXPECT_LT(largest_leaf, 8u);  // with R near 0 and a node costing one point, down to a few points
    // A dearer node visit: fewer, larger leaves.
    params.cost_traversal = 4.0f;
    const PointTree dear = BuildOn(cpu, points, params);
    ASSERT_EQ(CheckPointTree(dear, Span<const Vec3>(points), params.max_depth), "");
    EXPECT_LT(dear.nodes.size(), tree.nodes.size());
    // A radius as wide as the set: no split pays off in the small stage.
    params.radius = 10.0f;
    const PointTree wide = BuildOn(cpu, points, params);
    ASSERT_EQ(CheckPointTree(wide, Span<const Vec3>(points), params.max_depth), "");
    EXPECT_LT(wide.nodes.size(), tree.nodes.size());
}

TEST(PointTreeBuild, DeterministicAndBuilderReuse) {
    const Backend cpu = Backend::Cpu();
    const std::vector<Vec3> big = MakePoints(PointDistribution::Clustered, 30000, kSeed);
    const std::vector<Vec3> small = MakePoints(PointDistribution::Uniform, 3000, kSeed);
    PointTreeBuilder builder(cpu);
    PointTree a(cpu), b(cpu);
    Buffer<Vec3> pos(cpu);
    pos.Upload(big);
    builder.Build(Span<const Vec3>(pos.span()), a);
    pos.Upload(small);
    builder.Build(Span<const Vec3>(pos.span()), b);  // shrink: stale work lists must not leak in
    EXPECT_TRUE(SameTree(b, BuildOn(cpu, small)));
    pos.Upload(big);
    builder.Build(Span<const Vec3>(pos.span()), b);
    EXPECT_TRUE(SameTree(a, b));
    const size_t capacity = b.nodes.capacity();
    builder.Build(Span<const Vec3>(pos.span()), b);
    EXPECT_EQ(b.nodes.capacity(), capacity);
}

// Building the medium subtrees whole gives the same tree as splitting every large node level by
// level (medium_node_threshold = small_node_threshold), and as a threshold in between.
TEST(PointTreeBuild, MediumSubtreesMakeTheLevelsTree) {
    const Backend cpu = Backend::Cpu();
    for (const NamedSet& set : MediumSets()) {
        for (const auto& [name, params] : MediumCases()) {
            SCOPED_TRACE(set.name + ", " + name + ", seed " + std::to_string(kSeed));
            const PointTree tree = BuildOn(cpu, set.points, params);
            EXPECT_EQ(CheckPointTree(tree, Span<const Vec3>(set.points), params.max_depth), "");
            for (int threshold : {params.small_node_threshold, 3 * params.small_node_threshold + 1}) {
                PointTreeParams levels = params;
                levels.medium_node_threshold = threshold;
                EXPECT_TRUE(SameTree(tree, BuildOn(cpu, set.points, levels))) << "medium_node_threshold " << threshold;
            }
        }
    }
}

TEST(PointTreeBuild, MediumThresholdOutOfRangeIsAnError) {
    const Backend cpu = Backend::Cpu();
    for (int threshold : {-1, 31, 2049}) {
        PointTreeParams params;
        params.medium_node_threshold = threshold;
        EXPECT_THROW(PointTreeBuilder(cpu, params), std::exception) << threshold;
    }
    PointTreeParams params;
    params.small_node_threshold = 4;
    params.medium_node_threshold = 321;  // 64 * (4 + 1) = 320 is the most
    EXPECT_THROW(PointTreeBuilder(cpu, params), std::exception);
}

TEST(PointTreeBuild, DepthBoundMakesLeaves) {
    const Backend cpu = Backend::Cpu();
    const std::vector<Vec3> points = MakePoints(PointDistribution::Clustered, 20000, kSeed);
    PointTreeParams params;
    params.max_depth = 5;
    const PointTree tree = BuildOn(cpu, points, params);
    EXPECT_EQ(CheckPointTree(tree, Span<const Vec3>(points), 5), "");
    EXPECT_EQ(tree.max_depth, 5);
}

struct Photon {
    float power[3];
    Vec3 position;
};

struct PackedPoint {
    float xyz[3];
};

}  // namespace
}  // namespace caustica::testing

namespace caustica {
template <>
struct PointTraits<testing::PackedPoint> {
    CA_HD static Vec3 Position(const testing::PackedPoint& p) { return Vec3(p.xyz[0], p.xyz[1], p.xyz[2]); }
};
}  // namespace caustica

namespace caustica::testing {
namespace {

TEST(PointTreeBuild, PointsThroughTraits) {
    const Backend cpu = Backend::Cpu();
    const std::vector<Vec3> points = MakePoints(PointDistribution::Plane, 4000, kSeed);
    std::vector<Photon> photons(points.size());
    std::vector<PackedPoint> packed(points.size());
    for (size_t i = 0; i < points.size(); ++i) {
        photons[i].position = points[i];
        packed[i] = {{points[i].x, points[i].y, points[i].z}};
    }
    const PointTree expected = BuildOn(cpu, points);
    PointTreeBuilder builder(cpu);
    PointTree a(cpu), b(cpu);
    builder.Build(Span<const Photon>(photons), a);
    builder.Build(Span<const PackedPoint>(packed), b);
    EXPECT_TRUE(SameTree(a, expected));
    EXPECT_TRUE(SameTree(b, expected));
}

}  // namespace
}  // namespace caustica::testing
