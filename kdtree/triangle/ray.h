// A ray with its valid parameter range, and the closest hit that traversal reports.
#pragma once

#include <cstdint>

#include "core/hd.h"
#include "core/vec.h"

namespace caustica {

// Points origin + t * direction with tmin < t < tmax count as hits. direction need not be unit
// length (t is then measured in multiples of it) but must not be zero.
struct Ray {
    Vec3 origin;
    float tmin = 0.0f;
    Vec3 direction;
    float tmax = INFINITY;

    CA_HD Ray() = default;
    CA_HD Ray(Vec3 o, Vec3 d, float t0 = 0.0f, float t1 = INFINITY) : origin(o), tmin(t0), direction(d), tmax(t1) {}
    CA_HD Vec3 At(float t) const { return origin + direction * t; }
};

// triangle < 0 means no hit. u and v are the barycentric weights of v1 and v2 (v0 has 1 - u - v).
struct Hit {
    int32_t triangle = -1;
    float t = INFINITY;
    float u = 0.0f;
    float v = 0.0f;

    CA_HD bool Valid() const { return triangle >= 0; }
    // The order that makes closest-hit queries deterministic: smaller t first, then on equal t the
    // lower triangle index, so that any traversal order gives the same answer as brute force.
    CA_HD bool CloserThan(const Hit& o) const { return t < o.t || (t == o.t && uint32_t(triangle) < uint32_t(o.triangle)); }
};

}  // namespace caustica
