#include "core/parallel_for.h"
#include "shaders_cuda/eye_passes.h"
#include "shaders_cuda/light_sample.h"

namespace caustica {
namespace {

// One shadow ray: the r-th of a diffuse end's, the lights' shadow rays one after another.
struct ShadowRaysPass {
    SceneView scene;
    Span<const LightSource> lights;
    uint32_t rays_per_end;
    SampleKey key;
    Span<const DiffusePoint> diffuse;
    Span<const uint32_t> end_node;
    Span<uint8_t> visible;
    CA_HD void operator()(int j) const {
        const uint32_t end = uint32_t(j) / rays_per_end;
        uint32_t i = uint32_t(j) % rays_per_end, l = 0;
        while (i >= lights[l].shadow_rays) i -= lights[l++].shadow_rays;
        const LightSource& light = lights[l];
        Vec2 p(0.5f, 0.5f);
        if (light.IsArea())
            p = ShadowSamplePoint(key.seed, key.sample, end, l, uint32_t(lights.size()), i, light.shadow_rays);
        const LightSample s = SampleLight(light, diffuse[end_node[end]], p.x, p.y);
        visible[j] = MaxComponent(s.irradiance) > 0.0f && !scene.Occluded(s.shadow_ray);
    }
};

}  // namespace

uint32_t ShadowRaysPerEnd(Span<const LightSource> lights) {
    uint32_t n = 0;
    for (const LightSource& l : lights) n += l.shadow_rays;
    return n;
}

void RunShadowPass(const Backend& backend, const SceneView& scene, Span<const LightSource> lights,
                   uint32_t rays_per_end, SampleKey key, EyeState& state) {
    const size_t n = size_t(state.end_count) * rays_per_end;
    state.visible.Resize(n, false);
    ParallelFor(backend, "shadow rays", n,
                ShadowRaysPass{scene, lights, rays_per_end, key, state.diffuse.span(), state.end_node.span(),
                               state.visible.span()});
}

}  // namespace caustica
