// The photon map of a frame: the stored caustic photons' kd-tree (Zhou et al. 2008, section 5.1)
// and, for the histogram KNN, its node-radius estimates of the initial radius (Appendix A),
// rebuilt every sample.
#pragma once

#include "core/backend.h"
#include "core/span.h"
#include "kdtree/point/knn_batch.h"
#include "kdtree/point/node_radius.h"
#include "kdtree/point/point_tree.h"
#include "kdtree/point/point_tree_builder.h"
#include "photon/photon.h"

namespace caustica {

class PhotonMap {
public:
    explicit PhotonMap(const Backend& backend);

    // Builds the tree over the photons (in the backend's memory) and, when the method starts from
    // r0 (KnnNeedsRadii), the radius estimates for queries of k photons.
    void Build(Span<const Photon> photons, int k, KnnMethod method);

    PointTreeView Tree() const { return tree_.View(); }
    // None (NodeRadiusView{}) when the last Build's method needed none.
    NodeRadiusView Radii() const { return with_radii_ ? radii_.View() : NodeRadiusView{}; }

private:
    const Backend& backend_;
    PointTreeBuilder builder_;
    PointTree tree_;
    NodeRadii radii_;
    bool with_radii_ = false;
};

}  // namespace caustica
