// A ParallelForRanked pass that records what it was called with, and the plain-loop reference, for
// the CPU and GPU suites.
#pragma once

#include <cstdint>
#include <vector>

#include "core/buffer.h"
#include "core/parallel_for_ranked.h"

namespace caustica::testing {

struct RecordRanks {
    const uint32_t* counts;
    const uint8_t* starts;
    uint32_t* ranks;
    uint32_t* calls;  // how often each item was visited
    struct Carry {
        uint32_t item;
    };
    CA_HD RankedItem Item(uint32_t i, Carry& carry) const {
        carry.item = i;
        return {counts[i], starts[i] != 0};
    }
    CA_HD void operator()(uint32_t i, uint32_t rank, uint32_t count, const Carry& carry) const {
        // The count and the carry handed back must be the item's.
        ranks[i] = count == counts[i] && carry.item == i ? rank : 0xffffffffu;
        ++calls[i];
    }
};

inline std::vector<uint32_t> SerialRanks(const std::vector<uint32_t>& counts, const std::vector<uint8_t>& starts) {
    std::vector<uint32_t> ranks(counts.size());
    uint32_t sum = 0;
    for (size_t i = 0; i < counts.size(); ++i) {
        if (i == 0 || starts[i]) sum = 0;
        ranks[i] = sum;
        sum += counts[i];
    }
    return ranks;
}

struct RankedRun {
    std::vector<uint32_t> ranks, calls;
};

inline RankedRun RunRanked(const Backend& backend, const std::vector<uint32_t>& counts,
                           const std::vector<uint8_t>& starts) {
    Buffer<uint32_t> c(backend), ranks(backend, counts.size()), calls(backend, counts.size());
    Buffer<uint8_t> s(backend);
    c.Upload(counts);
    s.Upload(starts);
    calls.FillBytes(0);
    ParallelForRanked(backend, "test: ranks", counts.size(), RecordRanks{c.data(), s.data(), ranks.data(), calls.data()});
    return {ranks.Download(), calls.Download()};
}

}  // namespace caustica::testing
