// The photon map of a frame: the stored caustic photons' kd-tree (Zhou et al. 2008, section 5.1)
// and its node-radius estimates for the initial KNN radius (Appendix A), rebuilt every sample.
#pragma once

#include "core/backend.h"
#include "core/span.h"
#include "kdtree/node_radius.h"
#include "kdtree/point_tree.h"
#include "kdtree/point_tree_builder.h"
#include "photon/photon.h"

namespace caustica {

class PhotonMap {
public:
    explicit PhotonMap(const Backend& backend);

    // Builds the tree over the photons (in the backend's memory) and the radius estimates for
    // queries of k photons.
    void Build(Span<const Photon> photons, int k);

    PointTreeView Tree() const { return tree_.View(); }
    NodeRadiusView Radii() const { return radii_.View(); }

private:
    const Backend& backend_;
    PointTreeBuilder builder_;
    PointTree tree_;
    NodeRadii radii_;
};

}  // namespace caustica
