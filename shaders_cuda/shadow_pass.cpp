#include "core/parallel_for.h"
#include "shaders_cuda/eye_passes.h"
#include "shaders_cuda/light_sample.h"

namespace caustica {
namespace {

struct ShadowRaysPass {
    SceneView scene;
    Span<const LightSource> lights;
    Span<const DiffusePoint> diffuse;
    Span<uint8_t> visible;
    CA_HD void operator()(int j) const {
        const uint32_t l = uint32_t(j) % uint32_t(lights.size());
        const LightSample s = SampleLight(lights[l], diffuse[uint32_t(j) / uint32_t(lights.size())]);
        visible[j] = MaxComponent(s.irradiance) > 0.0f && !scene.Occluded(s.shadow_ray);
    }
};

}  // namespace

void RunShadowPass(const Backend& backend, const SceneView& scene, Span<const LightSource> lights, EyeState& state) {
    const size_t n = size_t(state.end_count) * lights.size();
    state.visible.Resize(n, false);
    ParallelFor(backend, "shadow rays", n, ShadowRaysPass{scene, lights, state.diffuse.span(), state.visible.span()});
}

}  // namespace caustica
