// A chunk queue's bookkeeping on the host (core/chunk_queue.h): each use's launches see counters
// that start from zero, a use takes one joining launch, after its owner's, and a use hands its
// chunks out slowest first by the last use's times. The GPU's sharing of chunks between launches
// is chunk_queue_gpu_test.cpp's.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "core/chunk_queue.h"
#include "core/error.h"

namespace caustica {
namespace {

TEST(ChunkQueue, EachUseStartsFromZero) {
    const Backend cpu = Backend::Cpu();
    ChunkQueue queue(cpu);
    for (uint32_t use = 0; use < 3; ++use) {
        const uint32_t chunks = 10 + use;
        queue.RunOwner(chunks, [&](const ChunkQueueView& owner) {
            EXPECT_TRUE(owner.owner);
            EXPECT_EQ(owner.chunks, chunks);
            EXPECT_EQ(*owner.next, 0u) << "use " << use;
            EXPECT_EQ(*owner.done, 0u) << "use " << use;
            EXPECT_NE(owner.next, owner.done);
            *owner.next = chunks + 7;  // what the launches leave behind
            *owner.done = chunks;
        });
        queue.RunJoining([&](const ChunkQueueView& joining) {
            EXPECT_FALSE(joining.owner);
            EXPECT_EQ(joining.chunks, chunks);
        });
    }
}

TEST(ChunkQueue, AUseTakesOneJoiningLaunchAfterItsOwner) {
    const Backend cpu = Backend::Cpu();
    ChunkQueue queue(cpu);
    int launches = 0;
    const auto count = [&](const ChunkQueueView&) { ++launches; };
    EXPECT_THROW(queue.RunJoining(count), RuntimeError);
    queue.RunOwner(4, count);
    queue.RunJoining(count);
    EXPECT_THROW(queue.RunJoining(count), RuntimeError);
    queue.RunOwner(4, count);
    queue.RunJoining(count);
    EXPECT_EQ(launches, 4);
}

TEST(ChunkQueue, TheLastUsesSlowestChunksGoFirst) {
    const Backend cpu = Backend::Cpu();
    ChunkQueue queue(cpu);
    constexpr uint32_t kChunks = 3000;
    // Every level but 0, which the chunks past the last use's share.
    const auto level = [](uint32_t c) { return uint8_t(1 + (c * 37) % (kChunkCostLevels - 1)); };
    // No times yet: every chunk has the same key, and blocks of chunks place theirs in whatever
    // order they run (PlaceChunks), on the CPU's threads as on the GPU.
    queue.RunOwner(kChunks, [&](const ChunkQueueView& first) {
        std::vector<uint32_t> order(first.order, first.order + kChunks);
        std::sort(order.begin(), order.end());
        for (uint32_t t = 0; t < kChunks; ++t) ASSERT_EQ(order[t], t) << "each chunk once";
        for (uint32_t c = 0; c < kChunks; ++c) first.cost[c] = level(c);
    });
    // A use of more chunks: those the last use did not have count as the fastest.
    queue.RunOwner(kChunks + 10, [&](const ChunkQueueView& second) {
        std::vector<uint32_t> order(second.order, second.order + kChunks + 10);
        for (uint32_t t = 0; t < kChunks; ++t) {
            ASSERT_LT(order[t], kChunks) << t;
            if (t > 0) {
                EXPECT_GE(level(order[t - 1]), level(order[t])) << t;
            }
        }
        std::sort(order.begin(), order.end());
        for (uint32_t t = 0; t < kChunks + 10; ++t) ASSERT_EQ(order[t], t) << "each chunk once";
    });
}

TEST(ChunkCostLevel, RisesWithTheTimeAndStaysInRange) {
    EXPECT_EQ(ChunkCostLevel(0), 0);
    EXPECT_EQ(ChunkCostLevel(100), 0);
    EXPECT_LT(ChunkCostLevel(1000), ChunkCostLevel(2000));
    EXPECT_LT(ChunkCostLevel(40000), ChunkCostLevel(45000));
    EXPECT_EQ(ChunkCostLevel(~uint64_t(0)), kChunkCostLevels - 1);
}

}  // namespace
}  // namespace caustica
