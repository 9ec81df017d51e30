// Closest-hit tracing of the rays of a list of pixels: the step shared by the eye and bounce passes.
#pragma once

#include "core/backend.h"
#include "core/span.h"
#include "photon/scene_view.h"
#include "shaders_cuda/eye_state.h"

namespace caustica {

void RunTracePass(const Backend& backend, const SceneView& scene, Span<const uint32_t> pixels, EyeState& state);

}  // namespace caustica
