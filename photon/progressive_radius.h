// Progressive photon mapping's shrinking radii in the probabilistic form of Knaus and Zwicker 2011
// ("Progressive Photon Mapping: A Probabilistic Approach": the radius reduction of Hachisuka, Ogaki
// and Jensen 2008 without per-point photon statistics): sample i (from 1) gathers within
// r_i, where r_{i+1}^2 = r_i^2 (i + alpha) / (i + 1), so
//
//   r_i^2 = r_1^2 * prod_{j=1}^{i-1} (j + alpha) / (j + 1)
//         = r_1^2 * Gamma(i + alpha) / (Gamma(1 + alpha) Gamma(i + 1)).
//
// Each sample's estimate is then unbiased up to its radius's bias, which shrinks to zero, while
// the variance of the mean over i samples still falls (as i^-alpha): the average converges to the
// exact irradiance. r_1 is the k-nearest radius of the sample's own query at the point; the
// factor depends only on the sample's index, so no state passes between samples and a still's
// sample ranges (--sample-range, --gpus) stay independent of each other.
#pragma once

#include <cmath>
#include <cstdint>

namespace caustica {

// The default alpha, between the bias's decay (small alpha) and the variance's (large alpha);
// Hachisuka et al. 2008 used 0.7.
constexpr float kDefaultProgressiveAlpha = 2.0f / 3.0f;

// r_i / r_1 for the sample numbered 'sample' from 0 (i = sample + 1), alpha in (0, 1).
inline float ProgressiveRadiusScale(uint32_t sample, float alpha) {
    const double i = double(sample) + 1.0, a = double(alpha);
    return float(std::exp(0.5 * (std::lgamma(i + a) - std::lgamma(1.0 + a) - std::lgamma(i + 1.0))));
}

}  // namespace caustica
