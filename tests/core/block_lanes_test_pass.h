// ParallelForBlocks passes that use what a block's lanes share (core/lanes.h): the block scan in
// rounds of the block's lanes, each warp's ballot and least value over 32 items, and the block's
// parts with their own barriers; and their runs on a backend, for the CPU and GPU suites.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/bits.h"
#include "core/buffer.h"
#include "core/lanes.h"
#include "core/parallel_for_blocks.h"

namespace caustica::testing {

// Item s works on the values [offsets[s], offsets[s + 1]) (at most kMostItems): each value's
// exclusive prefix sum within the item, and within its run of 32 (from the item's first value on)
// the odd values before it and the least value of the run.
struct BlockLanesPass {
    static constexpr uint32_t kThreads = 256;
    static constexpr uint32_t kMostItems = 16384;
    struct Scratch {
        uint32_t prefix[kMostItems];  // 64 KB: more than a static shared array may hold
    };
    const uint32_t* values;
    const uint32_t* offsets;
    uint32_t* prefix;
    uint32_t* odd_before;
    uint32_t* run_min;

    template <class Block>
    CA_HD void Run(const Block& block, Scratch& scratch, uint32_t s) const {
        const uint32_t first = offsets[s], n = offsets[s + 1] - first;
        uint32_t carry = 0;
        for (uint32_t base = 0; base < n; base += Block::kCount) {
            const uint32_t i = base + block.Lane();
            uint32_t total;
            const uint32_t before = block.ExclusiveScan(i < n ? values[first + i] : 0u, 0u, Plus(), total);
            if (i < n) scratch.prefix[i] = carry + before;
            carry += total;
        }
        block.Sync();
        for (uint32_t i = block.Lane(); i < n; i += Block::kCount) prefix[first + i] = scratch.prefix[i];
        const auto warp = block.Warp();
        for (uint32_t run = block.WarpIndex(); run * 32 < n; run += Block::kWarps) {
            const uint32_t at = first + run * 32;
            const uint32_t odd = warp.Ballot([&](uint32_t i) { return run * 32 + i < n && (values[at + i] & 1u); });
            uint32_t least = ~0u;
            for (uint32_t i = warp.Lane(); i < 32; i += decltype(warp)::kCount)
                if (run * 32 + i < n) least = values[at + i] < least ? values[at + i] : least;
            least = warp.ReduceMin(least);
            for (uint32_t i = warp.Lane(); i < 32 && run * 32 + i < n; i += decltype(warp)::kCount) {
                odd_before[at + i] = PopCount(odd & ((1u << i) - 1u));
                run_min[at + i] = least;
            }
        }
    }
};

struct BlockLanesRun {
    std::vector<uint32_t> prefix, odd_before, run_min;
    bool operator==(const BlockLanesRun& o) const {
        return prefix == o.prefix && odd_before == o.odd_before && run_min == o.run_min;
    }
};

inline BlockLanesRun RunBlockLanes(const Backend& backend, const std::vector<uint32_t>& values,
                                   const std::vector<uint32_t>& offsets) {
    Buffer<uint32_t> v(backend), o(backend);
    v.Upload(values);
    o.Upload(offsets);
    Buffer<uint32_t> out[3] = {Buffer<uint32_t>(backend), Buffer<uint32_t>(backend), Buffer<uint32_t>(backend)};
    for (auto& b : out) b.Upload(std::vector<uint32_t>(values.size(), 0xfffffffeu));
    ParallelForBlocks(backend, "test: block lanes", offsets.size() - 1,
                      BlockLanesPass{v.data(), o.data(), out[0].data(), out[1].data(), out[2].data()});
    return {out[0].Download(), out[1].Download(), out[2].Download()};
}

// The parts of a block (core/lanes.h): a block of 1,024 lanes cut into parts of 256. Item s takes
// the sets [kSetsPerItem * s, kSetsPerItem * (s + 1)), part p the sets p, p + Parts, ... of them,
// and gives each value of a set the sum of those before it: a round's values pass through the
// part's own slice of shared memory, between the part's own barriers.
struct BlockPartsPass {
    static constexpr uint32_t kThreads = 1024, kPartThreads = 256, kSetsPerItem = 4;
    struct Scratch {
        uint32_t round[kThreads];
    };
    const uint32_t* values;
    const uint32_t* offsets;
    uint32_t sets;
    uint32_t* prefix;

    template <class Block>
    CA_HD void Run(const Block& block, Scratch& scratch, uint32_t s) const {
        const auto part = block.template Part<kPartThreads>();
        using Part = decltype(part);
        const uint32_t p = block.template PartIndex<kPartThreads>();
        uint32_t* round = scratch.round + p * kPartThreads;
        for (uint32_t set = kSetsPerItem * s + p; set < kSetsPerItem * (s + 1) && set < sets;
             set += Block::template Parts<kPartThreads>()) {
            const uint32_t first = offsets[set], n = offsets[set + 1] - first;
            uint32_t carry = 0;
            for (uint32_t base = 0; base < n; base += Part::kCount) {
                const uint32_t i = base + part.Lane();
                round[part.Lane()] = i < n ? values[first + i] : 0u;
                part.Sync();
                uint32_t before = carry, total = carry;
                for (uint32_t j = 0; j < Part::kCount; ++j) {
                    if (j < part.Lane()) before += round[j];
                    total += round[j];
                }
                if (i < n) prefix[first + i] = before;
                carry = total;
                part.Sync();  // the slice serves the next round
            }
        }
    }
};

inline std::vector<uint32_t> RunBlockParts(const Backend& backend, const std::vector<uint32_t>& values,
                                           const std::vector<uint32_t>& offsets) {
    Buffer<uint32_t> v(backend), o(backend), prefix(backend);
    v.Upload(values);
    o.Upload(offsets);
    prefix.Upload(std::vector<uint32_t>(values.size(), 0xfffffffeu));
    const uint32_t sets = uint32_t(offsets.size() - 1);
    ParallelForBlocks(backend, "test: block parts", (sets + BlockPartsPass::kSetsPerItem - 1) / BlockPartsPass::kSetsPerItem,
                      BlockPartsPass{v.data(), o.data(), sets, prefix.data()});
    return prefix.Download();
}

// The same with plain loops.
inline BlockLanesRun SerialBlockLanes(const std::vector<uint32_t>& values, const std::vector<uint32_t>& offsets) {
    BlockLanesRun r{std::vector<uint32_t>(values.size()), std::vector<uint32_t>(values.size()),
                    std::vector<uint32_t>(values.size())};
    for (size_t s = 0; s + 1 < offsets.size(); ++s) {
        uint32_t sum = 0;
        for (uint32_t i = offsets[s]; i < offsets[s + 1]; ++i) {
            r.prefix[i] = sum;
            sum += values[i];
            const uint32_t run = offsets[s] + (i - offsets[s]) / 32 * 32, end = std::min(run + 32, offsets[s + 1]);
            r.odd_before[i] = 0;
            for (uint32_t j = run; j < i; ++j) r.odd_before[i] += values[j] & 1u;
            r.run_min[i] = *std::min_element(values.begin() + run, values.begin() + end);
        }
    }
    return r;
}

// Sets of the given sizes, one after another: their offsets.
inline std::vector<uint32_t> SetOffsets(const std::vector<uint32_t>& sizes) {
    std::vector<uint32_t> offsets{0};
    for (uint32_t size : sizes) offsets.push_back(offsets.back() + size);
    return offsets;
}

}  // namespace caustica::testing
