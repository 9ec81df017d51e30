// caustica bench quality: how far frames of few samples are from a converged reference, over all
// pixels and by the material each pixel's eye ray meets first, and what such a frame costs.
#pragma once

#include <string>
#include <vector>

namespace caustica {

int BenchQualityMain(const std::vector<std::string>& args);

}  // namespace caustica
