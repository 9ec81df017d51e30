#include "renderer/bench/image_error.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace caustica {
namespace {

double Shown(float v) { return std::isfinite(v) ? std::min(std::max(double(v), 0.0), 1.0) : 0.0; }

}  // namespace

std::vector<ImageError> MeasureImageError(const Image& image, const Image& reference,
                                          const std::vector<FirstHit>& first_hits) {
    CA_CHECK_MSG(image.width == reference.width && image.height == reference.height, "images of ", image.width, "x",
                 image.height, " and ", reference.width, "x", reference.height);
    CA_CHECK_MSG(first_hits.size() == image.pixels.size(), first_hits.size(), " first hits for ", image.pixels.size(),
                 " pixels");
    std::vector<ImageError> errors(1 + kFirstHitKinds);
    std::vector<double> squares(errors.size(), 0.0);
    for (size_t i = 0; i < image.pixels.size(); ++i) {
        double absolute = 0.0, square = 0.0, linear = 0.0, reference_sum = 0.0;
        for (int c = 0; c < 3; ++c) {
            const double d = Shown(image.pixels[i][c]) - Shown(reference.pixels[i][c]);
            absolute += std::fabs(d);
            square += d * d;
            linear += std::fabs(double(image.pixels[i][c]) - double(reference.pixels[i][c]));
            reference_sum += double(reference.pixels[i][c]);
        }
        const bool relative = std::isfinite(linear) && reference_sum >= kRelativeFloor;
        for (const size_t k : {size_t(0), 1 + size_t(first_hits[i])}) {
            ImageError& e = errors[k];
            ++e.pixels;
            e.mean_absolute += absolute;
            squares[k] += square;
            e.far_fraction += absolute / 3.0 > kFarDifference;
            if (relative) {
                e.mean_relative += linear / reference_sum;
                e.root_mean_square_relative += (linear / reference_sum) * (linear / reference_sum);
                ++e.relative_pixels;
            }
        }
    }
    for (size_t k = 0; k < errors.size(); ++k) {
        ImageError& e = errors[k];
        if (e.pixels == 0) continue;
        e.mean_absolute /= 3.0 * double(e.pixels);
        e.root_mean_square = std::sqrt(squares[k] / (3.0 * double(e.pixels)));
        e.far_fraction /= double(e.pixels);
        if (e.relative_pixels > 0) {
            e.mean_relative /= double(e.relative_pixels);
            e.root_mean_square_relative = std::sqrt(e.root_mean_square_relative / double(e.relative_pixels));
        }
    }
    return errors;
}

const char* FirstHitName(FirstHit kind) {
    switch (kind) {
        case FirstHit::Diffuse: return "diffuse";
        case FirstHit::Glass: return "glass";
        case FirstHit::Metal: return "metal";
        case FirstHit::Light: return "light";
        case FirstHit::Background: break;
    }
    return "background";
}

}  // namespace caustica
