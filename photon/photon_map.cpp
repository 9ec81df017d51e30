#include "photon/photon_map.h"

#include <algorithm>

namespace caustica {

PhotonMap::PhotonMap(const Backend& backend) : backend_(backend), builder_(backend), tree_(backend), radii_(backend) {}

void PhotonMap::Build(Span<const Photon> photons, int k, KnnMethod method) {
    builder_.Build(photons, tree_);
    with_radii_ = KnnNeedsRadii(method);
    if (with_radii_) radii_.Compute(backend_, tree_.View(), builder_.params(), std::min(k, kMaxEstimateK));
}

}  // namespace caustica
