// A stored caustic photon: where it landed on a diffuse surface, the power it carries and the
// direction it travelled. The point kd-tree reads its position through PointTraits.
#pragma once

#include "core/vec.h"

namespace caustica {

struct Photon {
    Vec3 position;
    Rgb power;       // watts
    Vec3 direction;  // unit, the direction of travel when it landed
};

// What a radiance estimate reads of a photon that a KNN found by its position: two thirds of a
// Photon, so that the photon map's copy (photon_map.h) spans fewer cache lines.
struct PhotonArrival {
    Rgb power;
    Vec3 direction;
};

}  // namespace caustica
