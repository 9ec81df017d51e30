// libFuzzer target over the scene parser and the OBJ path.
//
// An input is scene YAML, optionally followed by a line "#--obj--" and OBJ text. The loader reads
// files through an in-memory FileSource: every "*.obj" or "*.mtl" path it asks for is the OBJ
// part, every other file is missing, so nothing outside memory is touched. Each input is loaded,
// evaluated at two times, saved to YAML text and loaded again, which must give an equal scene.
// InputError is the expected answer to bad input; anything else (an internal check, a sanitizer
// report, a crash) is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/error.h"
#include "renderer/scene/obj_loader.h"
#include "renderer/scene/scene_eval.h"
#include "renderer/scene/scene_loader.h"
#include "renderer/scene/scene_save.h"

namespace {

using namespace caustica;

bool EndsWith(const std::string& s, const char* suffix) {
    const std::string t(suffix);
    return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

[[noreturn]] void Finding(const char* what, const std::string& detail) {
    std::fprintf(stderr, "scene_fuzzer: %s\n%s\n", what, detail.c_str());
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    const std::string separator = "#--obj--\n";
    const std::size_t split = input.find(separator);
    const std::string yaml = input.substr(0, split);
    const std::string obj = split == std::string::npos ? std::string() : input.substr(split + separator.size());

    SceneLoadOptions options;
    options.print_warnings = false;
    options.max_triangles = 200000;  // keeps each run fast; the limit logic is the same
    options.files = [&obj](const std::string& path, std::size_t max_bytes) {
        FileRead read;
        if (!EndsWith(path, ".obj") && !EndsWith(path, ".mtl")) return read;
        if (obj.size() > max_bytes) {
            read.status = FileRead::Status::too_large;
            return read;
        }
        read.status = FileRead::Status::ok;
        read.bytes = obj;
        return read;
    };

    // The OBJ path on its own, whatever the YAML says.
    if (!obj.empty()) {
        try {
            ParseObj(obj, "/fuzz/mesh.obj", options.files);
        } catch (const InputError&) {
        }
    }

    Scene scene;
    try {
        scene = LoadSceneFromString(yaml, "/fuzz/scene.yaml", options);
    } catch (const InputError&) {
        return 0;
    }
    EvaluateScene(scene, 0.0);
    EvaluateScene(scene, 0.37);
    const std::string saved = SceneToYaml(scene, "/fuzz");
    Scene again;
    try {
        again = LoadSceneFromString(saved, "/fuzz/scene.yaml", options);
    } catch (const InputError& e) {
        Finding("a saved scene does not load again", std::string(e.what()) + "\n--- saved ---\n" + saved);
    }
    if (!(again == scene)) Finding("a saved scene loads back different", saved);
    return 0;
}
