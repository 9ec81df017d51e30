// The order in which a chunk queue (core/chunk_queue.h) hands out its chunks: the slowest of the
// last use first. The queue's launches end when their last chunks do, so a slow chunk taken last
// keeps the SMs that are done waiting (longest processing time first, Graham 1969); the chunks'
// times change little from one frame to the next. A chunk's time is kept as a level, kLevelsAnOctave
// levels to each doubling of SM clock cycles, and the chunks are counted into their levels, a block
// of lanes over all of them in one launch.
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

// order[t]: the chunk handed out t-th, by level from the slowest; within a level in any order.
struct OrderChunksByCost {
    static constexpr uint32_t kThreads = 1024;
    struct Scratch {
        uint32_t first[kChunkCostLevels];  // the count of each level, then where its chunks go next
    };
    const uint8_t* level;  // of chunks [0, timed): the others count as the fastest
    uint32_t timed, chunks;
    uint32_t* order;

    template <class Lanes>
    CA_HD void Run(const Lanes& lanes, Scratch& s, uint32_t) const {
        // Keys from the slowest level down, and kChunkCostLevels for the lanes past the chunks.
        const auto key = [&](uint32_t c) {
            if (c >= chunks) return kChunkCostLevels;
            return kChunkCostLevels - 1u - (c < timed ? uint32_t(level[c]) : 0u);
        };
        for (uint32_t l = lanes.Lane(); l < kChunkCostLevels; l += Lanes::kCount) s.first[l] = 0;
        lanes.Sync();
        for (uint32_t base = 0; base < chunks; base += Lanes::kCount) CountInto(s.first, key(base + lanes.Lane()));
        lanes.Sync();
        if (lanes.Lane() == 0) {
            uint32_t sum = 0;
            for (uint32_t l = 0; l < kChunkCostLevels; ++l) {
                const uint32_t n = s.first[l];
                s.first[l] = sum;
                sum += n;
            }
        }
        lanes.Sync();
        for (uint32_t base = 0; base < chunks; base += Lanes::kCount) {
            const uint32_t c = base + lanes.Lane(), at = CountInto(s.first, key(c));
            if (c < chunks) order[at] = c;
        }
    }
};

}  // namespace caustica
