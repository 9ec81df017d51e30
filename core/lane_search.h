// The search of a sorted list by the lanes that share it (core/lanes.h): where a predicate that
// holds for a list's first places stops holding. Each step probes kProbes places a lane, which cut
// the range into kCount * kProbes + 1 parts (one lane: a binary search). Each probe is a read that
// the next step waits for, so fewer steps is what makes it faster, and a lane's probes overlap: a
// warp needs 3 steps for a million places where one probe a lane needed 4. Every lane gets the
// answer, the same on the CPU and the GPU.
#pragma once

#include <cstdint>

#include "core/hd.h"
#include "core/lanes.h"

namespace caustica {

// The first place in [lo, hi) where holds(place) does not hold (hi where it holds everywhere), for
// a predicate that holds up to some place and from there on no more (a sorted list's entries below
// or at a value). Every lane calls it.
template <class Lanes, class Pred>
CA_HD uint32_t PartitionPoint(const Lanes& lanes, uint32_t lo, uint32_t hi, const Pred& holds) {
    constexpr uint32_t kProbes = Lanes::kCount > 1 ? 4 : 1;
    constexpr uint32_t kAllProbes = Lanes::kCount * kProbes;
    const auto probe = [](uint32_t base, uint32_t width, uint64_t j) {
        return base + uint32_t(width * j / (kAllProbes + 1));
    };
    while (lo < hi) {  // the answer lies in [lo, hi]
        const uint32_t base = lo, width = hi - lo;
        uint32_t mine = 0;
        for (uint32_t k = 0; k < kProbes; ++k)
            mine += holds(probe(base, width, lanes.Lane() * kProbes + k + 1)) ? 1u : 0u;
        const uint32_t held = lanes.Reduce(mine, Plus());
        // The probes are in order, so the predicate holds at the first 'held' of them alone.
        if (held > 0) lo = probe(base, width, held) + 1;
        if (held < kAllProbes) hi = probe(base, width, held + 1);
    }
    return lo;
}

// The last of the first n items of an increasing list at or below value (list[0] <= value), by one
// thread.
CA_HD inline uint32_t LastAtOrBelow(const uint32_t* list, uint32_t n, uint32_t value) {
    return PartitionPoint(OneLane(), 0, n, [&](uint32_t i) { return list[i] <= value; }) - 1;
}

}  // namespace caustica
