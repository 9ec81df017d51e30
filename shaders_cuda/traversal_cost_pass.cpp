#include "core/parallel_for.h"
#include "shaders_cuda/eye_passes.h"
#include "shaders_cuda/heat_colour.h"

namespace caustica {
namespace {

struct TraversalCostPass {
    SceneView scene;
    Span<const EyePath> paths;
    Span<Rgb> radiance;
    CA_HD void operator()(int p) const {
        const TraversalCost cost = MeasureClosestHit(scene.tree, scene.triangles.data(), paths[p].ray());
        radiance[p] = HeatColour(float(cost.tests) / kHeatMapTests);
    }
};

}  // namespace

void RunTraversalCostPass(const Backend& backend, const SceneView& scene, EyeState& state) {
    ParallelFor(backend, "traversal cost", state.pixels,
                TraversalCostPass{scene, state.paths.span(), state.tree_radiance.span()});
}

}  // namespace caustica
