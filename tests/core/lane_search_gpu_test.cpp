// PartitionPoint with a warp's lanes (ParallelForLanes on the GPU) against a binary search. A launch
// unit: nvcc compiles it in a CUDA build.
#include <gtest/gtest.h>

#include "core/buffer.h"
#include "tests/core/lane_search_test_pass.h"
#include "tests/test_support.h"

namespace caustica {
namespace {

TEST(LaneSearchGpu, WarpEqualsABinarySearch) {
    CA_REQUIRE_GPU(gpu);
    for (const uint32_t n : {1u, 31u, 33u, 1000u, 100000u}) {
        SCOPED_TRACE(n);
        const testing::LaneSearchQueries q = testing::MakeLaneSearchQueries(n, 2000, n + 7);
        Buffer<uint32_t> values(gpu), lo(gpu), hi(gpu), limit(gpu), found(gpu);
        values.Upload(Span<const uint32_t>(q.values));
        lo.Upload(Span<const uint32_t>(q.lo));
        hi.Upload(Span<const uint32_t>(q.hi));
        limit.Upload(Span<const uint32_t>(q.limit));
        found.Resize(q.lo.size());
        ParallelForLanes(gpu, "lane search", q.lo.size(),
                         testing::LaneSearchPass{values.data(), lo.data(), hi.data(), limit.data(), found.data()});
        EXPECT_EQ(found.Download(), testing::BinarySearchAnswers(q));
    }
}

}  // namespace
}  // namespace caustica
