// Which item of a queue a GPU thread takes: in order (thread t, item t), or spread over the warps
// (lane l of warp w, item l * warps + w), so that a warp's 32 items come from all over the queue
// rather than being neighbours. Neighbours that part ways cost a warp more than strangers do: a warp
// whose lanes branch apart runs the branches one after another, and neighbours that stay together
// for a while and then part (eye paths behind glass, shaders_cuda/bounce_pass.cpp) hold their warp
// for their longest one; spread, the long ones share their warps with short ones.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/hd.h"

namespace caustica {

struct WarpSpread {
    uint32_t count = 0;  // the queue's items
    uint32_t warps = 0;  // the warps the items are spread over; 0: in order

    static WarpSpread InOrder(uint32_t count) { return {count, 0}; }
    static WarpSpread OverWarps(uint32_t count) { return {count, (count + 31) / 32}; }

    // The threads to launch: a whole number of warps where the items are spread.
    size_t Threads() const { return warps ? size_t(warps) * 32 : count; }
    // The item of thread t < Threads(); count where it has none (the last warps' spare lanes).
    CA_HD uint32_t Item(uint32_t t) const {
        const uint32_t item = warps ? t % 32 * warps + t / 32 : t;
        return item < count ? item : count;
    }
};

}  // namespace caustica
