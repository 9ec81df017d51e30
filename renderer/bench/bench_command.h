// caustica bench: the benchmarks' subcommand.
#pragma once

#include <string>
#include <vector>

namespace caustica {

// Dispatches "caustica bench NAME ..." to a benchmark; returns the exit code.
int BenchMain(const std::vector<std::string>& args);

}  // namespace caustica
