// Numbers as text that says exactly what the number is: for files that must read back the same,
// and for messages whose limits must not be rounded (100000000, not 1e+08).
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace caustica {

// The shortest decimal text that reads back as exactly this number (0.02, not 0.0199999996), with
// no exponent from 1e-5 to 1e16 (30, not 3e+01).
template <class T>
std::string ShortestText(T value) {
    char text[64];
    const double magnitude = std::fabs(static_cast<double>(value));
    const bool plain = magnitude == 0 || (magnitude >= 1e-5 && magnitude < 1e16);
    for (int digits = 1; digits <= 17; ++digits) {
        std::snprintf(text, sizeof(text), "%.*g", digits, static_cast<double>(value));
        if (plain && std::strchr(text, 'e') != nullptr) continue;
        if (static_cast<T>(std::strtod(text, nullptr)) == value) break;
    }
    return text;
}

}  // namespace caustica
