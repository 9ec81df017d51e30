// The progressive radius's closed form against the recurrence of Knaus and Zwicker 2011.
#include <gtest/gtest.h>

#include "photon/progressive_radius.h"

namespace caustica {
namespace {

TEST(ProgressiveRadius, FollowsTheRecurrence) {
    for (const float alpha : {0.3f, kDefaultProgressiveAlpha, 1.0f}) {
        double r2 = 1.0;  // r_1^2
        for (uint32_t sample = 0; sample < 5000; ++sample) {
            const double scale = ProgressiveRadiusScale(sample, alpha);
            ASSERT_NEAR(scale * scale, r2, 1e-5 * r2) << "alpha " << alpha << ", sample " << sample;
            const double i = double(sample) + 1.0;
            r2 *= (i + alpha) / (i + 1.0);
        }
    }
}

}  // namespace
}  // namespace caustica
