// A ParallelForPaths pass whose items take from 0 to 40 steps, as a hash of the item decides, and
// the plain-loop reference, for the CPU and GPU suites.
#pragma once

#include <cstdint>
#include <vector>

#include "core/buffer.h"
#include "core/parallel_for_paths.h"
#include "core/rng.h"

namespace caustica::testing {

// Item i's number of steps: mostly a few, now and then many (as photons' bounces go).
CA_HD inline uint32_t PathSteps(uint32_t i) {
    const uint32_t h = Pcg32Hash(i);
    return h % 8 == 0 ? h % 41 : h % 4;
}

struct CountedPaths {
    uint32_t* sums;    // each item's sum of its steps' values, written when it ends
    uint32_t* starts;  // how often each item was started
    struct State {
        uint32_t item, steps_left, sum;
    };
    CA_HD bool Start(uint32_t i, State& s) const {
        ++starts[i];
        s = {i, PathSteps(i), 0};
        if (s.steps_left == 0) sums[i] = 0;
        return s.steps_left > 0;
    }
    CA_HD bool Step(State& s) const {
        s.sum = s.sum * 31u + s.item + s.steps_left;
        if (--s.steps_left > 0) return true;
        sums[s.item] = s.sum;
        return false;
    }
};

inline std::vector<uint32_t> SerialPathSums(uint32_t n) {
    std::vector<uint32_t> sums(n);
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t sum = 0;
        for (uint32_t left = PathSteps(i); left > 0; --left) sum = sum * 31u + i + left;
        sums[i] = sum;
    }
    return sums;
}

struct PathsRun {
    std::vector<uint32_t> sums, starts;
};

inline PathsRun RunPaths(const Backend& backend, uint32_t n) {
    Buffer<uint32_t> sums(backend, n), starts(backend, n);
    sums.FillBytes(0xff);
    starts.FillBytes(0);
    ParallelForPaths(backend, "test: paths", n, CountedPaths{sums.data(), starts.data()});
    return {sums.Download(), starts.Download()};
}

}  // namespace caustica::testing
