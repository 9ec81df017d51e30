// Renders a still frame of a scene for tests: time 0, the given options and samples; and scenes
// written in the test, loaded without printing warnings.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "renderer/frame_renderer.h"
#include "renderer/scene/scene_loader.h"
#include "renderer/scene_to_frame.h"

namespace caustica::testing {

// options.photons, width and height small enough for a test; samples jittered samples.
inline std::unique_ptr<FrameRenderer> RenderStill(const Backend& backend, const Scene& scene,
                                                  const RenderOptions& options, int samples) {
    auto renderer = std::make_unique<FrameRenderer>(backend);
    PrepareFrame(*renderer, scene, options, backend, 0.0);
    for (int s = 0; s < samples; ++s) renderer->AddSample();
    return renderer;
}

// The renderer's display pixels, copied out of the memory they were read back into (which the next
// call reuses).
inline std::vector<uint32_t> DisplayPixels(FrameRenderer& renderer) {
    const Span<const uint32_t> pixels = renderer.DisplayPixels();
    return std::vector<uint32_t>(pixels.begin(), pixels.end());
}

// A scene from YAML text; file names in it are relative to 'path''s folder.
inline Scene SceneFromYaml(const std::string& yaml, const std::string& path) {
    SceneLoadOptions quiet;
    quiet.print_warnings = false;
    return LoadSceneFromString(yaml, path, quiet);
}

inline RenderOptions SmallFrame(int photons, int width, int height) {
    RenderOptions options;
    options.photons = photons;
    options.width = width;
    options.height = height;
    return options;
}

// The same with indirect light on, from global_photons global photons a sample.
inline RenderOptions SmallFrameWithIndirectLight(int photons, int width, int height, int global_photons) {
    RenderOptions options = SmallFrame(photons, width, height);
    options.global_photons = global_photons;
    options.indirect = "on";
    return options;
}

}  // namespace caustica::testing
