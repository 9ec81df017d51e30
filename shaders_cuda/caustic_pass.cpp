#include "core/parallel_for.h"
#include "shaders_cuda/eye_passes.h"

namespace caustica {
namespace {

struct GatherQueriesPass {
    Span<const uint32_t> diffuse_pixels;
    Span<const DiffusePoint> diffuse;
    Span<Vec3> queries;
    CA_HD void operator()(int i) const { queries[i] = diffuse[diffuse_pixels[i]].position; }
};

struct FilterPhotonsPass {
    Span<const Photon> photons;
    KnnResultsView knn;
    Span<const uint32_t> diffuse_pixels;
    Span<const DiffusePoint> diffuse;
    PhotonFilter filter;
    Span<Rgb> caustic;
    CA_HD void operator()(int i) const {
        const DiffusePoint& d = diffuse[diffuse_pixels[i]];
        const uint32_t q = uint32_t(i);
        caustic[i] = CausticIrradiance(
            photons, [this, q](int j) { return knn.Index(q, uint32_t(j)); }, int(knn.counts[i]), knn.radii[i],
            d.position, d.normal, filter);
    }
};

}  // namespace

void RunCausticPass(const Backend& backend, const PhotonMap& photon_map, Span<const Photon> photons,
                    const KnnSettings& knn, PhotonFilter filter, EyeState& state) {
    const uint32_t n = state.diffuse_count;
    state.caustic_queries.Resize(n, false);
    state.caustic.Resize(n, false);
    ParallelFor(backend, "caustic queries", n,
                GatherQueriesPass{state.diffuse_pixels.span(), state.diffuse.span(), state.caustic_queries.span()});
    KnnBatch(backend, photon_map.Tree(), photon_map.Radii(), state.caustic_queries.span(), knn, state.knn);
    ParallelFor(backend, "caustic filter", n,
                FilterPhotonsPass{photons, state.knn.View(), state.diffuse_pixels.span(), state.diffuse.span(), filter,
                                  state.caustic.span()});
}

}  // namespace caustica
