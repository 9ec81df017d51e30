// Closest-hit tracing of the current queue's paths: the bounce passes' step between a bounce's placed
// children and their classification (the camera rays are traced where they are made, eye_pass.cpp).
#pragma once

#include "core/backend.h"
#include "photon/scene_view.h"
#include "shaders_cuda/eye_state.h"

namespace caustica {

void RunTracePass(const Backend& backend, const SceneView& scene, EyeState& state);

}  // namespace caustica
