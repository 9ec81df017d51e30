// PixelOrder: every pixel exactly once for any size, and 32 consecutive items inside one 8x4 tile.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "core/pixel_order.h"

namespace caustica {
namespace {

TEST(PixelOrder, EveryPixelOnceForAnySize) {
    const uint32_t sizes[][2] = {{1, 1},  {1, 9},  {9, 1},   {7, 3},   {8, 4},
                                 {9, 5},  {16, 8}, {17, 6}, {33, 13}, {640, 360}};
    for (const auto& size : sizes) {
        const PixelOrder order{size[0], size[1]};
        SCOPED_TRACE(std::to_string(order.width) + "x" + std::to_string(order.height));
        std::vector<int> seen(size_t(order.width) * order.height, 0);
        for (uint32_t i = 0; i < seen.size(); ++i) {
            uint32_t x = ~0u, y = ~0u;
            order.Pixel(i, x, y);
            ASSERT_LT(x, order.width) << "item " << i;
            ASSERT_LT(y, order.height) << "item " << i;
            EXPECT_EQ(order.Linear(i), y * order.width + x);
            ++seen[y * order.width + x];
        }
        EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), std::ptrdiff_t(seen.size()));
    }
}

TEST(PixelOrder, FullTilesAreWarpsOfNeighbours) {
    const PixelOrder order{1920, 1080};
    for (uint32_t warp = 0; warp < order.width * order.height / 32; warp += 97) {
        uint32_t x0, y0;
        order.Pixel(warp * 32, x0, y0);
        EXPECT_EQ(x0 % 8, 0u);
        EXPECT_EQ(y0 % 4, 0u);
        for (uint32_t j = 0; j < 32; ++j) {
            uint32_t x, y;
            order.Pixel(warp * 32 + j, x, y);
            EXPECT_EQ(x, x0 + j % 8) << "item " << warp * 32 + j;
            EXPECT_EQ(y, y0 + j / 8) << "item " << warp * 32 + j;
        }
    }
    // Row-major across tiles: the second tile starts 8 pixels to the right.
    uint32_t x, y;
    order.Pixel(32, x, y);
    EXPECT_EQ(x, 8u);
    EXPECT_EQ(y, 0u);
}

}  // namespace
}  // namespace caustica
