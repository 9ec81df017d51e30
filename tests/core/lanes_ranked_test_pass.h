// A ParallelForBlocks pass that ranks sets of items with LanesRanked and records what it was
// called with, and its run on a backend, for the CPU and GPU suites.
#pragma once

#include <cstdint>
#include <vector>

#include "core/buffer.h"
#include "core/lanes_ranked.h"
#include "core/parallel_for_blocks.h"

namespace caustica::testing {

// Item s ranks the items [offsets[s], offsets[s + 1]) (at most kMostItems) with its block's lanes.
// The ranks go through the scratch, which is larger than a static shared array may be.
struct BlockRanks {
    static constexpr uint32_t kThreads = 256;
    static constexpr uint32_t kMostItems = 16384;
    struct Scratch {
        uint32_t ranks[kMostItems];  // 64 KB
    };
    const uint32_t* counts;
    const uint8_t* starts;
    const uint32_t* offsets;
    uint32_t* ranks;
    uint32_t* calls;  // how often each item was visited

    template <class Block>
    CA_HD void Run(const Block& block, Scratch& scratch, uint32_t s) const {
        const uint32_t first = offsets[s], n = offsets[s + 1] - first;
        LanesRanked(
            block, n, [&](uint32_t i) { return RankedItem{counts[first + i], starts[first + i] != 0}; },
            [&](uint32_t i, uint32_t rank, uint32_t count) {
                // The count handed back must be the item's.
                scratch.ranks[i] = count == counts[first + i] ? rank : 0xffffffffu;
                ++calls[first + i];
            });
        block.Sync();
        for (uint32_t i = block.Lane(); i < n; i += Block::kCount) ranks[first + i] = scratch.ranks[i];
    }
};

struct BlockRanksRun {
    std::vector<uint32_t> ranks, calls;
};

inline BlockRanksRun RunBlockRanks(const Backend& backend, const std::vector<uint32_t>& counts,
                                   const std::vector<uint8_t>& starts, const std::vector<uint32_t>& offsets) {
    Buffer<uint32_t> c(backend), o(backend), ranks(backend, counts.size()), calls(backend, counts.size());
    Buffer<uint8_t> s(backend);
    c.Upload(counts);
    s.Upload(starts);
    o.Upload(offsets);
    ranks.Upload(std::vector<uint32_t>(counts.size(), 0xfffffffeu));
    calls.Upload(std::vector<uint32_t>(counts.size(), 0u));
    ParallelForBlocks(backend, "test: block ranks", offsets.size() - 1,
                      BlockRanks{c.data(), s.data(), o.data(), ranks.data(), calls.data()});
    return {ranks.Download(), calls.Download()};
}

// Sets of the given sizes, one after another: their offsets.
inline std::vector<uint32_t> SetOffsets(const std::vector<uint32_t>& sizes) {
    std::vector<uint32_t> offsets{0};
    for (uint32_t size : sizes) offsets.push_back(offsets.back() + size);
    return offsets;
}

}  // namespace caustica::testing
