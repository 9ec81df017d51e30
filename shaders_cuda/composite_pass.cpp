#include "core/parallel_for.h"
#include "core/srgb.h"
#include "core/tone_map.h"
#include "shaders_cuda/eye_passes.h"

namespace caustica {
namespace {

struct CompositeSamplePass {
    PixelOrder order;
    Span<const Rgb> radiance;
    Span<Rgb> sum;
    float scale;  // exposure / samples
    ToneMap tone_map;
    Span<uint32_t> display;
    CA_HD void operator()(int i) const {
        const uint32_t p = order.Linear(uint32_t(i));
        const Rgb total = sum[p] + radiance[i];
        sum[p] = total;
        const Rgb c = ApplyToneMap(tone_map, total * scale);
        display[p] = EncodeSrgb8(c.x) | (EncodeSrgb8(c.y) << 8) | (EncodeSrgb8(c.z) << 16) | 0xff000000u;
    }
};

}  // namespace

void RunCompositePass(const Backend& backend, const EyeState& state, Span<Rgb> sum, uint32_t samples, float exposure,
                      ToneMap tone_map, Span<uint32_t> display) {
    ParallelFor(backend, "composite", state.pixels,
                CompositeSamplePass{state.order, state.PixelRadiance(), sum, exposure / float(samples), tone_map,
                                    display});
}

}  // namespace caustica
