// caustica bench: dispatches to the benchmarks.
#include "renderer/bench/bench_command.h"

#include <cstdio>

#include "core/error.h"
#include "renderer/bench/bench_frame.h"
#include "renderer/bench/bench_kdtree.h"
#include "renderer/bench/bench_photons.h"
#include "renderer/bench/bench_quality.h"

namespace caustica {

int BenchMain(const std::vector<std::string>& args) {
    const char* usage =
        "usage: caustica bench kdtree|photons|frame|quality [options]\n"
        "\n"
        "  kdtree    build the triangle kd-tree and trace rays through it\n"
        "  photons   build the photon kd-tree and answer KNN queries\n"
        "  frame     render frames and time each pass\n"
        "  quality   compare frames of few samples with a converged reference\n"
        "\n"
        "Each prints a table and writes --json FILE; run 'caustica bench NAME --help' for its options.\n";
    if (args.empty()) throw InputError(Concat("caustica bench: which benchmark?\n\n", usage));
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (args[0] == "kdtree") return BenchKdTreeMain(rest);
    if (args[0] == "photons") return BenchPhotonsMain(rest);
    if (args[0] == "frame") return BenchFrameMain(rest);
    if (args[0] == "quality") return BenchQualityMain(rest);
    if (args[0] == "--help" || args[0] == "-h") {
        std::fputs(usage, stdout);
        return 0;
    }
    throw InputError(Concat("caustica bench: unknown benchmark \"", args[0], "\"\n\n", usage));
}

}  // namespace caustica
