// Helpers for the scene tests: temporary folders, expected errors, vectors compared within a
// tolerance.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "core/error.h"
#include "renderer/output/output_file.h"
#include "renderer/scene/scene_loader.h"
#include "renderer/scene/scene_save.h"

namespace caustica::testing {

// A fresh folder under the system's temporary folder, removed with the object.
class TempDir {
public:
    TempDir() {
        std::random_device random;
        path_ = std::filesystem::temp_directory_path() / ("caustica-test-" + std::to_string(random()) + std::to_string(random()));
        std::filesystem::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    std::string File(const std::string& name, const std::string& contents) const {
        const std::filesystem::path p = path_ / name;
        std::filesystem::create_directories(p.parent_path());
        std::ofstream(p, std::ios::binary) << contents;
        return p.string();
    }
    std::string Path(const std::string& name = "") const { return (path_ / name).string(); }

private:
    std::filesystem::path path_;
};

// The message of the InputError that loading 'yaml' (as file 'path') throws, or "" if none.
inline std::string LoadError(const std::string& yaml, const std::string& path = "bad.yaml") {
    SceneLoadOptions quiet;
    quiet.print_warnings = false;
    try {
        LoadSceneFromString(yaml, path, quiet);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

inline void ExpectNear(Vec3 a, Vec3 b, float tolerance) {
    EXPECT_NEAR(a.x, b.x, tolerance);
    EXPECT_NEAR(a.y, b.y, tolerance);
    EXPECT_NEAR(a.z, b.z, tolerance);
}

// Saves as the viewer does: the scene's text, written through the output room.
inline void SaveScene(const Scene& scene, const std::string& path) {
    const OutputFile file = CheckOutputFile("", path);
    WriteOutputFile(file, SavedSceneText(scene, file.path));
}

inline std::string SourcePath(const std::string& relative) { return std::string(CAUSTICA_SOURCE_DIR) + "/" + relative; }

}  // namespace caustica::testing

// The error starts with 'where' ("file:line:col: error: ") and contains 'text'.
#define EXPECT_SCENE_ERROR(yaml, where, text)                                               \
    do {                                                                                     \
        const std::string message_ = ::caustica::testing::LoadError(yaml);                   \
        EXPECT_EQ(message_.rfind(std::string(where) + ": error: ", 0), 0u) << message_;      \
        EXPECT_NE(message_.find(text), std::string::npos) << message_;                       \
    } while (0)
