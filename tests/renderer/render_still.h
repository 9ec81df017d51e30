// Renders a still frame of a scene for tests: time 0, the given options and samples.
#pragma once

#include <memory>

#include "renderer/frame_renderer.h"
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

inline RenderOptions SmallFrame(int photons, int width, int height) {
    RenderOptions options;
    options.photons = photons;
    options.width = width;
    options.height = height;
    return options;
}

}  // namespace caustica::testing
