#include "core/error.h"
#include "core/parallel_for.h"
#include "kdtree/point/knn_for_each.h"
#include "shaders_cuda/eye_passes.h"

namespace caustica {
namespace {

struct GatherQueriesPass {
    Span<const DiffusePoint> diffuse;
    Span<const uint32_t> end_node;
    Span<Vec3> queries;
    CA_HD void operator()(int i) const { queries[i] = diffuse[end_node[i]].position; }
};

// The filter of each query's photons, run where the KNN leaves them (on the GPU: shared memory).
struct FilterPhotons {
    Span<const PhotonArrival> arrivals;
    Span<const DiffusePoint> diffuse;
    Span<const uint32_t> end_node;
    PhotonFilter filter;
    float radius_scale;
    Span<Rgb> caustic;
    Span<float> radius;
    Span<float> nearest2;
    CA_HD void operator()(uint32_t i, KnnSlot neighbours, KnnOutcome o) const {
        const DiffusePoint& d = diffuse[end_node[i]];
        caustic[i] = CausticIrradiance(arrivals, neighbours, int(o.count), o.radius * radius_scale, d.normal, filter);
        float nearest = INFINITY;
        for (uint32_t j = 0; j < o.count; ++j) nearest = Min(nearest, neighbours.dist2[j * neighbours.stride]);
        radius[i] = o.radius;
        nearest2[i] = nearest;
    }
};

}  // namespace

void RunCausticQueriesPass(const Backend& backend, EyeState& state) {
    state.caustic_queries.Resize(state.end_count, false);
    ParallelFor(backend, "caustic queries", state.end_count,
                GatherQueriesPass{state.diffuse.span(), state.end_node.span(), state.caustic_queries.span()});
}

void RunCausticPass(const Backend& backend, const PhotonMap& photon_map, const KnnSettings& knn, PhotonFilter filter,
                    float radius_scale, EyeState& state, KnnJoin* join) {
    const uint32_t n = state.end_count;
    CA_CHECK_EQ(state.caustic_queries.size(), size_t(n));
    state.caustic.Resize(n, false);
    state.caustic_radius.Resize(n, false);
    state.caustic_nearest2.Resize(n, false);
    KnnForEach(backend, photon_map.Tree(), photon_map.Radii(), Span<const Vec3>(state.caustic_queries.span()), knn,
               state.knn,
               FilterPhotons{photon_map.Arrivals(), state.diffuse.span(), state.end_node.span(), filter, radius_scale,
                             state.caustic.span(),
                             state.caustic_radius.span(), state.caustic_nearest2.span()},
               join);
}

}  // namespace caustica
