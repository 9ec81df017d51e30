// caustica bench frame: renders frames of a scene, rebuilding both trees every frame, and reports
// the median time of each pass and the frame rate.
#pragma once

#include <string>
#include <vector>

namespace caustica {

int BenchFrameMain(const std::vector<std::string>& args);

}  // namespace caustica
