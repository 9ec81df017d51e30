// Affine transforms of scene objects and their keyframe interpolation.
#pragma once

#include <vector>

#include "core/vec.h"
#include "renderer/scene/scene.h"

namespace caustica {

// A 3x4 affine matrix: p' = L p + t.
struct Affine {
    Vec3 rows[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    Vec3 t{0, 0, 0};

    Vec3 Point(Vec3 p) const { return Vec3(Dot(rows[0], p), Dot(rows[1], p), Dot(rows[2], p)) + t; }
    Vec3 Direction(Vec3 d) const { return Vec3(Dot(rows[0], d), Dot(rows[1], d), Dot(rows[2], d)); }
};

// Transforms normals by the inverse transpose of an Affine's L (up to scale) and normalizes them;
// the matrix is worked out once, for all of an object's normals.
class NormalMap {
public:
    explicit NormalMap(const Affine& a);
    Vec3 operator()(Vec3 n) const;

private:
    Vec3 rows_[3];  // proportional to the rows of the inverse transpose of L
    bool flip_;     // det < 0: the sign keeps the side of the surface
};

// Scale, then rotate, then translate.
Affine ToAffine(const Transform& transform);

// A unit quaternion for the rotation (used where keyframes mix the two rotation forms).
struct Quaternion {
    float w = 1, x = 0, y = 0, z = 0;
};
Quaternion ToQuaternion(const Rotation& rotation);

// Linear interpolation between two transforms: translate and scale linearly; rotation linearly in
// its written form when both keys use the same form (Euler angles, or angles about one axis), so
// that a key can spin by whole turns; otherwise by spherical interpolation of quaternions.
Transform Interpolate(const Transform& a, const Transform& b, float t);

// Where 'time' falls among sorted key times: the pair of keys around it and the blend factor.
// Before the first key it clamps to the first, after the last to the last.
struct KeySpan {
    int first = 0, second = 0;
    float t = 0;
};
template <class Key>
KeySpan FindKeySpan(const std::vector<Key>& keys, double time) {
    KeySpan span;
    const int n = static_cast<int>(keys.size());
    if (n == 0 || time <= keys[0].time) return span;
    if (time >= keys[n - 1].time) {
        span.first = span.second = n - 1;
        return span;
    }
    int lo = 0, hi = n - 1;  // keys[lo].time < time < keys[hi].time
    while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        (keys[mid].time <= time ? lo : hi) = mid;
    }
    span.first = lo;
    span.second = hi;
    const double gap = keys[hi].time - keys[lo].time;
    span.t = gap > 0 ? static_cast<float>((time - keys[lo].time) / gap) : 0.0f;
    return span;
}

}  // namespace caustica
