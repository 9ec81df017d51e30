// ParallelForPaths's persistent warps, which hand idle lanes the next items, against the plain
// loop, on the whole GPU and on shares of its SMs. A launch unit: nvcc compiles it in a CUDA build.
#include <gtest/gtest.h>

#include <utility>

#include "core/sm_share.h"
#include "core/thread_stream.h"
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

// On a share of the SMs the grid is what that share holds at once (more blocks would wait for the
// first ones to end, and hold back the kernels queued after them), and every item still runs once.
TEST(ParallelForPathsGpuShare, TheGridFitsTheShareItRunsOn) {
    CA_REQUIRE_GPU(gpu);
#if defined(__CUDACC__)  // the grid is CUDA code
    const uint32_t many = 1u << 26;  // more items than any GPU holds lanes for at once
    const unsigned whole = detail::PathsGrid<testing::CountedPaths>(many);
    const int all = SmCount(gpu.device());
    const SmShares shares(gpu.device(), 16);
    for (const auto& [stream, sms] : {std::pair(shares.FirstStream(), shares.FirstSms()),
                                      std::pair(shares.SecondStream(), shares.SecondSms())}) {
        const ThreadStreamScope scope(stream);
        EXPECT_EQ(detail::PathsGrid<testing::CountedPaths>(many), whole / unsigned(all) * unsigned(sms))
            << "a share of " << sms << " SMs";
        const uint32_t n = 100003;
        const testing::PathsRun run = testing::RunPaths(gpu, n);
        EXPECT_EQ(run.sums, testing::SerialPathSums(n)) << "a share of " << sms << " SMs";
        EXPECT_EQ(run.starts, std::vector<uint32_t>(n, 1u)) << "a share of " << sms << " SMs";
    }
    EXPECT_EQ(detail::PathsGrid<testing::CountedPaths>(many), whole) << "the thread's own stream again";
#else
    static_cast<void>(gpu);  // without CUDA, CA_REQUIRE_GPU has skipped the test
#endif
}

}  // namespace
}  // namespace caustica
