// ParallelForPaths on the CPU: every item started once and stepped to its end.
#include <gtest/gtest.h>

#include "tests/core/paths_test_pass.h"

namespace caustica {
namespace {

TEST(ParallelForPaths, EveryItemRunsItsStepsOnce) {
    for (uint32_t n : {0u, 1u, 31u, 33u, 100003u}) {
        const testing::PathsRun run = testing::RunPaths(Backend::Cpu(), n);
        EXPECT_EQ(run.sums, testing::SerialPathSums(n)) << n << " items";
        EXPECT_EQ(run.starts, std::vector<uint32_t>(n, 1u)) << n << " items, each started once";
    }
}

}  // namespace
}  // namespace caustica
