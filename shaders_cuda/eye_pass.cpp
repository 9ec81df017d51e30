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
    Span<Ray> rays;
    Span<Rgb> throughput;
    Span<uint32_t> active;
    Span<uint32_t> all_pixels;
    Span<uint8_t> ends_diffuse;
    Span<Rgb> radiance;
    CA_HD void operator()(int p) const {
        uint32_t x, y;
        order.Pixel(uint32_t(p), x, y);
        float jx = 0.5f, jy = 0.5f;
        if (key.sample > 0) {
            Rng rng(key.seed, key.sample, kEyePass, uint64_t(y) * camera.width + x);
            jx = rng.NextFloat();
            jy = rng.NextFloat();
        }
        rays[p] = camera.Generate(float(x) + jx, float(y) + jy);
        throughput[p] = Rgb(1.0f);
        active[p] = uint32_t(p);
        all_pixels[p] = uint32_t(p);
        ends_diffuse[p] = 0;
        radiance[p] = Rgb(0.0f);
    }
};

}  // namespace

void RunEyePass(const Backend& backend, const SceneView& scene, const CameraView& camera, SampleKey key,
                EyeState& state) {
    const size_t pixels = size_t(camera.width) * size_t(camera.height);
    state.order = PixelOrder{uint32_t(camera.width), uint32_t(camera.height)};
    for (auto* b : {&state.active, &state.next_active, &state.all_pixels, &state.diffuse_pixels})
        b->Resize(pixels, false);
    state.rays.Resize(pixels, false);
    state.throughput.Resize(pixels, false);
    state.hits.Resize(pixels, false);
    state.continues.Resize(pixels, false);
    state.diffuse.Resize(pixels, false);
    state.ends_diffuse.Resize(pixels, false);
    state.first_hit.Resize(pixels, false);
    state.radiance.Resize(pixels, false);
    ParallelFor(backend, "eye rays", pixels,
                GenerateEyeRaysPass{camera, state.order, key, state.rays.span(), state.throughput.span(),
                                    state.active.span(), state.all_pixels.span(), state.ends_diffuse.span(),
                                    state.radiance.span()});
    state.active_count = uint32_t(pixels);
    RunTracePass(backend, scene, state.active.span(), state);
}

}  // namespace caustica
