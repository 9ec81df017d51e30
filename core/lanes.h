// The lanes that share one item's work: one thread (OneLane: the CPU, or a GPU thread alone) or the
// 32 threads of a GPU warp (WarpLanes). Code written once against either takes the parts lane,
// lane + kCount, ... of the item and combines the lanes' answers with Reduce, so the CPU and the
// GPU run the same source. Reduce's operation must give the same bits in any order (a total order,
// integer min/max), or the warp's answer would depend on how it paired the lanes.
#pragma once

#include <cstdint>
#include <cstring>

#include "core/hd.h"

namespace caustica {

struct OneLane {
    static constexpr uint32_t kCount = 1;
    CA_HD uint32_t Lane() const { return 0; }
    CA_HD void Sync() const {}
    template <class T, class Op>
    CA_HD T Reduce(const T& value, const Op&) const {
        return value;
    }
};

#if defined(__CUDACC__)
struct WarpLanes {
    static constexpr uint32_t kCount = 32;
    __device__ uint32_t Lane() const { return threadIdx.x % 32; }
    // Makes the lanes' writes to shared memory visible to each other.
    __device__ void Sync() const { __syncwarp(); }
    // A butterfly: every lane ends with op over all 32 lanes' values.
    template <class T, class Op>
    __device__ T Reduce(T value, const Op& op) const {
        static_assert(sizeof(T) % 4 == 0, "Reduce shuffles 32-bit words");
        for (int offset = 16; offset > 0; offset /= 2) {
            uint32_t words[sizeof(T) / 4];
            memcpy(words, &value, sizeof(T));
            for (uint32_t& w : words) w = __shfl_xor_sync(0xffffffffu, w, offset);
            T other;
            memcpy(&other, words, sizeof(T));
            value = op(value, other);
        }
        return value;
    }
};
#endif

}  // namespace caustica
