// The program's version (CMake's project()) and the commit it was built from (read when CMake
// configured the build), for --version and the benchmarks' reports.
#pragma once

namespace caustica {

const char* ProgramVersion();
const char* BuildCommit();

}  // namespace caustica
