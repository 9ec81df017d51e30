// Stratified points in the unit square over the samples of one item (a pixel's lens positions):
// the first two dimensions of Sobol's sequence, a (0, 2)-sequence in base 2, scrambled by a random
// XOR per item (Kollig and Keller, "Efficient Multidimensional Sampling", Eurographics 2002). Any
// 2^k consecutive samples starting at a multiple of 2^k put exactly one point in each of 2^k
// equal boxes of every shape 2^-a x 2^-(k-a), so an average over them converges faster than over
// independent points; the scramble keeps that and decorrelates neighbouring items.
#pragma once

#include <cstdint>

#include "core/bits.h"
#include "core/hd.h"
#include "core/vec.h"

namespace caustica {

// Sobol's second dimension: the XOR of the direction numbers v_j = 2^(31-j) (v_(j-1) ^ ...) of the
// index's set bits (its first dimension is the van der Corput sequence, ReverseBits(index)).
CA_HD CA_INLINE uint32_t SobolSecond(uint32_t index) {
    uint32_t bits = 0;
    for (uint32_t v = 1u << 31; index != 0; index >>= 1, v ^= v >> 1)
        if (index & 1u) bits ^= v;
    return bits;
}

// The index-th point of the item whose scrambles are (scramble_x, scramble_y), in [0, 1)^2.
CA_HD CA_INLINE Vec2 Sobol02(uint32_t index, uint32_t scramble_x, uint32_t scramble_y) {
    const float unit = 1.0f / 16777216.0f;  // the top 24 bits: exact in a float, below 1
    return Vec2(float((ReverseBits(index) ^ scramble_x) >> 8) * unit,
                float((SobolSecond(index) ^ scramble_y) >> 8) * unit);
}

}  // namespace caustica
