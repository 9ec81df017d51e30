// Output file patterns for image sequences: "out/frame_%04d.png" names frame 7 "out/frame_0007.png".
#pragma once

#include <string>

namespace caustica {

class FramePattern {
public:
    // Accepts exactly one integer conversion (%d, %5d, %04d) and %% escapes; a pattern with no
    // conversion is allowed for a single frame only (checked by the caller through HasNumber).
    // Anything else is an InputError naming the option.
    explicit FramePattern(const std::string& pattern);
    std::string PathFor(int frame) const;
    bool HasNumber() const { return has_number_; }

private:
    std::string prefix_, suffix_;
    int width_ = 0;
    bool zero_pad_ = false;
    bool has_number_ = false;
};

}  // namespace caustica
