#include "renderer/bench/scene_triangles.h"

#include <filesystem>

#include "core/error.h"
#include "renderer/scene/scene_eval.h"
#include "renderer/scene/scene_loader.h"

namespace caustica {
namespace {

// A YAML double-quoted string holding any path.
std::string QuotedYaml(const std::string& text) {
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

}  // namespace

std::vector<Triangle> LoadTrianglesForBench(const std::string& path) {
    const std::filesystem::path file(path);
    const std::string extension = file.extension().string();
    if (extension != ".obj" && extension != ".yaml" && extension != ".yml")
        ThrowInputError({path, 0, 0}, "expected .obj or .yaml (a mesh or a scene)");
    std::error_code error;
    if (!std::filesystem::is_regular_file(file, error)) ThrowInputError({path, 0, 0}, "file not found");
    // A mesh is loaded as a scene of that one mesh, so both go through the same checked loaders.
    const Scene scene =
        extension == ".obj"
            ? LoadSceneFromString("objects:\n  - mesh: " + QuotedYaml(file.filename().string()) + "\n",
                                  (file.parent_path() / "<mesh>.yaml").string())
            : LoadScene(path);
    std::vector<Triangle> triangles = EvaluateScene(scene, 0.0).triangles;
    if (triangles.empty())
        ThrowInputError({path, 0, 0}, "the scene has no objects, so no triangles to build a tree over");
    return triangles;
}

}  // namespace caustica
