#include "renderer/scene/transform.h"

#include <algorithm>
#include <cmath>

namespace caustica {
namespace {

constexpr float kRadiansPerDegree = 3.14159265358979323846f / 180.0f;

Quaternion Multiply(const Quaternion& a, const Quaternion& b) {
    return {a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}

Quaternion AxisAngle(Vec3 axis, float degrees) {
    const float half = 0.5f * degrees * kRadiansPerDegree;
    const float s = std::sin(half);
    return {std::cos(half), axis.x * s, axis.y * s, axis.z * s};
}

Quaternion Slerp(Quaternion a, const Quaternion& b, float t) {
    float cosine = a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z;
    if (cosine < 0) {  // take the short way round
        a = {-a.w, -a.x, -a.y, -a.z};
        cosine = -cosine;
    }
    float wa = 1 - t, wb = t;
    if (cosine < 0.9995f) {
        const float angle = std::acos(cosine);
        const float s = std::sin(angle);
        wa = std::sin((1 - t) * angle) / s;
        wb = std::sin(t * angle) / s;
    }
    Quaternion q{wa * a.w + wb * b.w, wa * a.x + wb * b.x, wa * a.y + wb * b.y, wa * a.z + wb * b.z};
    const float norm = std::sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    return {q.w / norm, q.x / norm, q.y / norm, q.z / norm};
}

// Back from a unit quaternion to an axis and an angle in degrees.
Rotation ToAxisAngle(const Quaternion& q) {
    Rotation r;
    r.kind = Rotation::Kind::axis_angle;
    const float s = std::sqrt(q.x * q.x + q.y * q.y + q.z * q.z);
    if (s < 1e-7f) return r;  // no rotation: keep the default axis and angle 0
    r.axis = Vec3(q.x / s, q.y / s, q.z / s);
    r.angle_degrees = 2.0f * std::atan2(s, q.w) / kRadiansPerDegree;
    return r;
}

}  // namespace

Quaternion ToQuaternion(const Rotation& rotation) {
    if (rotation.kind == Rotation::Kind::axis_angle) return AxisAngle(rotation.axis, rotation.angle_degrees);
    const Vec3 e = rotation.euler_degrees;
    // x first, then y, then z: R = Rz Ry Rx.
    return Multiply(AxisAngle({0, 0, 1}, e.z), Multiply(AxisAngle({0, 1, 0}, e.y), AxisAngle({1, 0, 0}, e.x)));
}

ObjectPlacement ToPlacement(const Affine& a) {
    ObjectPlacement p;
    for (int r = 0; r < 3; ++r) p.rows[r] = a.rows[r];
    p.translate = a.t;
    // Rows of the inverse transpose are proportional to the cofactors of L: columns c0, c1, c2 of
    // L give (c1 x c2, c2 x c0, c0 x c1) as the rows of the inverse (times det).
    const Vec3 c0(a.rows[0].x, a.rows[1].x, a.rows[2].x);
    const Vec3 c1(a.rows[0].y, a.rows[1].y, a.rows[2].y);
    const Vec3 c2(a.rows[0].z, a.rows[1].z, a.rows[2].z);
    p.normal_rows[0] = Cross(c1, c2);
    p.normal_rows[1] = Cross(c2, c0);
    p.normal_rows[2] = Cross(c0, c1);
    p.mirrored = Dot(c0, p.normal_rows[0]) < 0;  // det < 0
    return p;
}

Affine ToAffine(const Transform& transform) {
    return ToAffine(transform.translate, ToQuaternion(transform.rotate), transform.scale);
}

Affine ToAffine(Vec3 translate, const Quaternion& q, Vec3 scale) {
    const float w = q.w, x = q.x, y = q.y, z = q.z;
    const Vec3 r0(1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y));
    const Vec3 r1(2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x));
    const Vec3 r2(2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y));
    Affine a;
    a.rows[0] = r0 * scale;  // R S: column j of R times scale j
    a.rows[1] = r1 * scale;
    a.rows[2] = r2 * scale;
    a.t = translate;
    return a;
}

Affine Compose(const Affine& a, const Affine& b) {
    Affine out;
    for (int r = 0; r < 3; ++r) {
        const Vec3 row = a.rows[r];
        out.rows[r] = b.rows[0] * row.x + b.rows[1] * row.y + b.rows[2] * row.z;
    }
    out.t = a.Point(b.t);
    return out;
}

Vec3 Hermite(Vec3 p0, Vec3 p1, Vec3 m0, Vec3 m1, float t) {
    const float t2 = t * t, t3 = t2 * t;
    return p0 * (2 * t3 - 3 * t2 + 1) + m0 * (t3 - 2 * t2 + t) + p1 * (-2 * t3 + 3 * t2) + m1 * (t3 - t2);
}

Transform SampleTransform(const std::vector<TransformKey>& keys, double time, Interpolation mode) {
    const KeySpan span = FindKeySpan(keys, time);
    Transform out = Interpolate(keys[span.first].transform, keys[span.second].transform, span.t);
    if (mode == Interpolation::linear || span.first == span.second) return out;
    out.translate = SampleKeys(keys, span, mode, [](const TransformKey& k) { return k.transform.translate; });
    out.scale = SampleKeys(keys, span, mode, [](const TransformKey& k) { return k.transform.scale; });
    // The keys whose rotations shape this span: its two and their neighbours (for the velocities).
    const int lo = std::max(0, span.first - 1), hi = std::min(static_cast<int>(keys.size()) - 1, span.second + 1);
    const Rotation& first = keys[lo].transform.rotate;
    bool one_form = true;
    for (int i = lo; i <= hi; ++i) {
        const Rotation& r = keys[i].transform.rotate;
        one_form &= r.kind == first.kind && (r.kind == Rotation::Kind::euler || r.axis == first.axis);
    }
    if (!one_form) return out;
    if (first.kind == Rotation::Kind::euler) {
        out.rotate.euler_degrees =
            SampleKeys(keys, span, mode, [](const TransformKey& k) { return k.transform.rotate.euler_degrees; });
    } else {
        const auto angle = [](const TransformKey& k) { return Vec3(k.transform.rotate.angle_degrees, 0, 0); };
        out.rotate.angle_degrees = SampleKeys(keys, span, mode, angle).x;
    }
    return out;
}

Vec3 OrbitPosition(const Orbit& orbit, Vec3 rest, double time) {
    // The fraction of a turn in double precision, so that long times keep their angle exact.
    const double turns = time / orbit.period - std::floor(time / orbit.period);
    const float angle = static_cast<float>(2.0 * 3.14159265358979323846 * turns);
    const Vec3 v = rest - orbit.center, k = orbit.axis;
    const float c = std::cos(angle), s = std::sin(angle);
    // Rodrigues' rotation formula.
    return orbit.center + v * c + Cross(k, v) * s + k * (Dot(k, v) * (1 - c));
}

Transform Interpolate(const Transform& a, const Transform& b, float t) {
    Transform out;
    out.translate = Lerp(a.translate, b.translate, t);
    out.scale = Lerp(a.scale, b.scale, t);
    const Rotation& ra = a.rotate;
    const Rotation& rb = b.rotate;
    if (ra.kind == Rotation::Kind::euler && rb.kind == Rotation::Kind::euler) {
        out.rotate.euler_degrees = Lerp(ra.euler_degrees, rb.euler_degrees, t);
    } else if (ra.kind == Rotation::Kind::axis_angle && rb.kind == Rotation::Kind::axis_angle && ra.axis == rb.axis) {
        out.rotate = ra;
        out.rotate.angle_degrees = ra.angle_degrees + (rb.angle_degrees - ra.angle_degrees) * t;
    } else {
        out.rotate = ToAxisAngle(Slerp(ToQuaternion(ra), ToQuaternion(rb), t));
    }
    return out;
}

}  // namespace caustica
