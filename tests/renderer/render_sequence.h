// Renders the first frames of a scene's animation for tests, one sample each, as bench frame does:
// one frame after another, or with each next frame's geometry prepared while the frame's sample
// runs (FrameRenderer::PrepareGeometryAhead).
#pragma once

#include <vector>

#include "renderer/frame_renderer.h"
#include "renderer/output/image.h"
#include "renderer/scene_to_frame.h"

namespace caustica::testing {

enum class Geometry { EachFrame, Ahead };

inline std::vector<Image> RenderSequence(const Backend& backend, const Scene& scene, const RenderOptions& options,
                                         int frames, Geometry geometry, int ahead_sms = 0) {
    FrameRenderer renderer(backend);
    renderer.SetMaterials(ToSceneMaterials(scene));
    RenderSettings settings = MakeRenderSettings(scene, options, backend);
    settings.geometry_ahead_sms = ahead_sms;
    SceneFrames scene_frames(scene, MakeImageSize(options));
    const bool ahead = geometry == Geometry::Ahead;
    std::vector<Image> images;
    for (int f = 0; f < frames; ++f) {
        renderer.Prepare(ahead && f > 0 ? scene_frames.input() : scene_frames.At(f / scene.settings.frame_rate),
                         settings);
        if (ahead && f + 1 < frames)
            renderer.PrepareGeometryAhead(scene_frames.At((f + 1) / scene.settings.frame_rate));
        renderer.AddSample();
        images.push_back(renderer.CurrentImage());
    }
    return images;
}

}  // namespace caustica::testing
