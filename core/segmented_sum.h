// A segmented sum as one 32-bit word, for the scans that rank items within segments
// (core/parallel_for_ranked.h across a launch, core/lanes_ranked.h within a block's lanes): bit 31
// marks "a segment starts within", the low bits are the sum since the last start.
#pragma once

#include <cstdint>

#include "core/hd.h"

namespace caustica {

// An item's count, and whether a new segment starts at it.
struct RankedItem {
    uint32_t count;
    bool starts_segment;
};

namespace detail {

constexpr uint32_t kSegmentStart = 1u << 31;

// Combining a (before) with b: b's sum alone when a segment starts in b. Associative, with 0 as
// its identity.
struct SegmentedSum {
    CA_HD uint32_t operator()(uint32_t a, uint32_t b) const { return (b & kSegmentStart) ? b : a + b; }
};

CA_HD inline uint32_t SegmentedEntry(RankedItem item) { return item.count | (item.starts_segment ? kSegmentStart : 0u); }

// An entry's rank: the sum before it within its segment (0 where it starts one).
CA_HD inline uint32_t SegmentedRank(uint32_t entry, uint32_t before) {
    return (entry & kSegmentStart) ? 0u : before & ~kSegmentStart;
}

}  // namespace detail
}  // namespace caustica
