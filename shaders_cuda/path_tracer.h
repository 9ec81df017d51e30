// The reference integrator (--integrator path): a plain unidirectional path tracer over the same
// scene view, trees, materials and lights as the photon-mapping frame, for validation and for
// reference images, not for speed. Each pixel's camera ray (the eye pass's, so both integrators
// see the same pixels) goes on as one path: at a diffuse surface it adds the direct light of one
// shadow ray per light (next event estimation, light_sample.h, as the shading pass does), then
// goes on in a cosine-distributed direction with Russian roulette by albedo (photon/diffuse.h,
// as global photons do); at glass and mirrors it takes one Fresnel-chosen branch (photon/scatter.h,
// as photons do). An area light's radiance counts where the camera or a specular bounce sees it
// (a diffuse bounce's light came by its shadow rays), and the environment's wherever a path
// leaves the scene.
//
// Paths it cannot reach: light from a point, spot or directional light that reaches a diffuse
// surface through glass or off a mirror (their caustics: nothing can hit such a light), and the
// ambient term (not a light). Caustics of area lights it finds, slowly.
#pragma once

#include "core/backend.h"
#include "core/span.h"
#include "photon/light.h"
#include "photon/scene_view.h"
#include "shaders_cuda/eye_passes.h"
#include "shaders_cuda/eye_state.h"

namespace caustica {

// Traces every pixel's path from the queue RunEyePass left (its camera ray and first hit) and
// writes the pixel's radiance to state.tree_radiance (state.PixelRadiance()) and what its camera ray
// met first to state.first_hit. max_specular:
// glass and mirror bounces before a path ends.
void RunPathTracePass(const Backend& backend, const SceneView& scene, Span<const LightSource> lights, int max_specular,
                      SampleKey key, EyeState& state);

}  // namespace caustica
