#include "photon/photon_map.h"

#include <algorithm>

#include "core/error.h"
#include "core/parallel_for.h"

namespace caustica {
namespace {

// Copies point j's photon's arrival (and normal) to place j and names it there.
struct LeafOrderPass {
    Span<const Photon> photons;
    Span<const Vec3> normals;
    Span<TreePoint> points;
    Span<PhotonArrival> ordered;
    Span<Vec3> ordered_normals;
    CA_HD void operator()(int j) const {
        const uint32_t i = points[j].index;
        ordered[j] = PhotonArrival{photons[i].power, photons[i].direction};
        if (!ordered_normals.empty()) ordered_normals[j] = normals[i];
        points[j].index = uint32_t(j);
    }
};

}  // namespace

PhotonMap::PhotonMap(const Backend& backend)
    : backend_(backend), builder_(backend), tree_(backend), radii_(backend), arrivals_(backend), normals_(backend) {}

void PhotonMap::Build(Span<const Photon> photons, Span<const Vec3> normals, int k, KnnMethod method) {
    CA_CHECK_MSG(normals.empty() || normals.size() == photons.size(), "photon map: ", normals.size(), " normals for ",
                 photons.size(), " photons");
    builder_.Build(photons, tree_);
    arrivals_.Resize(photons.size(), false);
    normals_.Resize(normals.size(), false);
    ParallelFor(backend_, "photon map: leaf order", photons.size(),
                LeafOrderPass{photons, normals, tree_.points.span(), arrivals_.span(), normals_.span()});
    with_radii_ = KnnNeedsRadii(method);
    if (with_radii_) radii_.Compute(backend_, tree_.View(), builder_.params(), std::min(k, kMaxEstimateK));
}

}  // namespace caustica
