#include "core/parallel_for.h"
#include "core/srgb.h"
#include "shaders_cuda/eye_passes.h"

namespace caustica {
namespace {

struct CompositeSamplePass {
    Span<const Rgb> radiance;
    Span<Rgb> sum;
    float scale;  // exposure / samples
    Span<uint32_t> display;
    CA_HD void operator()(int p) const {
        const Rgb total = sum[p] + radiance[p];
        sum[p] = total;
        const Rgb c = total * scale;
        display[p] = EncodeSrgb8(c.x) | (EncodeSrgb8(c.y) << 8) | (EncodeSrgb8(c.z) << 16) | 0xff000000u;
    }
};

}  // namespace

void RunCompositePass(const Backend& backend, Span<const Rgb> radiance, Span<Rgb> sum, uint32_t samples,
                      float exposure, Span<uint32_t> display) {
    ParallelFor(backend, "composite", radiance.size(),
                CompositeSamplePass{radiance, sum, exposure / float(samples), display});
}

}  // namespace caustica
