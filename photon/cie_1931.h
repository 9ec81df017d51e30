// The CIE 1931 2-degree colour-matching functions x, y and z, tabulated (host only: the frame uploads
// the RGB weights made from them, spectrum.h).
#pragma once

namespace caustica {

constexpr int kCie1931FirstNm = 360;  // the table's first wavelength
constexpr int kCie1931StepNm = 5;
constexpr int kCie1931Rows = 95;      // 360 to 830 nm

extern const float kCie1931Xyz[kCie1931Rows][3];

}  // namespace caustica
