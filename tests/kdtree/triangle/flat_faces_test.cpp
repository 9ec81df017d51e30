// On machined parts with large flat faces parallel to the axes, the BFS tree's SAH cost against the
// exact builder's (Wald and Havran 2006). Zhou et al. 2008's median splits in the large-node stage
// gave 1.10-1.25 here; the SAH choice among box faces in that stage (bfs_binned_sah.h) brings the
// bracket, the box with holes and the stacked plates within 5%, as on organic meshes. The gear's
// long cap triangles need the small-node stage's straddler test too (SahParams, on by default).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "kdtree/triangle/bfs_builder.h"
#include "kdtree/triangle/exact_sah_builder.h"
#include "kdtree/triangle/sah_cost.h"
#include "renderer/bench/generated_meshes.h"
#include "tests/kdtree/triangle/test_scenes.h"
#include "tests/kdtree/triangle/tree_check.h"

namespace caustica {
namespace {

struct FlatMesh {
    const char* name;
    std::vector<Triangle> tris;
};

std::vector<FlatMesh> FlatMeshes() {
    return {{"bracket", FlatBracket()}, {"box with holes", FlatBoxWithHoles()},
            {"stacked plates", FlatStackedPlates()}, {"gear", FlatGear()}};
}

// The BFS tree's SAH cost over the exact tree's, with every check of the tree.
double SahRatio(const FlatMesh& mesh, const SahParams& params) {
    const Backend cpu = Backend::Cpu();
    BfsSahBuilder builder(cpu, params);
    SahTree bfs(cpu), exact(MemorySpace::Host);
    builder.Build(Span<const Triangle>(mesh.tris), bfs);
    BuildExactSahTree(Span<const Triangle>(mesh.tris), {}, exact);
    const double ratio = SahCost(bfs, {}) / SahCost(exact, {});
    std::printf("%-16s %6zu triangles%s: BFS / exact SAH cost %.4f\n", mesh.name, mesh.tris.size(),
                params.test_small_stage_straddlers ? ", straddler test" : "", ratio);
    const testing::HostTree tree = testing::Download(bfs);
    EXPECT_EQ(testing::CheckCompleteness(tree, mesh.tris), "");
    std::string problem;
    EXPECT_EQ(testing::CountRayMismatches(tree, mesh.tris, 3000, 77, &problem), 0) << problem;
    return ratio;
}

TEST(FlatFaces, EveryMeshIsWithinFivePercentOfTheExactBuilder) {
    for (const FlatMesh& mesh : FlatMeshes()) {
        SCOPED_TRACE(mesh.name);
        EXPECT_LE(SahRatio(mesh, {}), 1.05);  // measured: 0.95, 1.01, 0.92, 1.04
    }
}

// Small objects on a floor a few hundred times their size (a glass on a table): the median splits
// of the first levels, above binned_sah_max_entries, cut through the objects, and the floor's two
// triangles keep every node from being empty space, so Zhou et al.'s cuts of empty space never
// take the objects out. Taking the SAH's faces where they cost less than 0.8 times the median
// (SahParams::median_or_sah_max_entries, on by default) brings the ball to the exact builder's
// cost. The ring and ball needs empty space cut by its share of the cell's area as well
// (SahParams::empty_space_area_ratio): cut where it exceeded a quarter of the extent (Zhou et al.'s
// Ce), the flat cells over the floor were cut across their thin axis and the tree cost 1.078 times
// the exact builder's.
struct FloorMesh {
    FlatMesh mesh;
    double bound, median_alone_above;  // measured: 0.9998 and 1.4160; 0.9715 and 1.0785
};

std::vector<FloorMesh> ObjectsOnAFloor() {
    return {{{"ball on a floor", testing::BallOnAFloor()}, 1.05, 1.3},
            {{"ring and ball", testing::RingAndBallOnAFloor()}, 1.05, 1.07}};
}

TEST(FlatFaces, ObjectsOnAFloorNeedTheSahAboveTheBinnedSahLimitAndCutsByArea) {
    SahParams median_alone;
    median_alone.median_or_sah_max_entries = 0;
    for (const FloorMesh& m : ObjectsOnAFloor()) {
        SCOPED_TRACE(m.mesh.name);
        EXPECT_LE(SahRatio(m.mesh, {}), m.bound);  // the default: the median weighed against the SAH
        EXPECT_GT(SahRatio(m.mesh, median_alone), m.median_alone_above);
    }
}

TEST(FlatFaces, WithoutTheStraddlerTestTheGearStraysFurther) {
    SahParams params;
    params.test_small_stage_straddlers = false;
    for (const FlatMesh& mesh : FlatMeshes()) {
        SCOPED_TRACE(mesh.name);
        const bool gear = std::string(mesh.name) == "gear";
        // Measured: 0.95, 1.01, 0.92 and the gear 1.070 (1.05 with median splits alone), where
        // the straddler test gives it 1.043.
        const double without = SahRatio(mesh, params);
        EXPECT_LE(without, gear ? 1.08 : 1.05);
        if (gear) {
            EXPECT_GT(without, SahRatio(mesh, {}) + 0.01);
        }
    }
}

}  // namespace
}  // namespace caustica
