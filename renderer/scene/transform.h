// Affine transforms of scene objects and their motion: keyframes (linear or smooth) and orbits.
#pragma once

#include <vector>

#include "core/object_placement.h"
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

// The placement of an object under an Affine: its points, its normals (by the inverse transpose of
// L, up to scale, normalized) and whether it mirrors (core/object_placement.h).
ObjectPlacement ToPlacement(const Affine& a);

// A unit quaternion for the rotation (used where keyframes mix the two rotation forms).
struct Quaternion {
    float w = 1, x = 0, y = 0, z = 0;
};
Quaternion ToQuaternion(const Rotation& rotation);

// Scale, then rotate, then translate.
Affine ToAffine(const Transform& transform);
Affine ToAffine(Vec3 translate, const Quaternion& rotate, Vec3 scale);

// a after b: (a b) p = a (b p).
Affine Compose(const Affine& a, const Affine& b);

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

// The cubic Hermite curve from p0 to p1 with velocities m0 and m1 (per span), at t in [0, 1].
Vec3 Hermite(Vec3 p0, Vec3 p1, Vec3 m0, Vec3 m1, float t);

// The velocity (per second) of the smooth curve at key i: the slope between its neighbours at an
// inner key (Catmull-Rom, with the keys' own times), zero at the first and last key, where the
// motion meets the stillness before and after the keys.
template <class Key, class Get>
Vec3 KeyVelocity(const std::vector<Key>& keys, int i, Get get) {
    if (i <= 0 || i + 1 >= static_cast<int>(keys.size())) return Vec3(0.0f);
    return (get(keys[i + 1]) - get(keys[i - 1])) / static_cast<float>(keys[i + 1].time - keys[i - 1].time);
}

// A keyed vector in 'span' (found with FindKeySpan), joined as 'mode' says.
template <class Key, class Get>
Vec3 SampleKeys(const std::vector<Key>& keys, const KeySpan& span, Interpolation mode, Get get) {
    const Vec3 a = get(keys[span.first]), b = get(keys[span.second]);
    if (mode == Interpolation::linear || span.first == span.second) return Lerp(a, b, span.t);
    const float gap = static_cast<float>(keys[span.second].time - keys[span.first].time);
    return Hermite(a, b, KeyVelocity(keys, span.first, get) * gap, KeyVelocity(keys, span.second, get) * gap, span.t);
}

// An object's keyed transform at 'time'. Smooth keys move translation and scale on the smooth
// curve, and rotations too where the keys around the span write them in one form (Euler angles,
// or angles about one axis); rotations in mixed forms turn as Interpolate does.
Transform SampleTransform(const std::vector<TransformKey>& keys, double time, Interpolation mode);

// Where 'rest' is at 'time' on the orbit (Orbit in scene.h).
Vec3 OrbitPosition(const Orbit& orbit, Vec3 rest, double time);

}  // namespace caustica
