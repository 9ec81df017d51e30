// The photon map of a frame: the stored caustic photons' kd-tree (Zhou et al. 2008, section 5.1)
// and, for the histogram KNN, its node-radius estimates of the initial radius (Appendix A),
// rebuilt every sample.
#pragma once

#include "core/backend.h"
#include "core/buffer.h"
#include "core/span.h"
#include "core/vec.h"
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
    // r0 (KnnNeedsRadii), the radius estimates for queries of k photons. The map keeps the photons'
    // power and direction, and their normals when given (empty, or one per photon), in the tree's
    // leaf order, and the tree's point indices name those copies: a query's neighbours then lie
    // side by side in memory, so reading them after the KNN touches a few cache lines, not one for
    // each photon.
    void Build(Span<const Photon> photons, Span<const Vec3> normals, int k, KnnMethod method);

    PointTreeView Tree() const { return tree_.View(); }
    // None (NodeRadiusView{}) when the last Build's method needed none.
    NodeRadiusView Radii() const { return with_radii_ ? radii_.View() : NodeRadiusView{}; }
    // The photons' arrivals and normals of the last Build, as the tree's indices name them.
    Span<const PhotonArrival> Arrivals() const { return arrivals_.span(); }
    Span<const Vec3> Normals() const { return normals_.span(); }

private:
    const Backend& backend_;
    PointTreeBuilder builder_;
    PointTree tree_;
    NodeRadii radii_;
    Buffer<PhotonArrival> arrivals_;
    Buffer<Vec3> normals_;
    bool with_radii_ = false;
};

}  // namespace caustica
