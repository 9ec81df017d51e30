// caustica: the command-line entry point. Dispatches to a subcommand and turns errors into exit
// codes: 0 success, 2 bad input or usage, 1 runtime failure (a failed write to standard output
// included), 130 / 143 / 129 interrupted by SIGINT / SIGTERM / SIGHUP (renderer/output/temporary_file.h).
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <new>
#include <string>

#include "core/error.h"
#include "renderer/bench/bench_command.h"
#include "renderer/cli/commands.h"
#include "renderer/cli/version.h"
#include "renderer/output/temporary_file.h"

namespace {

const char* kUsage =
    "usage: caustica COMMAND [options]\n"
    "\n"
    "Real-time photon mapping of caustics with GPU-built kd-trees.\n"
    "\n"
    "commands:\n"
    "  view [SCENE]        show a scene live (no SCENE: the built-in ring scene)\n"
    "  render [SCENE] -o PATTERN [--frames A:B] [--gpus all|N|I,J]\n"
    "                      render frames headless to PNG, JPEG or EXR files\n"
    "  combine PART.exr... -o FILE\n"
    "                      add up a still's sample ranges (render --sample-range)\n"
    "  bench kdtree|photons|frame|quality ...\n"
    "                      benchmarks: print a table, write --json FILE\n"
    "  info SCENE          load and validate a scene, print its statistics\n"
    "\n"
    "Run 'caustica COMMAND --help' for the options of a command, 'caustica --version' for the version.\n";

// Standard streams that can fail without ending the program: a closed descriptor 0, 1 or 2 is
// opened on /dev/null (else the first file opened would take its number, and messages meant for
// stderr would land in it), and a write into a closed pipe returns EPIPE instead of killing the
// process with SIGPIPE: a reader of stderr that goes away must not stop a render. Likewise a
// write past the file-size limit (ulimit -f) fails with EFBIG, reported like a full disk, instead
// of killing the process with SIGXFSZ.
void GuardStandardStreams() {
    for (int fd = 0; fd <= 2; ++fd)
        if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN);
}

// Standard output is the result of info and the benchmarks' tables: losing it is a failure.
int FlushStandardOutput(int code) {
    errno = 0;
    std::cout.flush();
    const bool flushed = std::fflush(stdout) == 0;
    const int error = errno;
    if (flushed && !std::ferror(stdout) && std::cout) return code;
    std::fprintf(stderr, "caustica: error: cannot write to standard output%s%s\n", error ? ": " : "",
                 error ? std::strerror(error) : "");
    return code == 0 ? 1 : code;
}

int Run(int argc, char** argv) {
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
        if (command == "--version") {
            std::printf("caustica %s (commit %s)\n", ProgramVersion(), BuildCommit());
            return 0;
        }
        if (command == "view") return ViewMain(args);
        if (command == "render") return RenderMain(args);
        if (command == "bench") return BenchMain(args);
        if (command == "info") return InfoMain(args);
        if (command == "combine") return CombineMain(args);
        std::fprintf(stderr, "caustica: unknown command \"%s\"\n\n%s", command.c_str(), kUsage);
        return 2;
    } catch (const InputError& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "caustica: error: out of memory (a memory allocation failed; try a smaller size)\n");
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "caustica: error: %s\n", e.what());
        return 1;
    }
}

}  // namespace

int main(int argc, char** argv) {
    GuardStandardStreams();
    caustica::InstallInterruptHandlers();
    return FlushStandardOutput(Run(argc, argv));
}
