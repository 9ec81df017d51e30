// libFuzzer target over the scene parser and the OBJ path.
//
// An input is scene YAML, optionally followed by sections that start with a line "#--obj--",
// "#--mtl--" or "#--image--": the files the scene refers to. The loader reads files through an
// in-memory FileSource: every "*.obj" path it asks for is the OBJ section, every "*.mtl" path the
// MTL section (the OBJ section where there is none), every "*.png" or "*.jpg" path the image
// section, and every other file is missing, so nothing outside memory is touched. Each input is
// loaded, evaluated at two times and at the camera's keyframes and half way between them, saved
// to YAML text and loaded again, which must give an equal scene.
// InputError is the expected answer to bad input; anything else (an internal check, a sanitizer
// report, a crash) is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

// The YAML (before the first section) and the sections of an input.
struct Input {
    std::string yaml, obj, mtl, image;
    bool has_mtl = false, has_image = false;
};

Input Split(const std::string& text) {
    static const char* const kMarkers[] = {"#--obj--\n", "#--mtl--\n", "#--image--\n"};
    Input input;
    std::string* current = &input.yaml;
    for (std::size_t at = 0; at < text.size();) {
        std::size_t next = std::string::npos;
        int marker = -1;
        for (int m = 0; m < 3; ++m) {
            const std::size_t found = text.find(kMarkers[m], at);
            if (found < next) {
                next = found;
                marker = m;
            }
        }
        current->append(text, at, next == std::string::npos ? std::string::npos : next - at);
        if (marker < 0) break;
        current = marker == 0 ? &input.obj : marker == 1 ? &input.mtl : &input.image;
        input.has_mtl |= marker == 1;
        input.has_image |= marker == 2;
        at = next + std::strlen(kMarkers[marker]);
    }
    return input;
}

FileRead Serve(const std::string& bytes, std::size_t max_bytes) {
    FileRead read;
    read.status = bytes.size() > max_bytes ? FileRead::Status::too_large : FileRead::Status::ok;
    if (read.status == FileRead::Status::ok) read.bytes = bytes;
    return read;
}

[[noreturn]] void Finding(const char* what, const std::string& detail) {
    std::fprintf(stderr, "scene_fuzzer: %s\n%s\n", what, detail.c_str());
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const Input input = Split(std::string(reinterpret_cast<const char*>(data), size));
    const std::string& yaml = input.yaml;
    const std::string& obj = input.obj;

    SceneLoadOptions options;
    options.print_warnings = false;
    options.max_triangles = 200000;  // keeps each run fast; the limit logic is the same
    options.files = [&input](const std::string& path, std::size_t max_bytes) {
        if (EndsWith(path, ".obj")) return Serve(input.obj, max_bytes);
        if (EndsWith(path, ".mtl")) return Serve(input.has_mtl ? input.mtl : input.obj, max_bytes);
        if (input.has_image && (EndsWith(path, ".png") || EndsWith(path, ".jpg"))) return Serve(input.image, max_bytes);
        return FileRead();
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
    // An animated camera at and between its keyframes: a view that the frame could not orient
    // (along up, or the camera at its look_at) is a finding.
    const std::vector<CameraKey>& keys = scene.camera.animation;
    for (std::size_t k = 0; k < keys.size() && k < 8; ++k) {
        const double next = k + 1 < keys.size() ? keys[k + 1].time : keys[k].time;
        for (const double time : {keys[k].time, 0.5 * (keys[k].time + next)}) {
            const SceneCamera camera = EvaluateScene(scene, time).camera;
            const Vec3 view = camera.look_at - camera.position;
            if (!(LengthSquared(view) > 0) || !(LengthSquared(Cross(Normalize(view), camera.up)) > 0))
                Finding("an animated camera that cannot be oriented", Concat("time ", time));
        }
    }
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
