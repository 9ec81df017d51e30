// A camera as the eye pass reads it: a pinhole, or a thin lens focused on a plane.
#pragma once

#include "core/hd.h"
#include "core/vec.h"
#include "kdtree/triangle/ray.h"
#include "photon/light.h"  // ConcentricDisc

namespace caustica {

struct CameraView {
    Vec3 origin;
    Vec3 forward;  // unit
    Vec3 right;    // scaled: half the image width at distance 1
    Vec3 up;       // scaled: half the image height at distance 1
    int width = 0, height = 0;
    // The thin lens: the lens's radius along the image's right and up directions (zero vectors: a
    // pinhole) and the distance, along forward, of the plane in focus.
    Vec3 lens_right{0.0f}, lens_up{0.0f};
    float focus_distance = 1.0f;

    // position, look_at and up as in a scene file; vertical field of view in degrees.
    static CameraView LookAt(Vec3 position, Vec3 look_at, Vec3 up_hint, float fov_degrees, int width, int height) {
        CameraView c;
        c.origin = position;
        c.forward = Normalize(look_at - position);
        const Vec3 r = Normalize(Cross(c.forward, up_hint));
        const Vec3 u = Cross(r, c.forward);
        const float half_height = tanf(fov_degrees * 3.14159265358979f / 360.0f);
        c.up = u * half_height;
        c.right = r * (half_height * float(width) / float(height));
        c.width = width;
        c.height = height;
        return c;
    }

    // A lens of diameter 'aperture' (0: a pinhole) focused on the plane at focus_distance (> 0).
    void SetLens(float aperture, float focus) {
        lens_right = Normalize(right) * (0.5f * aperture);
        lens_up = Normalize(up) * (0.5f * aperture);
        focus_distance = focus;
    }
    CA_HD bool HasLens() const { return lens_right.x != 0.0f || lens_right.y != 0.0f || lens_right.z != 0.0f; }

    // The ray through image position (x, y) in pixels, (0, 0) the top-left corner, from the lens
    // position 'lens' in the unit square (mapped onto the lens's disc; a pinhole ignores it). Every
    // lens position's ray through (x, y) meets the pinhole's on the plane in focus (pbrt's thin
    // lens, Pharr, Jakob and Humphreys, "Physically Based Rendering", 4th ed., section 5.2.3).
    CA_HD Ray Generate(float x, float y, Vec2 lens = Vec2(0.5f, 0.5f)) const {
        const float sx = 2.0f * x / float(width) - 1.0f, sy = 1.0f - 2.0f * y / float(height);
        const Vec3 through = forward + right * sx + up * sy;  // depth 1 along forward
        if (!HasLens()) return Ray(origin, Normalize(through));
        const Vec2 disc = ConcentricDisc(lens.x, lens.y);
        const Vec3 offset = lens_right * disc.x + lens_up * disc.y;
        return Ray(origin + offset, Normalize(through * focus_distance - offset));
    }

    // The pixel a world point projects to, or false when it is behind the camera or off the image.
    bool Project(Vec3 p, float* x, float* y) const {
        const Vec3 d = p - origin;
        const float z = Dot(d, forward);
        if (z <= 0.0f) return false;
        const float sx = Dot(d, right) / (LengthSquared(right) * z), sy = Dot(d, up) / (LengthSquared(up) * z);
        *x = (sx + 1.0f) * 0.5f * float(width);
        *y = (1.0f - sy) * 0.5f * float(height);
        return *x >= 0.0f && *x < float(width) && *y >= 0.0f && *y < float(height);
    }
};

}  // namespace caustica
