// StageArea on the host: a stage's lists keep their items while any of them grows, the next stage
// takes over the memory, and a warm run lays nothing out again.
#include <gtest/gtest.h>

#include <cstdint>

#include "core/error.h"
#include "core/stage_area.h"

namespace caustica {
namespace {

// Fills column c of a list's first n items with a value that names the list, column and item.
void Fill(const AreaList& list, size_t columns, size_t n, uint32_t tag) {
    for (size_t c = 0; c < columns; ++c)
        for (size_t i = 0; i < n; ++i) list.Column<uint32_t>(c)[i] = tag << 24 | uint32_t(c) << 20 | uint32_t(i);
}
bool Holds(const AreaList& list, size_t columns, size_t n, uint32_t tag) {
    for (size_t c = 0; c < columns; ++c)
        for (size_t i = 0; i < n; ++i)
            if (list.Column<uint32_t>(c)[i] != (tag << 24 | uint32_t(c) << 20 | uint32_t(i))) return false;
    return true;
}

TEST(StageArea, ColumnsAreAlignedAndDisjoint) {
    StageArea area(MemorySpace::Host);
    AreaList a({4, 4, 4}), b({8, 4});
    area.BeginStage({&a, &b});
    a.Reserve(100, false);
    b.Reserve(30, false);
    EXPECT_GE(a.capacity(), 100u);
    EXPECT_EQ(b.size(), 30u);
    const char* ends[5][2] = {{a.Column<char>(0), a.Column<char>(0) + 4 * a.capacity()},
                              {a.Column<char>(1), a.Column<char>(1) + 4 * a.capacity()},
                              {a.Column<char>(2), a.Column<char>(2) + 4 * a.capacity()},
                              {b.Column<char>(0), b.Column<char>(0) + 8 * b.capacity()},
                              {b.Column<char>(1), b.Column<char>(1) + 4 * b.capacity()}};
    for (int i = 0; i < 5; ++i) {
        EXPECT_EQ((ends[i][0] - ends[0][0]) % 256, 0) << i;  // from the allocation's start
        for (int j = i + 1; j < 5; ++j)
            EXPECT_TRUE(ends[i][1] <= ends[j][0] || ends[j][1] <= ends[i][0]) << i << " " << j;
    }
}

TEST(StageArea, GrowingAListKeepsTheStagesItems) {
    StageArea area(MemorySpace::Host);
    AreaList a({4, 4}), b({4});
    area.BeginStage({&a, &b});
    a.Reserve(1000, false);
    b.Reserve(500, false);
    Fill(a, 2, 1000, 1);
    Fill(b, 1, 500, 2);
    a.Reserve(5000, true);  // the first list grows: both keep their items
    EXPECT_GE(a.capacity(), 5000u);
    EXPECT_TRUE(Holds(a, 2, 1000, 1));
    EXPECT_TRUE(Holds(b, 1, 500, 2));
    Fill(a, 2, 5000, 3);
    b.Reserve(20000, false);  // without keep: the other list still keeps its items
    EXPECT_TRUE(Holds(a, 2, 5000, 3));
    EXPECT_EQ(b.size(), 20000u);
}

TEST(StageArea, GrowingTheLastListInItsRoomKeepsItsItems) {
    StageArea area(MemorySpace::Host);
    AreaList big({4}), last({4, 4, 4});
    area.BeginStage({&big});
    big.Reserve(100000, false);  // room for the next stage's lists to grow into
    area.BeginStage({&last});
    last.Reserve(100, false);
    Fill(last, 3, 100, 5);
    const size_t bytes = area.Bytes();
    last.Reserve(1000, true);  // its second and third columns move within the memory it has
    EXPECT_EQ(area.Bytes(), bytes);
    EXPECT_TRUE(Holds(last, 3, 100, 5));
}

TEST(StageArea, TheNextStageTakesOverTheMemory) {
    StageArea area(MemorySpace::Host);
    AreaList large({4, 4}), small({8});
    area.BeginStage({&large});
    large.Reserve(10000, false);
    const size_t first_stage = area.Bytes();
    EXPECT_GE(first_stage, 2 * 4 * 10000u);
    area.BeginStage({&small});  // needs less: no new memory
    small.Reserve(5000, false);
    EXPECT_EQ(area.Bytes(), first_stage);
    EXPECT_EQ(small.Column<char>(0), large.Column<char>(0));  // where the last stage's list was
    EXPECT_THROW(large.Reserve(1, false), RuntimeError);      // not in the stage any more
}

TEST(StageArea, AWarmRunLaysNothingOutAgain) {
    StageArea area(MemorySpace::Host);
    AreaList entries({4, 4, 4}), nodes({8, 4}), masks({8}, AreaList::Growth::Exact);
    // Returns where the first stage's third column was laid out.
    const auto run = [&](bool warm) {
        area.BeginStage({&entries, &nodes});
        const char* laid_out = entries.Column<char>(2);
        entries.Reserve(3000, true);
        nodes.Reserve(700, false);
        entries.Reserve(9000, true);
        if (warm) {
            EXPECT_EQ(entries.Column<char>(2), laid_out);  // the capacity was there
        }
        area.BeginStage({&masks});
        masks.Reserve(6 * 4000, false);
        EXPECT_EQ(masks.capacity(), 6 * 4000u);  // exactly
        return laid_out;
    };
    run(false);  // the first run grows the lists
    const size_t bytes = area.Bytes();
    const char* column = run(true);
    EXPECT_EQ(area.Bytes(), bytes);
    EXPECT_EQ(run(true), column);
    EXPECT_EQ(area.Bytes(), bytes);
}

}  // namespace
}  // namespace caustica
