#include "core/parallel_for.h"
#include "kdtree/point/knn_for_each.h"
#include "shaders_cuda/indirect_passes.h"

namespace caustica {
namespace {

// The filter of each end's global photons, run where the KNN leaves them.
struct FilterGlobalPhotons {
    Span<const PhotonArrival> arrivals;
    Span<const Vec3> normals;
    Span<const DiffusePoint> diffuse;
    Span<const uint32_t> end_node;
    PhotonFilter filter;
    float radius_scale;
    Span<Rgb> irradiance;
    CA_HD void operator()(uint32_t i, KnnSlot neighbours, KnnOutcome o) const {
        irradiance[i] = GlobalIrradiance(arrivals, normals, neighbours, o, o.radius * radius_scale,
                                         diffuse[end_node[i]].normal, filter);
    }
};

}  // namespace

void RunIndirectEstimatePass(const Backend& backend, const PhotonMap& global_map, const KnnSettings& knn,
                             PhotonFilter filter, float radius_scale, const EyeState& eye, IndirectState& state) {
    const uint32_t n = eye.end_count;
    state.irradiance.Resize(n, false);
    KnnForEach(backend, global_map.Tree(), global_map.Radii(), eye.caustic_queries.span().first(n), knn, state.knn,
               FilterGlobalPhotons{global_map.Arrivals(), global_map.Normals(), eye.diffuse.span(),
                                   eye.end_node.span(), filter, radius_scale, state.irradiance.span()},
               &state.estimate_chunks);
}

}  // namespace caustica
