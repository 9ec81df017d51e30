#include "tests/test_support.h"

#include <filesystem>

namespace caustica::testing {

std::string ModelsDir() {
    const std::filesystem::path dir = std::filesystem::path(CAUSTICA_SOURCE_DIR) / ".." / "shared" / "models";
    return std::filesystem::is_directory(dir) ? dir.lexically_normal().string() : std::string();
}

}  // namespace caustica::testing
