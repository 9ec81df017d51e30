// caustica: the command-line entry point. Dispatches to a subcommand and turns errors into exit
// codes: 0 success, 2 bad input or usage, 1 runtime failure.
#include <cstdio>
#include <exception>
#include <string>

#include "core/error.h"
#include "renderer/bench/bench_command.h"
#include "renderer/cli/commands.h"

namespace {

const char* kUsage =
    "usage: caustica COMMAND [options]\n"
    "\n"
    "Real-time photon mapping of caustics with GPU-built kd-trees.\n"
    "\n"
    "commands:\n"
    "  view [SCENE]        show a scene live (no SCENE: the built-in ring scene)\n"
    "  render [SCENE] -o PATTERN [--frames A:B]\n"
    "                      render frames headless to PNG files\n"
    "  bench kdtree|photons|frame|quality ...\n"
    "                      benchmarks: print a table, write --json FILE\n"
    "  info SCENE          load and validate a scene, print its statistics\n"
    "\n"
    "Run 'caustica COMMAND --help' for the options of a command.\n";

}  // namespace

int main(int argc, char** argv) {
    using namespace caustica;
    if (argc < 2) {
        std::fputs(kUsage, stderr);
        return 2;
    }
    const std::string command = argv[1];
    const Args args(argv + 2, argv + argc);
    try {
        if (command == "--help" || command == "-h" || command == "help") {
            std::fputs(kUsage, stdout);
            return 0;
        }
        if (command == "view") return ViewMain(args);
        if (command == "render") return RenderMain(args);
        if (command == "bench") return BenchMain(args);
        if (command == "info") return InfoMain(args);
        std::fprintf(stderr, "caustica: unknown command \"%s\"\n\n%s", command.c_str(), kUsage);
        return 2;
    } catch (const InputError& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "caustica: error: %s\n", e.what());
        return 1;
    }
}
