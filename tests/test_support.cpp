#include "tests/test_support.h"

#include <cstdlib>
#include <filesystem>

namespace caustica::testing {

std::string ModelsDir() {
    if (const char* env = std::getenv("CAUSTICA_MODELS_DIR"); env && *env)
        return std::filesystem::is_directory(env) ? std::string(env) : std::string();
    const std::filesystem::path dir = std::filesystem::path(CAUSTICA_SOURCE_DIR) / ".." / "shared" / "models";
    return std::filesystem::is_directory(dir) ? dir.lexically_normal().string() : std::string();
}

}  // namespace caustica::testing
