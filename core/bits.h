// Bit counts and positions of 32- and 64-bit words (masks of small nodes' points and triangles), in
// host and device code.
#pragma once

#include <cstdint>

#include "core/hd.h"

namespace caustica {

CA_HD inline uint32_t PopCount(uint32_t x) {
#if CA_DEVICE_CODE
    return uint32_t(__popc(x));
#else
    return uint32_t(__builtin_popcount(x));
#endif
}

// The lowest and the highest set bit of x (x != 0).
CA_HD inline uint32_t LowestBit(uint32_t x) {
#if CA_DEVICE_CODE
    return uint32_t(__ffs(int(x)) - 1);
#else
    return uint32_t(__builtin_ctz(x));
#endif
}

CA_HD inline uint32_t HighestBit(uint32_t x) {
#if CA_DEVICE_CODE
    return 31u - uint32_t(__clz(int(x)));
#else
    return 31u - uint32_t(__builtin_clz(x));
#endif
}

CA_HD inline uint32_t PopCount(uint64_t x) {
#if CA_DEVICE_CODE
    return uint32_t(__popcll(x));
#else
    return uint32_t(__builtin_popcountll(x));
#endif
}

CA_HD inline uint32_t LowestBit(uint64_t x) {
#if CA_DEVICE_CODE
    return uint32_t(__ffsll(static_cast<long long>(x)) - 1);
#else
    return uint32_t(__builtin_ctzll(x));
#endif
}

// x with its bits in reverse order (bit 0 to bit 31).
CA_HD inline uint32_t ReverseBits(uint32_t x) {
#if CA_DEVICE_CODE
    return __brev(x);
#else
    x = (x << 16) | (x >> 16);
    x = ((x & 0x00ff00ffu) << 8) | ((x & 0xff00ff00u) >> 8);
    x = ((x & 0x0f0f0f0fu) << 4) | ((x & 0xf0f0f0f0u) >> 4);
    x = ((x & 0x33333333u) << 2) | ((x & 0xccccccccu) >> 2);
    return ((x & 0x55555555u) << 1) | ((x & 0xaaaaaaaau) >> 1);
#endif
}

}  // namespace caustica
