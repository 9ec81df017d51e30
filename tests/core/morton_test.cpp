// MortonCode: the cell's coordinates interleaved, x in the lowest bit; points outside the box and
// flat axes clamp, and every cell of a small grid gets its own code.
#include <gtest/gtest.h>

#include <set>

#include "core/morton.h"

namespace caustica {
namespace {

// The code of a cell from its coordinates, bit by bit.
uint32_t Interleaved(uint32_t x, uint32_t y, uint32_t z) {
    uint32_t code = 0;
    for (int bit = 0; bit < 10; ++bit)
        code |= ((x >> bit & 1u) << (3 * bit)) | ((y >> bit & 1u) << (3 * bit + 1)) |
                ((z >> bit & 1u) << (3 * bit + 2));
    return code;
}

TEST(Morton, InterleavesTheCellCoordinates) {
    const Aabb box(Vec3(-1.0f, 0.0f, 2.0f), Vec3(1.0f, 4.0f, 3.0f));
    const uint32_t cells[][3] = {{0, 0, 0},     {1, 0, 0},          {0, 1, 0},   {0, 0, 1},
                                 {5, 700, 1023}, {1023, 1023, 1023}, {512, 3, 77}};
    for (const auto& c : cells) {
        // The centre of the cell.
        Vec3 p;
        for (int a = 0; a < 3; ++a) p[a] = box.lo[a] + (float(c[a]) + 0.5f) / 1024.0f * (box.hi[a] - box.lo[a]);
        EXPECT_EQ(MortonCode(p, box), Interleaved(c[0], c[1], c[2])) << c[0] << " " << c[1] << " " << c[2];
    }
    EXPECT_EQ(MortonCode(box.lo, box), 0u);
    EXPECT_EQ(MortonCode(box.hi, box), (1u << 30) - 1u);
}

TEST(Morton, ClampsOutsidePointsAndFlatAxes) {
    const Aabb flat(Vec3(0.0f, 0.0f, 5.0f), Vec3(1.0f, 1.0f, 5.0f));
    EXPECT_EQ(MortonCode(Vec3(2.0f, -1.0f, 5.0f), flat), Interleaved(1023, 0, 0));
    EXPECT_EQ(MortonCode(Vec3(1.0f, 1.0f, 5.0f), flat), Interleaved(1023, 1023, 0));
}

TEST(Morton, DistinctCellsGetDistinctCodes) {
    const Aabb box(Vec3(0.0f, 0.0f, 0.0f), Vec3(1.0f, 1.0f, 1.0f));
    std::set<uint32_t> codes;
    for (int x = 0; x < 16; ++x)
        for (int y = 0; y < 16; ++y)
            for (int z = 0; z < 16; ++z)
                codes.insert(MortonCode(Vec3((x + 0.5f) / 16, (y + 0.5f) / 16, (z + 0.5f) / 16), box));
    EXPECT_EQ(codes.size(), 16u * 16u * 16u);
}

}  // namespace
}  // namespace caustica
