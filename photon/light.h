// Lights as photon emission and shading see them.
#pragma once

#include <cstdint>

#include "core/hd.h"
#include "core/vec.h"

namespace caustica {

enum class LightKind : uint8_t { Point, Spot, Directional };

struct LightSource {
    LightKind kind = LightKind::Point;
    Vec3 position;                 // point and spot
    Vec3 direction{0, -1, 0};      // spot axis, or the direction directional light travels (unit)
    Rgb power{100, 100, 100};      // point/spot: radiant flux (W) over the whole sphere;
                                   // directional: irradiance (W/m^2) on a plane facing it
    float cos_inner = 1.0f;        // spot: full intensity inside this cone
    float cos_outer = -1.0f;       // spot: no light outside this cone

    // Radiant intensity (W/sr) toward unit direction w from the light (point and spot).
    CA_HD Rgb Intensity(Vec3 w) const {
        const Rgb i = power * (1.0f / (4.0f * 3.14159265358979f));
        return kind == LightKind::Spot ? i * SpotFalloff(Dot(w, direction)) : i;
    }
    // Smooth falloff from the inner to the outer cone (a smoothstep in the cosine).
    CA_HD float SpotFalloff(float cos_angle) const {
        if (cos_angle >= cos_inner) return 1.0f;
        if (cos_angle <= cos_outer) return 0.0f;
        const float t = (cos_angle - cos_outer) / (cos_inner - cos_outer);
        return t * t * (3.0f - 2.0f * t);
    }
};

}  // namespace caustica
