// A pass that searches sorted lists with PartitionPoint (core/lane_search.h), one query an item,
// and the answers a plain binary search gives, for the CPU and GPU suites.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "core/lane_search.h"
#include "core/parallel_for_lanes.h"

namespace caustica::testing {

// Query q: the last place in [lo[q], hi[q]) of the sorted values at or below limit[q], which is
// never below the value at lo[q].
struct LaneSearchQueries {
    std::vector<uint32_t> values, lo, hi, limit;
};

// Sorted values with runs of equal ones, and queries over ranges of 1 to all of them, with limits
// at, between and past the values.
inline LaneSearchQueries MakeLaneSearchQueries(uint32_t n, uint32_t queries, uint32_t seed) {
    std::mt19937 rng(seed);
    LaneSearchQueries q;
    uint32_t v = 0;
    for (uint32_t i = 0; i < n; ++i) q.values.push_back(v += rng() % 4 == 0 ? 0u : rng() % 70);
    for (uint32_t k = 0; k < queries; ++k) {
        const uint32_t lo = rng() % n;
        const uint32_t hi = k % 3 == 0 ? n : lo + 1 + rng() % (n - lo);
        const uint32_t span = q.values[hi - 1] - q.values[lo] + 70;
        q.lo.push_back(lo);
        q.hi.push_back(hi);
        q.limit.push_back(q.values[lo] + rng() % span);
    }
    return q;
}

inline std::vector<uint32_t> BinarySearchAnswers(const LaneSearchQueries& q) {
    std::vector<uint32_t> out;
    for (size_t k = 0; k < q.lo.size(); ++k)
        out.push_back(uint32_t(std::upper_bound(q.values.begin() + q.lo[k], q.values.begin() + q.hi[k], q.limit[k]) -
                               q.values.begin()) - 1);
    return out;
}

struct LaneSearchPass {
    using Scratch = NoScratch;
    const uint32_t* values;
    const uint32_t* lo;
    const uint32_t* hi;
    const uint32_t* limit;
    uint32_t* found;
    template <class Lanes>
    CA_HD void Run(const Lanes& lanes, NoScratch&, uint32_t q) const {
        const uint32_t at =
            PartitionPoint(lanes, lo[q], hi[q], [&](uint32_t place) { return values[place] <= limit[q]; }) - 1;
        if (lanes.Lane() == 0) found[q] = at;
    }
};

}  // namespace caustica::testing
