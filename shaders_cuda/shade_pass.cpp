#include "core/parallel_for.h"
#include "shaders_cuda/eye_passes.h"
#include "shaders_cuda/light_sample.h"

namespace caustica {
namespace {

struct ShadeDiffusePass {
    Span<const LightSource> lights;
    Span<const Rgb> caustic;
    Rgb ambient;
    Span<const uint32_t> diffuse_pixels;
    Span<const DiffusePoint> diffuse;
    Span<const uint8_t> visible;
    Span<Rgb> radiance;
    CA_HD void operator()(int i) const {
        const uint32_t p = diffuse_pixels[i];
        const DiffusePoint& d = diffuse[p];
        Rgb irradiance = caustic.empty() ? Rgb(0.0f) : caustic[i];
        for (size_t l = 0; l < lights.size(); ++l)
            if (visible[size_t(i) * lights.size() + l]) irradiance += SampleLight(lights[l], d).irradiance;
        // A diffuse surface reflects albedo / pi of its irradiance as radiance.
        radiance[p] = d.weight * (irradiance * (1.0f / 3.14159265358979f) + ambient);
    }
};

}  // namespace

void RunShadePass(const Backend& backend, Span<const LightSource> lights, Span<const Rgb> caustic, Rgb ambient,
                  EyeState& state) {
    ParallelFor(backend, "shade", state.diffuse_count,
                ShadeDiffusePass{lights, caustic, ambient, state.diffuse_pixels.span(), state.diffuse.span(),
                                 state.visible.span(), state.radiance.span()});
}

}  // namespace caustica
