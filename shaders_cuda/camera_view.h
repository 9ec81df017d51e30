// A pinhole camera as the eye pass reads it.
#pragma once

#include "core/hd.h"
#include "core/vec.h"
#include "kdtree/triangle/ray.h"

namespace caustica {

struct CameraView {
    Vec3 origin;
    Vec3 forward;  // unit
    Vec3 right;    // scaled: half the image width at distance 1
    Vec3 up;       // scaled: half the image height at distance 1
    int width = 0, height = 0;

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

    // The ray through image position (x, y) in pixels, (0, 0) the top-left corner.
    CA_HD Ray Generate(float x, float y) const {
        const float sx = 2.0f * x / float(width) - 1.0f, sy = 1.0f - 2.0f * y / float(height);
        return Ray(origin, Normalize(forward + right * sx + up * sy));
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
