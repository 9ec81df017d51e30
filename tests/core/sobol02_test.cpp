// The lens's sample points: bit reversal against a plain loop, and the (0, 2)-sequence's
// stratification, which the scramble must keep.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/rng.h"
#include "core/sobol02.h"

namespace caustica {
namespace {

TEST(Sobol02, ReverseBitsMatchesALoop) {
    Rng rng(7, 0, 0, 0);
    for (int i = 0; i < 1000; ++i) {
        const uint32_t x = i < 32 ? 1u << i : rng.NextU32();
        uint32_t reversed = 0;
        for (int b = 0; b < 32; ++b) reversed |= ((x >> b) & 1u) << (31 - b);
        ASSERT_EQ(ReverseBits(x), reversed) << x;
    }
}

// Every block of 2^m samples that starts at a multiple of 2^m puts one point in each box of every
// elementary shape 2^-a x 2^-(m-a), for any scramble: a (0, m, 2)-net in base 2.
TEST(Sobol02, BlocksOfSamplesAreStratifiedInEveryShape) {
    Rng rng(3, 0, 0, 0);
    for (int trial = 0; trial < 20; ++trial) {
        const uint32_t sx = trial == 0 ? 0u : rng.NextU32(), sy = trial == 0 ? 0u : rng.NextU32();
        for (const int m : {2, 4, 6, 8}) {
            const uint32_t n = 1u << m;
            for (const uint32_t start : {0u, n, 5u * n}) {
                for (int a = 0; a <= m; ++a) {
                    const uint32_t columns = 1u << a, rows = 1u << (m - a);
                    std::vector<int> count(n, 0);
                    for (uint32_t i = start; i < start + n; ++i) {
                        const Vec2 p = Sobol02(i, sx, sy);
                        ASSERT_TRUE(p.x >= 0.0f && p.x < 1.0f && p.y >= 0.0f && p.y < 1.0f);
                        ++count[uint32_t(p.y * float(rows)) * columns + uint32_t(p.x * float(columns))];
                    }
                    for (uint32_t box = 0; box < n; ++box)
                        ASSERT_EQ(count[box], 1) << "scramble " << sx << " " << sy << ", samples " << start << " to "
                                                 << start + n - 1 << ", boxes " << columns << " x " << rows;
                }
            }
        }
    }
}

TEST(Sobol02, TheFirstPointsAreSobols) {
    // Unscrambled: (0, 0), (1/2, 1/2), (1/4, 3/4), (3/4, 1/4), (1/8, 5/8).
    const float expected[5][2] = {{0.0f, 0.0f}, {0.5f, 0.5f}, {0.25f, 0.75f}, {0.75f, 0.25f}, {0.125f, 0.625f}};
    for (uint32_t i = 0; i < 5; ++i) {
        EXPECT_EQ(Sobol02(i, 0, 0).x, expected[i][0]) << i;
        EXPECT_EQ(Sobol02(i, 0, 0).y, expected[i][1]) << i;
    }
}

}  // namespace
}  // namespace caustica
