// Traversal visits few leaves for rays parallel to split planes: a ray along an axis must not
// descend both sides of every plane it never crosses.
#include <gtest/gtest.h>

#include "kdtree/triangle/bfs_builder.h"
#include "kdtree/triangle/traversal.h"
#include "tests/kdtree/triangle/test_scenes.h"

namespace caustica {
namespace {

TEST(TraversalCost, AxisParallelRaysVisitFewLeaves) {
    const Backend cpu = Backend::Cpu();
    std::vector<Triangle> host = testing::Sphere(64, 128, Vec3(0.0f), 1.0f);
    Buffer<Triangle> triangles(cpu);
    triangles.Upload(Span<const Triangle>(host));
    SahTree tree(cpu);
    BfsSahBuilder(cpu).Build(triangles.span(), tree);
    const Vec3 directions[] = {{0, -1, 0}, {1, 0, 0}, {0, 0, 1}};
    for (const Vec3 d : directions) {
        for (float offset : {0.0f, 0.3f, 0.71f}) {
            Vec3 origin = d * -3.0f;
            origin[(d.x != 0.0f) ? 1 : 0] += offset;  // off the axis, still through the sphere
            const Ray ray(origin, d);
            const TraversalCost cost = MeasureClosestHit(tree.View(), host.data(), ray);
            EXPECT_TRUE(FindClosestHit(tree.View(), host.data(), ray).Valid());
            EXPECT_LE(cost.leaves, 2u * uint32_t(tree.max_depth)) << "direction " << d.x << " " << d.y << " " << d.z;
        }
    }
}

}  // namespace
}  // namespace caustica
