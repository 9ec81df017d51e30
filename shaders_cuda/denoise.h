// The edge-aware a-trous wavelet filter of the indirect term (Dammertz, Sewtz, Hanika and Lensch,
// "Edge-Avoiding A-Trous Wavelet Transform for fast Global Illumination Filtering", HPG 2010):
// iteration i blurs the image with the 5x5 B3-spline kernel (1/16, 1/4, 3/8, 1/4, 1/16) spread
// over taps 2^i pixels apart (the holes, "trous"), each tap weighted down where the guides differ:
// so five iterations reach 62 pixels wide at 25 taps each, and stop at edges.
//
// It filters the indirect irradiance, not the radiance: the albedo that multiplies it afterwards
// keeps its texture sharp. The guides are those of the visible diffuse point (a camera ray's
// diffuse end): its shading normal, its depth (as the distance of the neighbour from the point's
// tangent plane, relative to the point's depth, so that a plane seen at a grazing angle is one
// surface, a step in depth an edge) and its albedo. The irradiance itself is no guide, unlike
// Dammertz's colour term: the noise the filter removes would stop it. Pixels without a visible
// diffuse point (lights, background, glass and mirrors, whose ends lie behind) neither take nor
// give: their indirect light stays as it was.
#pragma once

#include <cstdint>

#include "core/hd.h"
#include "core/vec.h"

namespace caustica {

constexpr int kDenoiseIterations = 5;
// The guides' scales: a tap's weight is exp(-(difference / sigma)^2) for each.
constexpr float kDenoiseSigmaNormal = 0.3f;   // |n_p - n_q|: 0.3 is 17 degrees
constexpr float kDenoiseSigmaPlane = 0.01f;   // distance from p's tangent plane over p's depth
constexpr float kDenoiseSigmaAlbedo = 0.1f;   // |albedo_p - albedo_q|

// What the filter knows of a pixel's visible diffuse point.
struct DenoiseGuide {
    Vec3 position;
    Vec3 normal;
    Rgb albedo;
    float depth;  // along the camera's view direction; 0: no diffuse point (takes and gives nothing)
};

// The edge-stopping weight of tap q for pixel p (both with a diffuse point).
CA_HD CA_INLINE float DenoiseWeight(const DenoiseGuide& p, const DenoiseGuide& q) {
    const float normal = Length(p.normal - q.normal) * (1.0f / kDenoiseSigmaNormal);
    const float plane = Dot(p.normal, q.position - p.position) / (p.depth * kDenoiseSigmaPlane);
    const float albedo = Length(q.albedo - p.albedo) * (1.0f / kDenoiseSigmaAlbedo);
    return expf(-(normal * normal + plane * plane + albedo * albedo));
}

// The B3-spline's taps, from -2 to 2.
CA_HD CA_INLINE float AtrousKernel(int offset) {
    return offset == 0 ? 0.375f : (offset == 1 || offset == -1) ? 0.25f : 0.0625f;
}

}  // namespace caustica
