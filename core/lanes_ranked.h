// The ranks of items within segments, computed by the lanes of one block (core/lanes.h) where
// ParallelForRanked (core/parallel_for_ranked.h) takes a whole launch: item(i) gives item i's
// RankedItem, and visit(i, rank, count) is called for each item with the sum of the counts before
// it in its segment. Each lane takes kLanesRankedItems consecutive items a round, so a block of
// 256 GPU threads ranks 2048 items a round with one block scan; one CPU thread (OneLane) walks
// them in order. The block's lanes must all call it.
#pragma once

#include <cstdint>

#include "core/hd.h"
#include "core/segmented_sum.h"

namespace caustica {

constexpr uint32_t kLanesRankedItems = 8;

template <class Lanes, class Item, class Visit>
CA_HD void LanesRanked(const Lanes& lanes, uint32_t n, const Item& item, const Visit& visit) {
    const detail::SegmentedSum op;
    uint32_t carry = 0;  // the rounds before
    for (uint32_t round = 0; round < n; round += Lanes::kCount * kLanesRankedItems) {
        const uint32_t first = round + lanes.Lane() * kLanesRankedItems;
        uint32_t entries[kLanesRankedItems];
        uint32_t sum = 0;
        for (uint32_t k = 0; k < kLanesRankedItems; ++k) {
            entries[k] = first + k < n ? detail::SegmentedEntry(item(first + k)) : 0u;
            sum = op(sum, entries[k]);
        }
        uint32_t total;
        uint32_t before = op(carry, lanes.ExclusiveScan(sum, 0u, op, total));
        for (uint32_t k = 0; k < kLanesRankedItems && first + k < n; ++k) {
            visit(first + k, detail::SegmentedRank(entries[k], before), entries[k] & ~detail::kSegmentStart);
            before = op(before, entries[k]);
        }
        carry = op(carry, total);
    }
}

}  // namespace caustica
