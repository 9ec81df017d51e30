// The colour scale of the heat-map debug views.
#pragma once

#include "core/hd.h"
#include "core/vec.h"

namespace caustica {

// Blue through green to red for t in [0, 1] (clamped).
CA_HD CA_INLINE Rgb HeatColour(float t) {
    t = Min(Max(t, 0.0f), 1.0f);
    return Rgb(Max(0.0f, 2.0f * t - 1.0f), 1.0f - fabsf(2.0f * t - 1.0f), Max(0.0f, 1.0f - 2.0f * t));
}

}  // namespace caustica
