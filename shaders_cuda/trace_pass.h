// Closest-hit tracing of the current queue's paths: the step shared by the eye and bounce passes.
#pragma once

#include "core/backend.h"
#include "photon/scene_view.h"
#include "shaders_cuda/eye_state.h"

namespace caustica {

void RunTracePass(const Backend& backend, const SceneView& scene, EyeState& state);

}  // namespace caustica
