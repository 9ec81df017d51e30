// How far a rendering is from a reference image, over all pixels and by what each pixel's eye ray
// met first (diffuse, glass, metal, an area light, background): bench quality's measure of a frame's noise.
#pragma once

#include <cstddef>
#include <vector>

#include "renderer/output/image.h"
#include "shaders_cuda/eye_state.h"

namespace caustica {

// Both images are compared as shown: each channel clamped to [0, 1] (linear light); the relative
// error alone compares the linear values unclamped.
struct ImageError {
    size_t pixels = 0;
    double mean_absolute = 0;  // over pixels and channels
    double root_mean_square = 0;
    double far_fraction = 0;  // pixels whose channels differ by more than 0.1 on average
    // The mean over pixels of |image - reference| summed over the channels, over the reference's sum
    // of the channels (issue 22's "mean relative error per pixel"), of the pixels whose reference
    // sum is at least kRelativeFloor (their count: relative_pixels).
    double mean_relative = 0;
    size_t relative_pixels = 0;
    // The root of the mean square of the same: it bounds the mean from above, and against a noisy
    // but unbiased reference its square is the true one's plus the reference's variance, which a
    // second reference measures (bench quality's help says how).
    double root_mean_square_relative = 0;
};

// Pixels darker than this in the reference (sum of channels) have no relative error: black has none.
constexpr double kRelativeFloor = 1e-3;

// The pixel counts a pixel as clearly off: its channels' mean absolute difference exceeds this.
constexpr double kFarDifference = 0.1;

// [0]: all pixels; [1 + k]: the pixels whose first hit is FirstHit(k). first_hits is row by row,
// one per pixel; the images have the same size.
std::vector<ImageError> MeasureImageError(const Image& image, const Image& reference,
                                          const std::vector<FirstHit>& first_hits);

// "diffuse", "glass", "metal", "light", "background".
const char* FirstHitName(FirstHit kind);

}  // namespace caustica
