#include "core/parallel_for.h"
#include "shaders_cuda/eye_passes.h"
#include "shaders_cuda/heat_colour.h"
#include "shaders_cuda/light_sample.h"

namespace caustica {
namespace {

constexpr float kInvPi = 1.0f / 3.14159265358979f;

struct ShadeDiffusePass {
    Span<const LightSource> lights;
    Rgb ambient;
    ShadeView view;
    float max_radius;
    Span<const uint32_t> diffuse_pixels;
    Span<const DiffusePoint> diffuse;
    Span<const uint8_t> visible;
    Span<const Rgb> caustic;
    Span<const float> caustic_radius;
    Span<const float> caustic_nearest2;
    Span<Rgb> radiance;
    CA_HD void operator()(int i) const {
        const uint32_t p = diffuse_pixels[i];
        const DiffusePoint& d = diffuse[p];
        switch (view) {
            case ShadeView::CausticOnly: radiance[p] = d.weight * caustic[i] * kInvPi; return;
            case ShadeView::KnnRadius: radiance[p] = HeatColour(caustic_radius[i] / max_radius); return;
            case ShadeView::Photons:
                // A photon within a tenth of the largest query radius lights the pixel.
                radiance[p] = caustic_nearest2[i] <= 0.01f * max_radius * max_radius ? Rgb(1.0f) : Rgb(0.0f);
                return;
            case ShadeView::Full:
            case ShadeView::TraversalCost: break;
        }
        Rgb irradiance = caustic[i];
        for (size_t l = 0; l < lights.size(); ++l)
            if (visible[size_t(i) * lights.size() + l]) irradiance += SampleLight(lights[l], d).irradiance;
        // A diffuse surface reflects albedo / pi of its irradiance as radiance.
        radiance[p] = d.weight * (irradiance * kInvPi + ambient);
    }
};

}  // namespace

void RunShadePass(const Backend& backend, Span<const LightSource> lights, Rgb ambient, ShadeView view,
                  float max_radius, EyeState& state) {
    ParallelFor(backend, "shade", state.diffuse_count,
                ShadeDiffusePass{lights, ambient, view, max_radius, state.diffuse_pixels.span(), state.diffuse.span(),
                                 state.visible.span(), state.caustic.span(), state.caustic_radius.span(),
                                 state.caustic_nearest2.span(), state.radiance.span()});
}

}  // namespace caustica
