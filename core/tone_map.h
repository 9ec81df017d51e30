// Tone maps: from scene-linear light (after the exposure) to display-linear values in [0, 1], which
// the sRGB encoding then turns into 8-bit codes. Host and device code call the same functions (the
// composite pass on either backend, and PNG/JPEG output on the host).
#pragma once

#include <cstdint>
#include <math.h>  // log2f, powf in the global namespace, as device code has them

#include "core/hd.h"
#include "core/vec.h"

namespace caustica {

// none: values are clipped to [0, 1] by the encoding (the image as exposed).
enum class ToneMap : uint8_t { None, Filmic, Agx };

// The names a scene file and the command line use, in the enum's order.
constexpr const char* kToneMapNames[] = {"none", "filmic", "agx"};
inline const char* ToneMapName(ToneMap t) { return kToneMapNames[int(t)]; }

// Negative and NaN values become 0 and huge ones 1e4 (both curves are flat long before it), so that
// the rational and logarithmic curves below never see inf or NaN.
CA_HD CA_INLINE float ToneMapInput(float x) { return x > 0.0f ? Min(x, 1e4f) : 0.0f; }

// John Hable's filmic curve from Uncharted 2 ("Filmic Tonemapping Operators", filmicworlds.com,
// 2010; GDC 2010, "Uncharted 2: HDR Lighting"), with his published constants, exposure bias 2 and
// white point W = 11.2: f(2 x) / f(W), per channel, clipped at 1. His
// f(x) = (x (A x + C B) + D E) / (x (A x + B) + D F) - E / F is written over one denominator, where
// the constant terms cancel, so that f(0) is exactly 0.
CA_HD CA_INLINE float HableCurve(float x) {
    const float a = 0.15f, b = 0.50f, c = 0.10f, d = 0.20f, e = 0.02f, f = 0.30f;
    return x * ((f - e) * a * x + (f * c - e) * b) / (f * (x * (a * x + b) + d * f));
}
CA_HD CA_INLINE float FilmicChannel(float x) {
    const float white = 11.2f;
    return Min(HableCurve(2.0f * ToneMapInput(x)) / HableCurve(white), 1.0f);
}

// Troy Sobotka's AgX (github.com/sobotka/AgX) in Benjamin Wrensch's minimal form ("Minimal AgX
// Implementation", iolite-engine.com, 2023): the inset matrix, log2 encoding over [-12.47393,
// 4.026069] EV, the sixth-order polynomial fit of the default contrast sigmoid, the outset matrix
// and the 2.2 power display EOTF. The fit gives -0.00232 at 0 and a little over 1 through the
// outset: both ends are clipped, so black stays 0 and the result stays in [0, 1].
CA_HD CA_INLINE float AgxContrast(float x) {
    const float x2 = x * x, x4 = x2 * x2;
    const float y = 15.5f * x4 * x2 - 40.14f * x4 * x + 31.96f * x4 - 6.868f * x2 * x + 0.4298f * x2 + 0.1191f * x -
                    0.00232f;
    return Min(Max(y, 0.0f), 1.0f);
}
CA_HD CA_INLINE float AgxEncode(float inset) {
    const float min_ev = -12.47393f, max_ev = 4.026069f;
    const float ev = Min(Max(log2f(inset), min_ev), max_ev);  // log2(0) = -inf: the toe
    return AgxContrast((ev - min_ev) / (max_ev - min_ev));
}
CA_HD CA_INLINE float AgxDisplay(float outset) { return powf(Min(Max(outset, 0.0f), 1.0f), 2.2f); }
CA_HD CA_INLINE Rgb Agx(Rgb c) {
    const float r = ToneMapInput(c.x), g = ToneMapInput(c.y), b = ToneMapInput(c.z);
    const float ir = AgxEncode(0.842479062253094f * r + 0.0784335999999992f * g + 0.0792237451477643f * b);
    const float ig = AgxEncode(0.0423282422610123f * r + 0.878468636469772f * g + 0.0791661274605434f * b);
    const float ib = AgxEncode(0.0423756549057051f * r + 0.0784336f * g + 0.879142973793104f * b);
    return {AgxDisplay(1.19687900512017f * ir - 0.0980208811401368f * ig - 0.0990297440797205f * ib),
            AgxDisplay(-0.0528968517574562f * ir + 1.15190312990417f * ig - 0.0989611768448433f * ib),
            AgxDisplay(-0.0529716355144438f * ir - 0.0980434501171241f * ig + 1.15107367264116f * ib)};
}

// The tone-mapped colour; ToneMap::None returns c unchanged (the encoding clips it).
CA_HD CA_INLINE Rgb ApplyToneMap(ToneMap tone_map, Rgb c) {
    switch (tone_map) {
        case ToneMap::Filmic: return {FilmicChannel(c.x), FilmicChannel(c.y), FilmicChannel(c.z)};
        case ToneMap::Agx: return Agx(c);
        case ToneMap::None: break;
    }
    return c;
}

}  // namespace caustica
