#include "renderer/cli/frame_pattern.h"

#include <cctype>
#include <cstdio>

#include "core/error.h"

namespace caustica {

FramePattern::FramePattern(const std::string& pattern) {
    std::string* out = &prefix_;
    for (size_t i = 0; i < pattern.size(); ++i) {
        if (pattern[i] != '%') {
            *out += pattern[i];
            continue;
        }
        if (i + 1 < pattern.size() && pattern[i + 1] == '%') {
            *out += '%';
            ++i;
            continue;
        }
        size_t j = i + 1;
        if (j < pattern.size() && pattern[j] == '0') {
            zero_pad_ = true;
            ++j;
        }
        int width = 0;
        while (j < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[j])) && width < 100)
            width = width * 10 + (pattern[j++] - '0');
        if (j >= pattern.size() || pattern[j] != 'd' || has_number_ || width >= 20)
            throw InputError(Concat("-o \"", pattern,
                                    "\": expected a file pattern with one frame number such as %04d "
                                    "(use %% for a literal percent sign)"));
        width_ = width;
        has_number_ = true;
        out = &suffix_;
        i = j;
    }
}

std::string FramePattern::PathFor(int frame) const {
    if (!has_number_) return prefix_;
    char number[32];
    std::snprintf(number, sizeof(number), zero_pad_ ? "%0*d" : "%*d", width_, frame);
    return prefix_ + number + suffix_;
}

}  // namespace caustica
