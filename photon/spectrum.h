// Light of one wavelength, for dispersion: how glass bends it (Cauchy's equation), how photons and
// eye paths choose wavelengths, and the RGB that power of one wavelength adds to the image (the
// CIE 1931 colour-matching functions, cie_1931.h, taken to linear sRGB).
//
// Colour is an RGB weight on the light's own RGB power: a photon (or eye path) of wavelength l,
// sampled with density p(l), carries the light's power times Rgb(l) / p(l), where Rgb(l) is the
// linear sRGB of the colour-matching functions at l, each channel scaled so that its integral over
// the visible range is 1. A flat spectrum thus adds up to the light's own colour (white stays
// white), and only light that meets dispersive glass ever takes a wavelength.
#pragma once

#include <cmath>
#include <vector>

#include "core/hd.h"
#include "core/span.h"
#include "core/vec.h"
#include "photon/cie_1931.h"

namespace caustica {

// The Fraunhofer lines that define the Abbe number, in nm: n_d is the index of refraction at D.
constexpr float kWavelengthD = 587.6f, kWavelengthF = 486.1f, kWavelengthC = 656.3f;
// The range wavelengths are sampled over (that of the colour-matching functions' table).
constexpr float kWavelengthMin = float(kCie1931FirstNm);
constexpr float kWavelengthMax = float(kCie1931FirstNm + kCie1931StepNm * (kCie1931Rows - 1));

// Cauchy's equation n(l) = A + B / l^2, l in micrometres, written about n_d = n(587.6 nm): a
// material stores n_d and B.
CA_HD CA_INLINE float CauchyIor(float ior_d, float cauchy_b, float wavelength_nm) {
    const float l = wavelength_nm * 1e-3f, d = kWavelengthD * 1e-3f;
    return ior_d + cauchy_b * (1.0f / (l * l) - 1.0f / (d * d));
}

// B of the Cauchy curve through n_d whose n_F - n_C is (n_d - 1) / V, V the Abbe number.
inline float CauchyBFromAbbe(float ior_d, float abbe) {
    const double f = kWavelengthF * 1e-3, c = kWavelengthC * 1e-3;
    return float((double(ior_d) - 1.0) / double(abbe) / (1.0 / (f * f) - 1.0 / (c * c)));
}

// A of Cauchy's equation for a curve stored as n_d and B.
inline float CauchyA(float ior_d, float cauchy_b) {
    const double d = kWavelengthD * 1e-3;
    return float(double(ior_d) - double(cauchy_b) / (d * d));
}

// Wavelengths sampled with a density close to the colour-matching functions' sum, so that few
// carry little weight (Pharr, Jakob, Humphreys, "Physically Based Rendering", 4th ed., 4.6.5:
// p(l) proportional to 1 / cosh^2(0.0072 (l - 538)) over 360 to 830 nm).
CA_HD CA_INLINE float SampleVisibleWavelength(float u) {
    return 538.0f - 138.888889f * atanhf(0.85691062f - 1.82750197f * u);
}
CA_HD CA_INLINE float VisibleWavelengthPdf(float nm) {
    if (nm < kWavelengthMin || nm > kWavelengthMax) return 0.0f;
    const float c = coshf(0.0072f * (nm - 538.0f));
    return 0.0039398042f / (c * c);
}

// Hero-wavelength sampling (Wilkie, Nawaz, Droske, Weidlich, Hanika, "Hero Wavelength Spectral
// Sampling", EGSR 2014), rotated in the sampling's unit interval as pbrt-v4 does: the j-th of count
// wavelengths is the hero's u shifted by j / count, so they cover the spectrum evenly.
CA_HD CA_INLINE float HeroWavelength(float u, int j, int count) {
    float v = u + float(j) / float(count);
    if (v >= 1.0f) v -= 1.0f;
    return SampleVisibleWavelength(v);
}

// The RGB weights of spectrum.cpp, in the backend's memory: Rgb(l) at the table's wavelengths.
struct SpectrumView {
    Span<const Rgb> rgb;

    // Rgb(l), linear between the table's wavelengths; 0 outside them.
    CA_HD Rgb At(float nm) const {
        const float x = (nm - float(kCie1931FirstNm)) * (1.0f / float(kCie1931StepNm));
        if (rgb.size() < 2 || !(x >= 0.0f && x <= float(rgb.size() - 1))) return Rgb(0.0f);
        const size_t i = size_t(x) < rgb.size() - 1 ? size_t(x) : rgb.size() - 2;
        const float t = x - float(i);
        return rgb[i] * (1.0f - t) + rgb[i + 1] * t;
    }
    // The factor on the RGB power of light that takes wavelength nm, sampled with
    // VisibleWavelengthPdf: its expected value is (1, 1, 1).
    CA_HD Rgb SampledWeight(float nm) const {
        const float p = VisibleWavelengthPdf(nm);
        return p > 0.0f ? At(nm) / p : Rgb(0.0f);
    }
};

// Rgb(l) at the wavelengths of the colour-matching functions' table (kCie1931FirstNm, in steps of
// kCie1931StepNm), for SpectrumView: the table taken to linear sRGB (IEC 61966-2-1), each channel
// scaled so that its integral (trapezoids, as SpectrumView interpolates) is 1.
std::vector<Rgb> SpectralRgbTable();

}  // namespace caustica
