// PartitionPoint with one lane (the CPU's) against a binary search.
#include <gtest/gtest.h>

#include "core/backend.h"
#include "tests/core/lane_search_test_pass.h"

namespace caustica {
namespace {

TEST(LaneSearch, OneLaneEqualsABinarySearch) {
    for (const uint32_t n : {1u, 2u, 31u, 32u, 33u, 1000u, 100000u}) {
        SCOPED_TRACE(n);
        const testing::LaneSearchQueries q = testing::MakeLaneSearchQueries(n, 500, n);
        std::vector<uint32_t> found(q.lo.size());
        const testing::LaneSearchPass pass{q.values.data(), q.lo.data(), q.hi.data(), q.limit.data(), found.data()};
        ParallelForLanes(Backend::Cpu(), "lane search", q.lo.size(), pass);
        EXPECT_EQ(found, testing::BinarySearchAnswers(q));
    }
}

}  // namespace
}  // namespace caustica
