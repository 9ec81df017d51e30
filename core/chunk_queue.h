// A grid's work in chunks handed out from a counter in device memory, so that a second launch of
// the same kernel, on another stream, can join the first while it runs and take some of its
// chunks. The caustic search uses it: while the next frame's tree is built on one share of the SMs
// (core/sm_share.h), the search runs on the other share, and once the build is done a launch on
// the first share joins it, where those SMs would otherwise sit idle until the frame ends.
//
// The first launch (the owner) ends only when every chunk is done, so the passes queued after it in
// its stream see every result; a joining launch takes chunks while there are any, then ends. A warp
// takes a chunk with one atomic add (a compare-and-swap loop, which kept the count within the use's
// chunks, made a thousand blocks wait in line for it: the ring's caustic search ran eight times
// slower, docs/notes/frame-performance.md). Each use starts the counters from zero, after the last
// use's launches have ended, and a joining launch starts once its use has begun, so no launch takes
// another use's chunks. The chunks go out slowest first, by their times in the last use
// (core/chunk_order.h).
#pragma once

#include <cstdint>

#include "core/backend.h"
#include "core/buffer.h"
#include "core/chunk_order.h"
#include "core/error.h"
#include "core/parallel_for_blocks.h"
#include "core/pass_clock.h"

namespace caustica {

struct ChunkQueueView {
    // The next chunk's number and the count of chunks done, a cache line apart, so that the owner's
    // waiting threads do not slow the others' taking.
    unsigned long long* next = nullptr;
    unsigned long long* done = nullptr;
    uint32_t chunks = 0;
    const uint32_t* order = nullptr;  // the chunk handed out t-th, for each t
    uint8_t* cost = nullptr;          // each chunk's time (ChunkCostLevel), for the next use's order
    bool owner = true;                // the launch that waits for every chunk
};

// The counters and the chunks' order of a chunk queue on a GPU backend, and the order of its uses'
// launches.
class ChunkQueue {
public:
    explicit ChunkQueue(const Backend& backend)
        : backend_(backend),
          counters_(backend),
          cost_(backend),
          key_counts_(backend, 2 * kChunkCostLevels),
          order_(backend),
          opened_clock_(backend),
          owner_clock_(backend),
          joined_clock_(backend) {}

    // A use of 'chunks' chunks: on the calling thread's stream, after the last use's launches, the
    // counters start from zero, the chunks are ordered by the last use's times (chunks it did not
    // have count as the fastest), and launch(view) queues the owner's launch.
    template <class Launch>
    void RunOwner(uint32_t chunks, Launch&& launch) {
        if (counters_.empty()) {
            counters_.Resize(kCounterWords);  // the first use
        } else {
            owner_end_.WaitHere();
        }
        if (joined_) joined_end_.WaitHere();
        counters_.FillBytes(0);
        if (cost_.size() < chunks) cost_.Resize(chunks, true);
        order_.Resize(chunks, false);
        key_counts_.FillBytes(0);
        const ChunkKeys keys{cost_.data(), timed_, chunks};
        const uint32_t blocks = (chunks + kChunksABlock - 1) / kChunksABlock;
        ParallelForBlocks(backend_, "count chunk keys", blocks, CountChunkKeys{keys, key_counts_.data()});
        ParallelForBlocks(backend_, "place chunks", blocks,
                          PlaceChunks{keys, key_counts_.data(), key_counts_.data() + kChunkCostLevels, order_.data()});
        timed_ = chunks;
        opened_clock_.Clear();
        opened_ = opened_clock_.Point(opened_clock_.Mark());
        view_ = ChunkQueueView{counters_.data(), counters_.data() + kDoneWord, chunks, order_.data(), cost_.data(), true};
        launch(view_);
        owner_clock_.Clear();
        owner_end_ = owner_clock_.Point(owner_clock_.Mark());
        joined_ = false;
    }

    // On the calling thread's stream, once the last use has begun: launch(view) queues a launch that
    // joins it (one a use).
    template <class Launch>
    void RunJoining(Launch&& launch) {
        CA_CHECK_MSG(!counters_.empty() && !joined_, "a chunk queue's use takes one joining launch, after its owner's");
        opened_.WaitHere();
        ChunkQueueView joining = view_;
        joining.owner = false;
        launch(joining);
        joined_clock_.Clear();
        joined_end_ = joined_clock_.Point(joined_clock_.Mark());
        joined_ = true;
    }

private:
    static constexpr size_t kDoneWord = 16;  // 128 bytes after the next chunk's number
    static constexpr size_t kCounterWords = 2 * kDoneWord;

    const Backend& backend_;
    Buffer<unsigned long long> counters_;
    Buffer<uint8_t> cost_;         // per chunk: its time in the last use
    uint32_t timed_ = 0;           // the last use's chunks, which have their times in cost_
    Buffer<uint32_t> key_counts_;  // each key's chunks (ChunkKeys), then each key's chunks placed
    Buffer<uint32_t> order_;       // the chunk handed out t-th in this use
    PassClock opened_clock_, owner_clock_, joined_clock_;
    QueuePoint opened_, owner_end_, joined_end_;
    ChunkQueueView view_;
    bool joined_ = false;  // the last use has had its joining launch
};

#if defined(__CUDACC__)
// Calls work(chunk) with the whole warp for each chunk the warp takes from q, and keeps the
// chunk's time for the next use's order. Every thread of the warp must call it. A warp takes its
// next chunk as soon as it is done with one, where a block's warps that took chunks together would
// wait at a barrier for the block's slowest query. The owner's thread 0 then waits until every
// chunk is done, its results visible to the passes after the grid.
//
// A warp counts its chunks as done once, when none is left, behind one fence, where a fence and a
// count after every chunk made it wait for its writes each time (the caustic searches about 1%
// slower). Asking for the next ticket before the work, to hide its round trip too, gave a warp two
// of the slowest chunks at once and undid the order (prism's search about 20% slower, orbit's 10%;
// docs/notes/frame-performance.md).
template <class Work>
__device__ void ForEachChunk(const ChunkQueueView& q, Work&& work) {
    const bool leader = threadIdx.x % 32 == 0;
    uint32_t done = 0;
    while (true) {
        uint32_t chunk = 0;
        if (leader) {
            const unsigned long long ticket = atomicAdd(q.next, 1ull);
            chunk = ticket < q.chunks ? q.order[ticket] : q.chunks;
        }
        chunk = __shfl_sync(0xffffffffu, chunk, 0);
        if (chunk == q.chunks) break;
        const long long start = clock64();
        work(chunk);
        __syncwarp();
        if (leader) q.cost[chunk] = ChunkCostLevel(uint64_t(clock64() - start));
        ++done;
    }
    __threadfence();  // the warp's results before its chunks count as done
    __syncwarp();
    if (leader && done > 0) atomicAdd(q.done, static_cast<unsigned long long>(done));
    if (q.owner && threadIdx.x == 0) {
        while (*reinterpret_cast<volatile unsigned long long*>(q.done) < q.chunks) __nanosleep(1000);
        __threadfence();
    }
}
#endif

}  // namespace caustica
