// WarpSpread: every item taken by exactly one thread, in order or spread, and a spread warp's lanes
// taking items a warp count apart.
#include <gtest/gtest.h>

#include <vector>

#include "core/warp_spread.h"

namespace caustica {
namespace {

void ExpectEveryItemOnce(const WarpSpread& spread) {
    std::vector<int> taken(spread.count, 0);
    size_t idle = 0;
    for (uint32_t t = 0; t < spread.Threads(); ++t) {
        const uint32_t item = spread.Item(t);
        if (item == spread.count) ++idle;
        else ++taken.at(item);
    }
    for (uint32_t i = 0; i < spread.count; ++i) EXPECT_EQ(taken[i], 1) << "item " << i;
    EXPECT_EQ(idle, spread.Threads() - spread.count);
    EXPECT_LT(idle, 32u);
}

TEST(WarpSpread, EveryItemOnceInOrderOrSpread) {
    for (uint32_t count : {0u, 1u, 31u, 32u, 33u, 63u, 64u, 65u, 1000u, 97930u}) {
        SCOPED_TRACE(count);
        ExpectEveryItemOnce(WarpSpread::InOrder(count));
        ExpectEveryItemOnce(WarpSpread::OverWarps(count));
        for (uint32_t t = 0; t < count; t += 7) EXPECT_EQ(WarpSpread::InOrder(count).Item(t), t);
    }
}

TEST(WarpSpread, ASpreadWarpTakesItemsAWarpCountApart) {
    const WarpSpread spread = WarpSpread::OverWarps(97930);  // the champagne's lone paths at 1080p
    ASSERT_EQ(spread.warps, 3061u);
    for (uint32_t warp : {0u, 1u, 1500u, 3038u}) {
        for (uint32_t lane = 0; lane < 32; ++lane)
            EXPECT_EQ(spread.Item(warp * 32 + lane), lane * spread.warps + warp) << "warp " << warp;
    }
    // 32 * 3061 - 97930 = 22 spare threads: lane 31 of the last 22 warps, past the last item.
    EXPECT_EQ(spread.Item(3038 * 32 + 31), 97929u);
    for (uint32_t warp = 3039; warp < 3061; ++warp) EXPECT_EQ(spread.Item(warp * 32 + 31), spread.count);
    EXPECT_EQ(spread.Item(3060 * 32 + 30), 30 * 3061u + 3060);
}

}  // namespace
}  // namespace caustica
