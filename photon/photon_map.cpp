#include "photon/photon_map.h"

#include <algorithm>

namespace caustica {

PhotonMap::PhotonMap(const Backend& backend) : backend_(backend), builder_(backend), tree_(backend), radii_(backend) {}

void PhotonMap::Build(Span<const Photon> photons, int k) {
    builder_.Build(photons, tree_);
    radii_.Compute(backend_, tree_.View(), builder_.params(), std::min(k, kMaxEstimateK));
}

}  // namespace caustica
