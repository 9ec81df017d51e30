#include "core/parallel_for.h"
#include "core/rng.h"
#include "shaders_cuda/eye_passes.h"
#include "shaders_cuda/trace_pass.h"

namespace caustica {
namespace {

constexpr uint32_t kEyePass = 16;

struct GenerateEyeRaysPass {
    CameraView camera;
    PixelOrder order;
    SampleKey key;
    Span<EyePath> paths;
    CA_HD void operator()(int p) const {
        uint32_t x, y;
        order.Pixel(uint32_t(p), x, y);
        float jx = 0.5f, jy = 0.5f;
        if (key.sample > 0) {
            Rng rng(key.seed, key.sample, kEyePass, uint64_t(y) * camera.width + x);
            jx = rng.NextFloat();
            jy = rng.NextFloat();
        }
        paths[p] = {camera.Generate(float(x) + jx, float(y) + jy), Rgb(1.0f), uint32_t(p), 0u, 0.0f};
    }
};

}  // namespace

void RunEyePass(const Backend& backend, const SceneView& scene, const CameraView& camera, SampleKey key,
                EyeState& state) {
    const size_t pixels = size_t(camera.width) * size_t(camera.height);
    state.order = PixelOrder{uint32_t(camera.width), uint32_t(camera.height)};
    state.pixels = uint32_t(pixels);
    state.paths.Resize(pixels, false);
    state.hits.Resize(pixels, false);
    state.first_hit.Resize(pixels, false);
    state.tree_radiance.Resize(pixels, false);
    ParallelFor(backend, "eye rays", pixels, GenerateEyeRaysPass{camera, state.order, key, state.paths.span()});
    state.path_count = uint32_t(pixels);
    RunTracePass(backend, scene, state);
}

}  // namespace caustica
