#include "shaders_cuda/trace_pass.h"

#include "core/parallel_for.h"

namespace caustica {
namespace {

struct TracePixelsPass {
    SceneView scene;
    Span<const uint32_t> pixels;
    Span<const Ray> rays;
    Span<Hit> hits;
    CA_HD void operator()(int i) const {
        const uint32_t p = pixels[i];
        hits[p] = scene.Closest(rays[p]);
    }
};

}  // namespace

void RunTracePass(const Backend& backend, const SceneView& scene, Span<const uint32_t> pixels, EyeState& state) {
    ParallelFor(backend, "trace", pixels.size(), TracePixelsPass{scene, pixels, state.rays.span(), state.hits.span()});
}

}  // namespace caustica
