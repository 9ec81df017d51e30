// Surfaces as the photon tracer and the render passes see them: a material per triangle, with
// colour from a constant, a procedural checkerboard or an sRGB texture.
#pragma once

#include <cstdint>

#include "core/hd.h"
#include "core/span.h"
#include "core/srgb.h"
#include "core/vec.h"
#include "photon/spectrum.h"

namespace caustica {

enum class SurfaceType : uint8_t { Diffuse, Mirror, Glass };

// An sRGB RGBA8 image inside the shared texel array.
struct TextureView {
    uint32_t first_texel = 0;
    int width = 0, height = 0;
};

struct SurfaceMaterial {
    SurfaceType type = SurfaceType::Diffuse;
    Rgb color{0.8f, 0.8f, 0.8f};   // diffuse albedo or mirror tint
    int texture = -1;              // diffuse: index of a TextureView, or -1
    bool checker = false;          // diffuse: a checkerboard of checker_a and checker_b instead
    Rgb checker_a, checker_b;
    float checker_scale = 8.0f;    // squares per unit of texture coordinate
    float ior = 1.5f;              // glass: index of refraction (inside / outside); n_d when dispersive
    float dispersion = 0.0f;       // glass: Cauchy's B (um^2) of the index about n_d; 0: the same for all
                                   // wavelengths (spectrum.h)
    Rgb absorption{0, 0, 0};       // glass: absorption per metre inside

    CA_HD bool Dispersive() const { return dispersion != 0.0f; }
    // The index of refraction at a wavelength in nm; 0 (light that never took a wavelength): ior.
    CA_HD float IorAt(float wavelength) const {
        return Dispersive() && wavelength > 0.0f ? CauchyIor(ior, dispersion, wavelength) : ior;
    }
};

// Per-triangle shading data: corner normals and texture coordinates.
struct TriangleShading {
    Vec3 n0, n1, n2;
    Vec2 uv0, uv1, uv2;
    uint32_t material = 0;
};

// The nearest texel, with the texture repeating outside [0, 1).
CA_HD CA_INLINE Rgb SampleTexture(const TextureView& t, Span<const uint32_t> texels, Vec2 uv) {
    float u = uv.x - floorf(uv.x), v = uv.y - floorf(uv.y);
    const int x = int(u * t.width) < t.width ? int(u * t.width) : t.width - 1;
    const int y = int((1.0f - v) * t.height) < t.height ? int((1.0f - v) * t.height) : t.height - 1;
    const uint32_t rgba = texels[t.first_texel + uint32_t(y) * uint32_t(t.width) + uint32_t(x)];
    return Rgb(DecodeSrgb8(rgba & 0xffu), DecodeSrgb8((rgba >> 8) & 0xffu), DecodeSrgb8((rgba >> 16) & 0xffu));
}

}  // namespace caustica
