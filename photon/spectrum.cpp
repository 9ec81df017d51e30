#include "photon/spectrum.h"

#include "photon/cie_1931.h"

namespace caustica {

std::vector<Rgb> SpectralRgbTable() {
    // XYZ to linear sRGB (IEC 61966-2-1).
    static const double kXyzToRgb[3][3] = {
        {3.2406, -1.5372, -0.4986}, {-0.9689, 1.8758, 0.0415}, {0.0557, -0.2040, 1.0570}};
    std::vector<double> rgb(size_t(kCie1931Rows) * 3);
    double integral[3] = {0, 0, 0};
    for (int i = 0; i < kCie1931Rows; ++i) {
        for (int c = 0; c < 3; ++c) {
            double v = 0;
            for (int k = 0; k < 3; ++k) v += kXyzToRgb[c][k] * double(kCie1931Xyz[i][k]);
            rgb[size_t(i) * 3 + c] = v;
            // Trapezoids: the end rows count half.
            integral[c] += v * kCie1931StepNm * (i == 0 || i == kCie1931Rows - 1 ? 0.5 : 1.0);
        }
    }
    std::vector<Rgb> table(kCie1931Rows);
    for (int i = 0; i < kCie1931Rows; ++i)
        table[i] = Rgb(float(rgb[size_t(i) * 3] / integral[0]), float(rgb[size_t(i) * 3 + 1] / integral[1]),
                       float(rgb[size_t(i) * 3 + 2] / integral[2]));
    return table;
}

}  // namespace caustica
