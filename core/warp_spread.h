// Which item of a queue a GPU thread takes: the queue is cut into groups of 32 * G items, and lane l
// of a group's warp w takes the group's item l * G + w, so that a warp's 32 items lie G apart rather
// than side by side (G = 1 keeps the queue in order). Neighbours that part ways cost a warp more
// than strangers do: a warp whose lanes branch apart runs the branches one after another, and
// neighbours that go together for a while and then part (eye paths behind glass,
// shaders_cuda/bounce_pass.cpp) hold their warp for all of their long ones; spread, each warp gets
// fewer of them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/hd.h"

namespace caustica {

struct WarpSpread {
    uint32_t count = 0;        // the queue's items
    uint32_t group_warps = 1;  // G

    // The threads to launch: whole groups.
    size_t Threads() const {
        const size_t group = size_t(32) * group_warps;
        return (count + group - 1) / group * group;
    }
    // The item of thread t < Threads(); count where it has none (the last group's spare lanes).
    CA_HD uint32_t Item(uint32_t t) const {
        const uint32_t group = 32 * group_warps, first = t / group * group;
        const uint32_t item = first + t % 32 * group_warps + t % group / 32;
        return item < count ? item : count;
    }
};

}  // namespace caustica
