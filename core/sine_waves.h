// A water surface as a sum of travelling sine waves (the heightfield shape's `waves`), one function
// for the host's scene evaluation and the pass that generates the surface on the device each frame.
#pragma once

#include <cmath>

#include "core/hd.h"

namespace caustica {

// One sine wave of a height field: height += amplitude * sin(k (d . (x, z)) - w t + phase) with
// k = 2 pi / wavelength and w = k * speed.
struct SineWave {
    float amplitude = 0.02f;     // metres
    float wavelength = 1;        // metres
    float direction_degrees = 0; // travel direction in the xz-plane, 0 = +x, 90 = +z
    float speed = 0.3f;          // metres per second (phase velocity)
    float phase = 0;             // radians
};

// The waves' height at (x, z) and a time, summed in double precision (times grow large over a
// sequence).
CA_HD CA_INLINE float SineWavesHeight(const SineWave* waves, int count, float x, float z, double time) {
    constexpr double kPiDouble = 3.14159265358979323846;
    double sum = 0;
    for (int i = 0; i < count; ++i) {
        const SineWave& w = waves[i];
        const double k = 2.0 * kPiDouble / w.wavelength;
        const double angle = w.direction_degrees * kPiDouble / 180.0;
        const double along = cos(angle) * x + sin(angle) * z;
        sum += w.amplitude * sin(k * (along - w.speed * time) + w.phase);
    }
    return float(sum);
}

// The most the waves lift or lower the surface.
inline float SineWavesReach(const SineWave* waves, int count) {
    float reach = 0;
    for (int i = 0; i < count; ++i) reach += std::fabs(waves[i].amplitude);
    return reach;
}

}  // namespace caustica
