// A chunk queue's bookkeeping on the host (core/chunk_queue.h): each use's launches see counters
// that start from zero, and a use takes one joining launch, after its owner's. The GPU's sharing of
// chunks between launches is chunk_queue_gpu_test.cpp's.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace caustica
