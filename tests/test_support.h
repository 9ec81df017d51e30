// Helpers shared by the test suites.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <optional>
#include <string>

#include "core/backend.h"
#include "core/error.h"

namespace caustica::testing {

// The CUDA backend, or nothing when this machine has none (the caller skips).
inline std::optional<Backend> GpuBackendOrNothing() {
    if (!CudaDeviceAvailable()) return std::nullopt;
    return Backend::Create("cuda");
}

// The real meshes: $CAUSTICA_MODELS_DIR when set, else ../shared/models beside the repository;
// an empty string when not there.
std::string ModelsDir();

// The bytes of a file ("" when it cannot be read).
inline std::string ReadFileBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The message of the InputError that f() throws, or "" when it throws none.
template <class F>
std::string InputErrorOf(const F& f) {
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

}  // namespace caustica::testing

// Declares 'name' as the CUDA backend, or skips the test with a message when there is no GPU.
#define CA_REQUIRE_GPU(name)                                                               \
    std::optional<::caustica::Backend> name##_or_nothing = ::caustica::testing::GpuBackendOrNothing(); \
    if (!name##_or_nothing) GTEST_SKIP() << "no CUDA device (or a build without CUDA): GPU test skipped"; \
    ::caustica::Backend& name = *name##_or_nothing

// Skips the test when ../shared/models is absent; otherwise declares 'dir' as its path.
#define CA_REQUIRE_MODELS(dir)                                                              \
    const std::string dir = ::caustica::testing::ModelsDir();                               \
    if (dir.empty()) GTEST_SKIP() << "../shared/models not found: real-mesh test skipped"
