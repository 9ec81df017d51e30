// From a loaded scene to what the frame renderer uploads: the materials and textures once per
// scene, the geometry, lights and camera once per frame.
#pragma once

#include <cstdint>
#include <vector>

#include "photon/surface.h"
#include "renderer/frame_input.h"
#include "renderer/scene.h"
#include "renderer/scene_eval.h"

namespace caustica {

// Output size: the scene camera's resolution unless overridden (0 keeps the scene's).
struct ImageSize {
    int width = 0, height = 0;
};

SceneMaterials ToSceneMaterials(const Scene& scene);
FrameInput ToFrameInput(const Scene& scene, const SceneFrame& frame, ImageSize size);
// The same into an existing input, reusing its arrays' memory (for a per-frame loop).
void ToFrameInput(const Scene& scene, const SceneFrame& frame, ImageSize size, FrameInput* input);

}  // namespace caustica
