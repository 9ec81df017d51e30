#include "renderer/cli/version.h"

namespace caustica {

const char* ProgramVersion() { return CAUSTICA_VERSION; }
const char* BuildCommit() { return CAUSTICA_GIT_COMMIT; }

}  // namespace caustica
