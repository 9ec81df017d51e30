// ParallelForPaths's persistent warps, which hand idle lanes the next items, against the plain
// loop. A launch unit: nvcc compiles it in a CUDA build.
#include <gtest/gtest.h>

#include "tests/core/paths_test_pass.h"
#include "tests/test_support.h"

namespace caustica {
namespace {

class ParallelForPathsGpu : public ::testing::TestWithParam<uint32_t> {};

// Fewer items than a warp, a warp and one more, and far more than the resident warps hold.
INSTANTIATE_TEST_SUITE_P(Sizes, ParallelForPathsGpu, ::testing::Values(0u, 1u, 31u, 32u, 33u, 1000u, 100003u, 3000001u));

TEST_P(ParallelForPathsGpu, EveryItemRunsItsStepsOnce) {
    CA_REQUIRE_GPU(gpu);
    const uint32_t n = GetParam();
    const testing::PathsRun run = testing::RunPaths(gpu, n);
    EXPECT_EQ(run.sums, testing::SerialPathSums(n));
    EXPECT_EQ(run.starts, std::vector<uint32_t>(n, 1u)) << "every item started exactly once";
}

// The counter of items handed out starts from 0 at every use.
TEST(ParallelForPathsGpuReuse, ManyUsesInARow) {
    CA_REQUIRE_GPU(gpu);
    for (uint32_t use = 0; use < 50; ++use) {
        const uint32_t n = 5000 + use * 997;
        ASSERT_EQ(testing::RunPaths(gpu, n).sums, testing::SerialPathSums(n)) << "use " << use;
    }
}

}  // namespace
}  // namespace caustica
