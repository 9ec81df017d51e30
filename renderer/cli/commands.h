// The subcommands of the caustica executable. Each takes the words after its name, prints its own
// --help, and returns the exit code (errors are thrown: InputError exits 2, RuntimeError 1).
#pragma once

#include <string>
#include <vector>

namespace caustica {

using Args = std::vector<std::string>;

int ViewMain(const Args& args);
int RenderMain(const Args& args);
int InfoMain(const Args& args);
int CombineMain(const Args& args);

}  // namespace caustica
