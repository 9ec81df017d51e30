// Every traversal walk (stack, push-down, short stacks of 4, 1 and 2 entries) against brute force
// and against the stack walk, on the CPU: generated scenes and real meshes, rays from inside the
// box, along the axes and in split planes, and the deepest tree traversal accepts.
#include <gtest/gtest.h>


#include "core/backend.h"
#include "kdtree/triangle/exact_sah_builder.h"
#include "kdtree/triangle/sah_params.h"
#include "kdtree/triangle/traversal.h"
#include "renderer/bench/generated_meshes.h"
#include "renderer/bench/ray_sets.h"
#include "tests/kdtree/triangle/kdtree_test_helpers.h"
#include "tests/kdtree/triangle/traversal_walks.h"
#include "tests/test_support.h"

namespace caustica {
namespace {

using testing::BuilderCase;
using testing::TraversalWalk;

SahTree BuildWith(const BuilderCase& builder, const std::vector<Triangle>& triangles) {
    SahTree tree(MemorySpace::Host);
    builder.build(Span<const Triangle>(triangles), {}, tree);
    return tree;
}

// The walks that restart: every one but the stack walk (which comes first).
void ExpectRestartsHappened(const std::vector<uint64_t>& restarts, const std::string& what) {
    const std::vector<TraversalWalk> walks = testing::TraversalWalks();
    ASSERT_EQ(restarts.size(), walks.size());
    for (size_t i = 0; i < walks.size(); ++i) {
        if (walks[i].variant == TraversalVariant::Stack)
            EXPECT_EQ(restarts[i], 0u) << what << ", " << walks[i].name;
        else
            EXPECT_GT(restarts[i], 0u) << what << ", " << walks[i].name << " never restarted";
    }
}

TEST(TraversalWalks, CoverEveryVariantAndShortStacksOfOneAndTwo) {
    const std::vector<TraversalWalk> walks = testing::TraversalWalks();
    ASSERT_EQ(walks.size(), 5u);
    EXPECT_EQ(walks[0].variant, TraversalVariant::Stack);
    EXPECT_EQ(walks[1].variant, TraversalVariant::PushDown);
    EXPECT_EQ(walks[2].variant, TraversalVariant::ShortStack);
    EXPECT_EQ(walks[3].short_stack_entries, 1);
    EXPECT_EQ(walks[4].short_stack_entries, 2);
}

class TraversalVariantTest : public ::testing::TestWithParam<BuilderCase> {};

TEST_P(TraversalVariantTest, GeneratedScenesMatchBruteForceAndTheStackWalk) {
    for (const testing::NamedScene& scene : testing::GeneratedScenes()) {
        SCOPED_TRACE(scene.name);
        const SahTree tree = BuildWith(GetParam(), scene.triangles);
        // Mixed rays (camera, random from inside the box, along the axes through vertices, at
        // vertices and edges, from surfaces) and rays in and across split planes.
        std::vector<Ray> rays = testing::MixedRays(scene.triangles, 800, 53);
        const std::vector<Ray> planes = testing::SplitPlaneRays(tree, 400, 59);
        EXPECT_GE(planes.size(), 5u * 400u);
        rays.insert(rays.end(), planes.begin(), planes.end());
        const std::vector<uint64_t> restarts =
            testing::ExpectEveryWalkMatchesBruteForce(tree, scene.triangles, rays, scene.name);
        ExpectRestartsHappened(restarts, scene.name);
    }
}

TEST_P(TraversalVariantTest, AxisParallelRaysFromInsideAndOutside) {
    const std::vector<Triangle> triangles = InstancedMeshScene(5000, 13);
    const SahTree tree = BuildWith(GetParam(), triangles);
    const Aabb box = tree.bounds;
    std::vector<Ray> rays;
    for (int i = 0; i < 20; ++i)
        for (int j = 0; j < 20; ++j)
            for (int axis = 0; axis < 3; ++axis) {
                const int u = (axis + 1) % 3, v = (axis + 2) % 3;
                Vec3 p = box.lo;
                p[u] += box.Extent()[u] * (i + 0.5f) / 20.0f;
                p[v] += box.Extent()[v] * (j + 0.5f) / 20.0f;
                Vec3 d(0.0f);
                d[axis] = 1.0f;
                Vec3 inside = p;
                inside[axis] += box.Extent()[axis] * 0.37f;
                Vec3 outside = p;
                outside[axis] -= box.Extent()[axis];
                rays.emplace_back(inside, d);
                rays.emplace_back(inside, -d);
                rays.emplace_back(outside, d);
            }
    const std::vector<uint64_t> restarts =
        testing::ExpectEveryWalkMatchesBruteForce(tree, triangles, rays, "axis-parallel");
    ExpectRestartsHappened(restarts, "axis-parallel");
}

TEST_P(TraversalVariantTest, RealMeshesMatchBruteForceAndTheStackWalk) {
    CA_REQUIRE_MODELS(models);
    for (const testing::NamedScene& mesh : testing::LoadModels(models, {"teapot.obj", "stanford-bunny.obj"})) {
        SCOPED_TRACE(mesh.name);
        const SahTree tree = BuildWith(GetParam(), mesh.triangles);
        std::vector<Ray> rays = testing::MixedRays(mesh.triangles, 300, 61);
        const std::vector<Ray> planes = testing::SplitPlaneRays(tree, 200, 67);
        rays.insert(rays.end(), planes.begin(), planes.end());
        const std::vector<uint64_t> restarts =
            testing::ExpectEveryWalkMatchesBruteForce(tree, mesh.triangles, rays, mesh.name);
        ExpectRestartsHappened(restarts, mesh.name);
    }
}

INSTANTIATE_TEST_SUITE_P(Builders, TraversalVariantTest, ::testing::ValuesIn(testing::CpuBuilders()),
                         [](const ::testing::TestParamInfo<BuilderCase>& info) { return info.param.name; });

TEST(TraversalVariants, TheDeepestTreeUsesTheWholeTrail) {
    const testing::CombScene comb = testing::DeepestComb();
    ASSERT_TRUE(IsTraversable(comb.tree.View()));
    const std::vector<uint64_t> restarts =
        testing::ExpectEveryWalkMatchesBruteForce(comb.tree, comb.triangles, comb.rays, "comb");
    ExpectRestartsHappened(restarts, "comb");
    // The ray along +x from the first leaf passes every plane: it visits all kMaxTraversalDepth + 1
    // leaves, with kMaxTraversalDepth pending far children at the deepest.
    for (const TraversalWalk& walk : testing::TraversalWalks()) {
        const std::vector<TraversalCost> costs =
            testing::MeasureClosestHits(walk, comb.tree.View(), comb.triangles.data(), {comb.rays[0]});
        EXPECT_EQ(costs[0].leaves, uint32_t(kMaxTraversalDepth + 1)) << walk.name;
        EXPECT_EQ(FindClosestHitBruteForce(comb.triangles.data(), 2, comb.rays[0]).triangle, 1);
    }
}

TEST(TraversalVariants, RaysMissingTheBoxOrWithEmptySegments) {
    const std::vector<Triangle> triangles = TessellatedSphere(Vec3(0.0f), 1.0f, 10, 20);
    SahTree tree(MemorySpace::Host);
    BuildExactSahTree(Span<const Triangle>(triangles), {}, tree);
    const std::vector<Ray> rays = {
        Ray(Vec3(5, 5, 5), Vec3(1, 0, 0)),                 // beside the box, away from it
        Ray(Vec3(-5, 0, 0), Vec3(-1, 0, 0)),               // pointing away
        Ray(Vec3(-5, 0.1f, 0), Vec3(1, 0, 0), 0.0f, 1.0f),  // stops before the box
        Ray(Vec3(-5, 0.1f, 0), Vec3(1, 0, 0), 20.0f),      // starts past the box
        Ray(Vec3(0, 0, 0), Vec3(0, 1, 0), 0.5f, 0.5f),     // an empty segment
    };
    testing::ExpectEveryWalkMatchesBruteForce(tree, triangles, rays, "misses");
    for (const TraversalWalk& walk : testing::TraversalWalks()) {
        std::vector<Hit> hits(rays.size());
        testing::TraceClosestHits(Backend::Cpu(), walk, tree.View(), Span<const Triangle>(triangles),
                                  Span<const Ray>(rays), Span<Hit>(hits));
        for (const Hit& h : hits) EXPECT_FALSE(h.Valid()) << walk.name;
    }
}

}  // namespace
}  // namespace caustica
