// What lies beyond the scene: the radiance that a ray leaving it brings back. A constant colour, a
// vertical gradient from the horizon to the zenith, or an equirectangular image (linear RGB in the
// backend's memory). The environment is seen (in the background, in mirrors and through glass),
// not a light source: photons are not emitted from it.
#pragma once

#include <cstdint>

#include "core/hd.h"
#include "core/span.h"
#include "core/vec.h"

namespace caustica {

enum class EnvironmentKind : uint8_t { Constant, Gradient, Image };

// Where direction d (unit) falls in an equirectangular image, u and v in [0, 1]: v = 0 is the
// zenith (+y) and v = 1 the nadir; u = 0.5 looks toward -z, u grows turning toward +x, and
// u = 0 and u = 1 meet toward +z (the seam).
CA_HD CA_INLINE Vec2 EquirectangularUv(Vec3 d) {
    constexpr float kPi = 3.14159265358979f;
    return Vec2(0.5f + atan2f(d.x, -d.z) * (0.5f / kPi), acosf(Min(1.0f, Max(-1.0f, d.y))) * (1.0f / kPi));
}

struct EnvironmentView {
    EnvironmentKind kind = EnvironmentKind::Constant;
    Rgb color{0.0f};   // constant: the radiance; gradient: at the horizon and below it
    Rgb zenith{0.0f};  // gradient: straight up
    float intensity = 1.0f;
    float cos_turn = 1.0f, sin_turn = 0.0f;  // the image turned about +y by this angle (as an object's
                                             // rotate [0, angle, 0] turns it)
    int width = 0, height = 0;               // image
    Span<const Rgb> texels;                  // image: rows from the top (the zenith)

    // Radiance arriving from unit direction d (the way a ray leaving the scene travels).
    CA_HD Rgb Radiance(Vec3 d) const {
        switch (kind) {
            case EnvironmentKind::Constant: return color * intensity;
            case EnvironmentKind::Gradient: return Lerp(color, zenith, Max(0.0f, d.y)) * intensity;
            case EnvironmentKind::Image: break;
        }
        // Into the image's own frame: turn d back by the image's turn.
        const Vec3 local(cos_turn * d.x - sin_turn * d.z, d.y, sin_turn * d.x + cos_turn * d.z);
        return Texel(EquirectangularUv(local)) * intensity;
    }

    // Bilinear between the four texels around (u, v): wrapping around in u, clamped in v.
    CA_HD Rgb Texel(Vec2 uv) const {
        const float x = uv.x * float(width) - 0.5f, y = uv.y * float(height) - 0.5f;
        const float x_floor = floorf(x), y_floor = floorf(y);
        const float fx = x - x_floor, fy = y - y_floor;
        int x0 = int(x_floor) % width;
        if (x0 < 0) x0 += width;
        const int x1 = x0 + 1 < width ? x0 + 1 : 0;
        const int y0 = y_floor < 0.0f ? 0 : (int(y_floor) < height ? int(y_floor) : height - 1);
        const int y1 = y_floor + 1.0f < float(height) ? (y_floor < -1.0f ? 0 : int(y_floor) + 1) : height - 1;
        auto at = [this](int tx, int ty) { return texels[size_t(ty) * size_t(width) + size_t(tx)]; };
        return Lerp(Lerp(at(x0, y0), at(x1, y0), fx), Lerp(at(x0, y1), at(x1, y1), fx), fy);
    }
};

}  // namespace caustica
