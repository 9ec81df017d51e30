// How far apart two renderings are, for tests that compare images.
#pragma once

#include <gtest/gtest.h>

#include <cmath>

#include "renderer/output/image.h"

namespace caustica::testing {

struct ImageDifference {
    double mean = 0;            // mean absolute difference per pixel and channel
    double mean_luminance = 0;  // of the first image
    double far_fraction = 0;    // pixels whose channels differ by more than 0.1 on average
};

inline ImageDifference Compare(const Image& a, const Image& b) {
    ImageDifference d;
    size_t far = 0;
    for (size_t i = 0; i < a.pixels.size(); ++i) {
        const Rgb e = a.pixels[i] - b.pixels[i];
        const double diff = (std::fabs(e.x) + std::fabs(e.y) + std::fabs(e.z)) / 3.0;
        d.mean += diff;
        d.mean_luminance += Luminance(a.pixels[i]);
        far += diff > 0.1;
    }
    const double n = double(a.pixels.size());
    d.mean /= n;
    d.mean_luminance /= n;
    d.far_fraction = double(far) / n;
    return d;
}

// Close enough to call the same frame: the mean difference within 2% of the image's mean
// luminance, and at most 1% of the pixels clearly different.
inline ::testing::AssertionResult CloseImages(const Image& a, const Image& b) {
    if (a.width != b.width || a.height != b.height)
        return ::testing::AssertionFailure() << "sizes differ: " << a.width << "x" << a.height << " and " << b.width
                                             << "x" << b.height;
    const ImageDifference d = Compare(a, b);
    if (d.mean <= 0.02 * d.mean_luminance + 1e-4 && d.far_fraction <= 0.01) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "mean difference " << d.mean << " (image mean " << d.mean_luminance
                                         << "), " << 100.0 * d.far_fraction << "% of pixels differ by more than 0.1";
}

}  // namespace caustica::testing
