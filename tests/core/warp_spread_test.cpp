// WarpSpread: every item taken by exactly one thread for any group size, one warp a group keeping
// the queue in order, and a warp's lanes taking items a group's warp count apart.
#include <gtest/gtest.h>

#include <vector>

#include "core/warp_spread.h"

namespace caustica {
namespace {

TEST(WarpSpread, EveryItemOnce) {
    for (uint32_t group_warps : {1u, 2u, 8u, 13u}) {
        for (uint32_t count : {0u, 1u, 31u, 32u, 33u, 255u, 256u, 257u, 1000u, 97930u}) {
            SCOPED_TRACE(std::to_string(group_warps) + " warps a group, " + std::to_string(count) + " items");
            const WarpSpread spread{count, group_warps};
            ASSERT_EQ(spread.Threads() % (32 * group_warps), 0u);
            ASSERT_LT(spread.Threads() - count, 32u * group_warps);
            std::vector<int> taken(count, 0);
            size_t spare = 0;
            for (uint32_t t = 0; t < spread.Threads(); ++t) {
                const uint32_t item = spread.Item(t);
                if (item == count) ++spare;
                else ++taken.at(item);
            }
            for (uint32_t i = 0; i < count; ++i) ASSERT_EQ(taken[i], 1) << "item " << i;
            EXPECT_EQ(spare, spread.Threads() - count);
        }
    }
}

TEST(WarpSpread, OneWarpAGroupKeepsTheOrder) {
    const WarpSpread spread{1000, 1};
    for (uint32_t t = 0; t < 1000; ++t) EXPECT_EQ(spread.Item(t), t);
    EXPECT_EQ(spread.Item(1000), 1000u);
}

TEST(WarpSpread, AWarpsLanesTakeItemsTheGroupsWarpsApart) {
    const WarpSpread spread{97930, 8};  // the champagne glass's lone paths at 1080p
    for (uint32_t warp : {0u, 1u, 7u, 8u, 1500u}) {
        const uint32_t first = warp / 8 * 256;
        for (uint32_t lane = 0; lane < 32; ++lane)
            EXPECT_EQ(spread.Item(warp * 32 + lane), first + lane * 8 + warp % 8) << "warp " << warp;
    }
    // 97,930 items are 382 groups and 138 more: the last group's lanes past the last item have none.
    EXPECT_EQ(spread.Threads(), 383u * 256);
    EXPECT_EQ(spread.Item(382 * 256 + 1 * 32 + 17), 97929u);  // lane 17 of the group's warp 1
    EXPECT_EQ(spread.Item(382 * 256 + 2 * 32 + 17), 97930u);  // item 382 * 256 + 17 * 8 + 2: none
}

}  // namespace
}  // namespace caustica
