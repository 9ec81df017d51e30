// `caustica bench photons`: times the photon kd-tree build, the node-radius estimates and the
// histogram KNN (coherent and random query orders) on one backend, checks a sample of queries
// against brute force, times nanoflann on the same data on the CPU, prints a table and writes JSON.
#pragma once

#include <string>
#include <vector>

namespace caustica {

// args: the words after "bench photons". Returns the exit code; usage errors throw InputError.
int BenchPhotonsMain(const std::vector<std::string>& args);

}  // namespace caustica
