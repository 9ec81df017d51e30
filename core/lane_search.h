// A search of a sorted list by the lanes that share it (core/lanes.h): a warp's lanes look at 32
// places of the range a round and keep the part after the last place that qualifies, so that a
// range of a million places takes four rounds of reads where a binary search takes twenty in a
// row (each read waiting for the one before). OneLane looks at the same 32 places in turn, so the
// CPU and the GPU find the same place.
#pragma once

#include <cstdint>

#include "core/bits.h"
#include "core/hd.h"

namespace caustica {

// The last place in [lo, hi) where at_or_below(place) holds, for a predicate that holds at lo and
// from some place on no more (a sorted list's entries at or below a value). Every lane calls it.
template <class Lanes, class Pred>
CA_HD uint32_t LastAtOrBelow(const Lanes& lanes, uint32_t lo, uint32_t hi, const Pred& at_or_below) {
    while (hi - lo > 1) {
        const uint32_t step = (hi - lo + 31) / 32;
        const uint32_t below = lanes.Ballot([&](uint32_t lane) {
            const uint32_t at = lo + lane * step;
            return at < hi && at_or_below(at);
        });
        lo += HighestBit(below) * step;  // lane 0's place, lo, always qualifies
        hi = hi < lo + step ? hi : lo + step;
    }
    return lo;
}

}  // namespace caustica
