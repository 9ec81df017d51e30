// The order in which a chunk queue (core/chunk_queue.h) hands out its chunks: the slowest of the
// last use first. The queue's launches end when their last chunks do, so a slow chunk taken last
// keeps the SMs that are done waiting (longest processing time first, Graham 1969); the chunks'
// times change little from one frame to the next. A chunk's time is kept as a level, 8 levels to
// each doubling of SM clock cycles, and the chunks are counted into their levels, then placed by
// them, in two passes of many blocks.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/atomic.h"
#include "core/hd.h"
#include "core/lanes.h"

namespace caustica {

constexpr uint32_t kChunkCostLevels = 128;

// The level of a chunk that took 'cycles' SM clock cycles: 8 an octave from 256 cycles on.
CA_HD inline uint8_t ChunkCostLevel(uint64_t cycles) {
    constexpr float kLevelsAnOctave = 8.0f, kFirstOctave = 8.0f;
    const float level = kLevelsAnOctave * (log2f(float(cycles) + 1.0f) - kFirstOctave);
    return uint8_t(level <= 0.0f ? 0.0f : fminf(level, float(kChunkCostLevels - 1)));
}

// Adds one to counts[key] for the lane and returns the count before; a GPU warp's lanes of one key
// take a single atomic add. Every lane of the warp must call it; key kChunkCostLevels adds nothing.
CA_HD inline uint32_t CountInto(uint32_t* counts, uint32_t key) {
#if CA_DEVICE_CODE
    const uint32_t same = __match_any_sync(0xffffffffu, key);
    const uint32_t lane = threadIdx.x % 32, first = __ffs(same) - 1;
    uint32_t base = 0;
    if (lane == first && key < kChunkCostLevels) base = atomicAdd(counts + key, uint32_t(__popc(same)));
    return __shfl_sync(0xffffffffu, base, first) + __popc(same & ((1u << lane) - 1u));
#else
    return key < kChunkCostLevels ? AtomicAdd(counts + key, 1u) : 0u;
#endif
}

// Chunk c's key: levels from the slowest down, chunks past the last timed (level) as the fastest,
// and kChunkCostLevels for lanes past the chunks.
struct ChunkKeys {
    const uint8_t* level;  // of chunks [0, timed)
    uint32_t timed, chunks;
    CA_HD uint32_t operator()(uint32_t c) const {
        if (c >= chunks) return kChunkCostLevels;
        return kChunkCostLevels - 1u - (c < timed ? uint32_t(level[c]) : 0u);
    }
};

// The chunks of one block of the two passes below, a chunk a lane on the GPU.
constexpr uint32_t kChunksABlock = 1024;

template <class Lanes, class Visit>
CA_HD void ForBlockChunks(const Lanes& lanes, const ChunkKeys& keys, uint32_t block, const Visit& visit) {
    const uint32_t first = block * kChunksABlock;
    for (uint32_t c = first + lanes.Lane(); c < first + kChunksABlock; c += Lanes::kCount) visit(c, keys(c));
}

// count[key] = the block's chunks of each key, in the block's shared memory; both passes start so.
template <class Lanes>
CA_HD void CountBlockChunks(const Lanes& lanes, const ChunkKeys& keys, uint32_t block, uint32_t* count) {
    for (uint32_t k = lanes.Lane(); k < kChunkCostLevels; k += Lanes::kCount) count[k] = 0;
    lanes.Sync();
    ForBlockChunks(lanes, keys, block, [&](uint32_t, uint32_t key) { CountInto(count, key); });
    lanes.Sync();
}

// The first of the two passes that order a use's chunks (ChunkQueue::RunOwner), a block for each
// kChunksABlock chunks: counts[key] gets the chunks of each key (counts start at 0). A block of
// 1,024 lanes over all the ring's 65K chunks took 78 us on the GPU
// (docs/notes/frame-performance.md).
struct CountChunkKeys {
    static constexpr uint32_t kThreads = kChunksABlock;
    struct Scratch {
        uint32_t count[kChunkCostLevels];
    };
    ChunkKeys keys;
    uint32_t* counts;

    template <class Lanes>
    CA_HD void Run(const Lanes& lanes, Scratch& s, uint32_t block) const {
        CountBlockChunks(lanes, keys, block, s.count);
        for (uint32_t k = lanes.Lane(); k < kChunkCostLevels; k += Lanes::kCount)
            if (s.count[k] > 0) AtomicAdd(counts + k, s.count[k]);
    }
};

// The second: order[t] is the chunk handed out t-th, by key; within a key in any order. Each block
// takes a range of each key's places after the smaller keys' (placed starts at 0).
struct PlaceChunks {
    static constexpr uint32_t kThreads = kChunksABlock;
    struct Scratch {
        uint32_t first[kChunkCostLevels];  // where the block's chunks of each key go
        uint32_t count[kChunkCostLevels];  // the block's chunks of each key, then those placed
    };
    ChunkKeys keys;
    const uint32_t* counts;
    uint32_t* placed;
    uint32_t* order;

    template <class Lanes>
    CA_HD void Run(const Lanes& lanes, Scratch& s, uint32_t block) const {
        ExclusiveScanInRounds(lanes, counts, s.first, kChunkCostLevels);
        CountBlockChunks(lanes, keys, block, s.count);
        for (uint32_t k = lanes.Lane(); k < kChunkCostLevels; k += Lanes::kCount) {
            if (s.count[k] > 0) s.first[k] += AtomicAdd(placed + k, s.count[k]);
            s.count[k] = 0;
        }
        lanes.Sync();
        ForBlockChunks(lanes, keys, block, [&](uint32_t c, uint32_t key) {
            const uint32_t at = CountInto(s.count, key);
            if (key < kChunkCostLevels) order[s.first[key] + at] = c;
        });
    }
};

}  // namespace caustica
