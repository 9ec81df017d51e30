#include "core/parallel_for.h"
#include "shaders_cuda/eye_passes.h"
#include "shaders_cuda/heat_colour.h"

namespace caustica {
namespace {

struct TraversalCostPass {
    SceneView scene;
    Span<const Ray> rays;
    Span<Rgb> radiance;
    CA_HD void operator()(int p) const {
        const TraversalCost cost = MeasureClosestHit(scene.tree, scene.triangles.data(), rays[p]);
        radiance[p] = HeatColour(float(cost.tests) / kHeatMapTests);
    }
};

}  // namespace

void RunTraversalCostPass(const Backend& backend, const SceneView& scene, EyeState& state) {
    ParallelFor(backend, "traversal cost", state.rays.size(),
                TraversalCostPass{scene, state.rays.span(), state.radiance.span()});
}

}  // namespace caustica
