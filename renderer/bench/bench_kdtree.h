// `caustica bench kdtree`: build and trace timings of the triangle kd-tree (issue 3, Benchmark).
#pragma once

#include <string>
#include <vector>

namespace caustica {

// args: the words after "bench kdtree". Prints a table, optionally writes JSON (--json FILE).
// Returns the process exit code (0; usage errors throw InputError).
int BenchKdTreeMain(const std::vector<std::string>& args);

}  // namespace caustica
