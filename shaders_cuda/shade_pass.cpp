#include "core/parallel_for.h"
#include "shaders_cuda/eye_passes.h"
#include "shaders_cuda/heat_colour.h"
#include "shaders_cuda/light_sample.h"

namespace caustica {
namespace {

constexpr float kInvPi = 1.0f / 3.14159265358979f;

struct ShadeDiffusePass {
    Span<const LightSource> lights;
    uint32_t rays_per_end;
    SampleKey key;
    Rgb ambient;
    ShadeView view;
    float max_radius;
    Span<const DiffusePoint> diffuse;
    Span<const uint32_t> end_node;
    Span<const uint8_t> visible;
    Span<const Rgb> caustic;
    Span<const float> caustic_radius;
    Span<const float> caustic_nearest2;
    Span<Rgb> radiance;  // of the tree's nodes
    CA_HD Rgb Shade(int i) const {
        const DiffusePoint& d = diffuse[end_node[i]];
        switch (view) {
            case ShadeView::CausticOnly: return d.weight * caustic[i] * kInvPi;
            case ShadeView::KnnRadius: return HeatColour(caustic_radius[i] / max_radius);
            case ShadeView::Photons:
                // A photon within a tenth of the largest query radius lights the pixel.
                return caustic_nearest2[i] <= 0.01f * max_radius * max_radius ? Rgb(1.0f) : Rgb(0.0f);
            case ShadeView::Full:
            case ShadeView::TraversalCost: break;
        }
        Rgb irradiance = caustic[i];
        const uint8_t* seen = visible.data() + size_t(i) * rays_per_end;
        for (uint32_t l = 0; l < lights.size(); ++l) {
            // The mean over the light's shadow rays (the same points as the shadow pass's).
            const LightSource& light = lights[l];
            Rgb sum(0.0f);
            for (uint32_t r = 0; r < light.shadow_rays; ++r, ++seen) {
                if (!*seen) continue;
                Vec2 p(0.5f, 0.5f);
                if (light.IsArea())
                    p = ShadowSamplePoint(key.seed, key.sample, uint32_t(i), l, uint32_t(lights.size()), r,
                                          light.shadow_rays);
                sum += SampleLight(light, d, p.x, p.y).irradiance;
            }
            irradiance += sum * (1.0f / float(light.shadow_rays));
        }
        // A diffuse surface reflects albedo / pi of its irradiance as radiance.
        return d.weight * (irradiance * kInvPi + ambient);
    }
    CA_HD void operator()(int i) const { radiance[end_node[i]] = Shade(i); }
};

}  // namespace

void RunShadePass(const Backend& backend, Span<const LightSource> lights, uint32_t rays_per_end, SampleKey key,
                  Rgb ambient, ShadeView view, float max_radius, EyeState& state) {
    ParallelFor(backend, "shade", state.end_count,
                ShadeDiffusePass{lights, rays_per_end, key, ambient, view, max_radius, state.diffuse.span(),
                                 state.end_node.span(), state.visible.span(), state.caustic.span(),
                                 state.caustic_radius.span(), state.caustic_nearest2.span(), state.tree_radiance.span()});
}

}  // namespace caustica
