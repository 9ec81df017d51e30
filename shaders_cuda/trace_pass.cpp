#include "shaders_cuda/trace_pass.h"

#include "core/parallel_for.h"

namespace caustica {
namespace {

struct TracePathsPass {
    SceneView scene;
    Span<const EyePath> paths;
    Span<Hit> hits;
    CA_HD void operator()(int i) const { hits[i] = scene.Closest(paths[i].ray()); }
};

}  // namespace

void RunTracePass(const Backend& backend, const SceneView& scene, EyeState& state) {
    ParallelFor(backend, "trace", state.path_count, TracePathsPass{scene, state.paths.span(), state.hits.span()});
}

}  // namespace caustica
