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

}  // namespace caustica
