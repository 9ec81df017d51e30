// A grid's chunks shared with a second launch (core/chunk_queue.h): each chunk is done once, by one
// of the two launches; the owner ends only after the joining launch's chunks are done; a launch that
// joins too late takes nothing; a use hands out first the chunks that were slowest in the last. A
// launch unit: nvcc compiles it in a CUDA build.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/buffer.h"
#include "core/chunk_queue.h"
#include "core/sm_share.h"
#include "core/thread_stream.h"
#include "tests/test_support.h"

#if defined(__CUDACC__)
#include "core/launch.h"
#endif

namespace caustica {
namespace {

constexpr uint32_t kChunks = 3000;

#if defined(__CUDACC__)
// Each chunk taken: counted, marked with the launch that took it, after a pause that keeps the
// owner busy long enough for the joining launch to start (every slow_every-th chunk's alone, where
// slow_every is not 0).
__global__ void RecordChunks(ChunkQueueView chunks, uint32_t launch, uint32_t pause_ns, uint32_t slow_every,
                             uint32_t* taken, uint32_t* by) {
    ForEachChunk(chunks, [&](uint32_t chunk) {
        if (threadIdx.x % 32 != 0) return;  // a chunk a warp
        if (pause_ns > 0 && (slow_every == 0 || chunk % slow_every == 0)) __nanosleep(pause_ns);
        atomicAdd(taken + chunk, 1u);
        by[chunk] = launch;
    });
}

// A launch of RecordChunks on the calling thread's stream, for ChunkQueue's Run calls.
auto RecordChunksLaunch(uint32_t launch, uint32_t pause_ns, uint32_t blocks, Buffer<uint32_t>& taken,
                        Buffer<uint32_t>& by, uint32_t slow_every = 0) {
    return [=, &taken, &by](const ChunkQueueView& chunks) {
        detail::LaunchAt(0, false, "record chunks", RecordChunks, blocks, 64, 0, chunks, launch, pause_ns, slow_every,
                         taken.data(), by.data());
    };
}

void SynchronizeThreadStream() {
    CA_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(ThreadStream())));
}
#endif

TEST(ChunkQueueGpu, EveryChunkOnceAndTheOwnerWaitsForTheJoiningLaunch) {
    CA_REQUIRE_GPU(gpu);
#if defined(__CUDACC__)
    const SmShares shares(gpu.device(), 16);
    ChunkQueue queue(gpu);
    Buffer<uint32_t> taken(gpu, kChunks), by(gpu, kChunks);
    taken.FillBytes(0);
    by.FillBytes(0);
    gpu.Synchronize();
    // The owner alone would take about 3000 / 8 * 20 us = 7.5 ms; the joining launch starts at once.
    {
        const ThreadStreamScope scope(shares.SecondStream());
        queue.RunOwner(kChunks, RecordChunksLaunch(1, 20000, 4, taken, by));
    }
    {
        const ThreadStreamScope scope(shares.FirstStream());
        queue.RunJoining(RecordChunksLaunch(2, 20000, 4, taken, by));
    }
    {
        // Only the owner's stream: its end must mean that the joining launch's chunks are done too.
        const ThreadStreamScope scope(shares.SecondStream());
        SynchronizeThreadStream();
        std::vector<uint32_t> taken_host(kChunks), by_host(kChunks);
        CopyBytes(taken_host.data(), MemorySpace::Host, taken.data(), MemorySpace::Device, kChunks * sizeof(uint32_t));
        CopyBytes(by_host.data(), MemorySpace::Host, by.data(), MemorySpace::Device, kChunks * sizeof(uint32_t));
        uint32_t by_owner = 0, by_joiner = 0;
        for (uint32_t c = 0; c < kChunks; ++c) {
            ASSERT_EQ(taken_host[c], 1u) << "chunk " << c;
            by_owner += by_host[c] == 1;
            by_joiner += by_host[c] == 2;
        }
        EXPECT_EQ(by_owner + by_joiner, kChunks);
        EXPECT_GT(by_owner, kChunks / 10);
        EXPECT_GT(by_joiner, kChunks / 10);
    }
    shares.Synchronize();
#else
    static_cast<void>(gpu);  // without CUDA, CA_REQUIRE_GPU has skipped the test
#endif
}

TEST(ChunkQueueGpu, ALateJoiningLaunchTakesNothingAndTheNextUseStartsAfresh) {
    CA_REQUIRE_GPU(gpu);
#if defined(__CUDACC__)
    ChunkQueue queue(gpu);
    Buffer<uint32_t> taken(gpu, kChunks), by(gpu, kChunks);
    taken.FillBytes(0);
    by.FillBytes(0);
    queue.RunOwner(kChunks, RecordChunksLaunch(1, 0, 64, taken, by));
    queue.RunJoining(RecordChunksLaunch(2, 0, 64, taken, by));  // after the owner: every chunk is taken
    queue.RunOwner(kChunks / 2, RecordChunksLaunch(3, 0, 64, taken, by));
    SynchronizeThreadStream();
    const std::vector<uint32_t> taken_host = taken.Download(), by_host = by.Download();
    for (uint32_t c = 0; c < kChunks; ++c) {
        EXPECT_EQ(taken_host[c], c < kChunks / 2 ? 2u : 1u) << "chunk " << c;
        EXPECT_EQ(by_host[c], c < kChunks / 2 ? 3u : 1u) << "chunk " << c;
    }
#else
    static_cast<void>(gpu);  // without CUDA, CA_REQUIRE_GPU has skipped the test
#endif
}

TEST(ChunkQueueGpu, TheLastUsesSlowestChunksGoFirst) {
    CA_REQUIRE_GPU(gpu);
#if defined(__CUDACC__)
    constexpr uint32_t kSlowEvery = 100;  // 30 chunks of 3000 pause for 20 us, the others not
    ChunkQueue queue(gpu);
    Buffer<uint32_t> taken(gpu, kChunks), by(gpu, kChunks);
    taken.FillBytes(0);
    queue.RunOwner(kChunks, RecordChunksLaunch(1, 20000, 64, taken, by, kSlowEvery));
    std::vector<uint32_t> order(kChunks);
    queue.RunOwner(kChunks, [&](const ChunkQueueView& chunks) {
        SynchronizeThreadStream();  // the order, written before the launch
        CopyBytes(order.data(), MemorySpace::Host, chunks.order, MemorySpace::Device, kChunks * sizeof(uint32_t));
        RecordChunksLaunch(2, 0, 64, taken, by)(chunks);
    });
    SynchronizeThreadStream();
    for (uint32_t t = 0; t < kChunks / kSlowEvery; ++t) EXPECT_EQ(order[t] % kSlowEvery, 0u) << "ticket " << t;
    for (uint32_t c : taken.Download()) ASSERT_EQ(c, 2u);
    std::sort(order.begin(), order.end());
    for (uint32_t t = 0; t < kChunks; ++t) ASSERT_EQ(order[t], t) << "each chunk once";
#else
    static_cast<void>(gpu);  // without CUDA, CA_REQUIRE_GPU has skipped the test
#endif
}

}  // namespace
}  // namespace caustica
