// Counter-based random numbers keyed by (frame, pass, item), never by thread, so images do not
// depend on scheduling and a still scene draws the same numbers every frame.
#pragma once

#include <cstdint>

#include "core/hd.h"

namespace caustica {

// The PCG output permutation of a 64-bit LCG step (O'Neill 2014), used as a hash.
CA_HD CA_INLINE uint32_t Pcg32Hash(uint64_t x) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const uint32_t xorshifted = uint32_t(((x >> 18u) ^ x) >> 27u);
    const uint32_t rot = uint32_t(x >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((32u - rot) & 31u));
}

// A small generator for one item's samples: seeded from the key, then stepped.
class Rng {
public:
    // Unkeyed, for a place that a keyed generator is copied into before any draw.
    Rng() = default;
    CA_HD Rng(uint64_t seed, uint32_t frame, uint32_t pass, uint64_t item)
        : state_(Mix(Mix(Mix(seed ^ 0x9e3779b97f4a7c15ull) ^ frame) ^ (uint64_t(pass) << 32)) ^ item) {}
    CA_HD uint32_t NextU32() {
        state_ += 0x9e3779b97f4a7c15ull;
        return Pcg32Hash(state_);
    }
    // Uniform in [0, 1).
    CA_HD float NextFloat() { return float(NextU32() >> 8) * (1.0f / 16777216.0f); }

private:
    // splitmix64's finaliser.
    CA_HD static uint64_t Mix(uint64_t z) {
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    uint64_t state_;
};

}  // namespace caustica
