// A value computed once for each CUDA device and kept for the process: device attributes and
// the like, asked where a frame launches its grids. Host code; no CUDA headers needed.
#pragma once

#include <map>
#include <mutex>

namespace caustica {

// compute(), once for the given device (the first call for it computes, the others wait and take
// its value). One cache for each type of compute (each lambda).
template <class Compute>
auto OnceForDevice(int device, const Compute& compute) {
    using Value = decltype(compute());
    static std::mutex mutex;
    static std::map<int, Value> values;
    const std::lock_guard<std::mutex> lock(mutex);
    auto found = values.find(device);
    if (found == values.end()) found = values.emplace(device, compute()).first;
    return found->second;
}

}  // namespace caustica
