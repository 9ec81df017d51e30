// How the point kd-tree sees a caller's point type: only through PointTraits<P>::Position, so the
// tree serves photons and plain point clouds alike without knowing what a photon is.
//
// The primary template reads a member named `position`; Vec3 is its own position. Specialise
// PointTraits for any other layout.
#pragma once

#include "core/hd.h"
#include "core/span.h"
#include "core/vec.h"

namespace caustica {

template <class P>
struct PointTraits {
    CA_HD static Vec3 Position(const P& p) { return p.position; }
};

template <>
struct PointTraits<Vec3> {
    CA_HD static Vec3 Position(const Vec3& p) { return p; }
};

// Copies the positions out of a caller's points (per item, on either backend). A GPU launch of it
// must happen in a launch unit (see caustica_launch_units), as for every functor.
template <class P>
struct GatherPositionsPass {
    Span<const P> points;
    Span<Vec3> positions;
    CA_HD void operator()(int i) const { positions[i] = PointTraits<P>::Position(points[i]); }
};

}  // namespace caustica
