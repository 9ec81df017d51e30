// The render passes of one sample, in the order the frame runs them (Zhou et al. 2008, section 4):
// eye rays, then bounces off mirrors and through glass (classify, place, trace, repeated while
// paths may branch, then each path alone to its end: the ray trees of eye_state.h), then shadow
// rays toward every light, then shading of the diffuse ends, the sum of each pixel's tree, and
// compositing into the accumulated image.
// Each pass is a per-item functor in its own launch unit, so it runs on either backend.
#pragma once

#include <cstdint>

#include "core/backend.h"
#include "core/span.h"
#include "core/tone_map.h"
#include "kdtree/point/knn_join.h"
#include "photon/light.h"
#include "photon/photon_map.h"
#include "photon/radiance.h"
#include "photon/scene_view.h"
#include "shaders_cuda/camera_view.h"
#include "shaders_cuda/eye_state.h"

namespace caustica {

// Random numbers of the eye passes are keyed by (seed, sample, pass, pixel), the pixel's row-major
// index: the same sample of a still scene draws the same numbers in every frame, so still parts do
// not flicker.
struct SampleKey {
    uint64_t seed = 1;
    uint32_t sample = 0;
};

// Spawns one camera ray per pixel (jittered within the pixel, except sample 0 which goes through
// the centre) and traces it: the queue of the first bounce, a path per pixel in PixelOrder.
void RunEyePass(const Backend& backend, const SceneView& scene, const CameraView& camera, SampleKey key,
                EyeState& state);

// A path of all wavelengths that meets dispersive glass goes on as this many paths of one wavelength
// each: the hero wavelength and its rotations (spectrum.h).
constexpr int kHeroWavelengths = 4;

// How the eye rays' trees grow.
struct EyeTreeSettings {
    int max_bounces = 8;      // specular bounces; a path that reaches this many more ends dark
    int specular_splits = 0;  // glass hits of the first this many bounces follow both branches; later
                              // ones choose one with the Fresnel probability (0: every path is one path)
    bool emitted = true;      // paths that leave the scene bring the environment's radiance, and area
                              // lights are seen (the debug views leave both dark)
    int wavelengths = 0;      // the paths of one wavelength each that a path of all wavelengths becomes at
                              // dispersive glass: kHeroWavelengths, 1 for the views of one path a
                              // pixel; 0 where no glass disperses

    // The most children a path may have: two branches of a split, or the paths of each wavelength
    // and the reflection at dispersive glass.
    CA_HD uint32_t ChildSlots() const { return wavelengths > 1 ? uint32_t(wavelengths) + 1u : 2u; }
    // Whether a path of this bounce may have more than one child: it may split, or meet dispersive
    // glass (at any bounce).
    CA_HD bool MayBranch(int bounce) const { return wavelengths > 1 || bounce < specular_splits; }
};

// A split's branch lighter than this (its weight's largest channel) goes on with probability
// weight / kBranchCutoff, carrying kBranchCutoff: the tree stays small, its sum unbiased.
constexpr float kBranchCutoff = 0.01f;

// Classifies the queue's hits, bounce after bounce: diffuse ends are recorded, specular hits go on
// as one or two children (traced here), misses bring the environment, and rays that meet an area
// light's surface first its radiance. Builds the tree of eye_state.h. From the first bounce whose
// paths cannot branch, one pass takes each path alone through its remaining bounces.
void RunBouncePasses(const Backend& backend, const SceneView& scene, Span<const LightSource> lights,
                     const EyeTreeSettings& tree, SampleKey key, EyeState& state);

// Shadow rays a diffuse end sends in a sample: one per point, spot and directional light, and each
// area light's shadow_rays.
uint32_t ShadowRaysPerEnd(Span<const LightSource> lights);

// For every diffuse end and shadow ray (the lights' one after another): 1 when nothing blocks the
// way to the light. Area lights' rays go to points stratified over the light (light_sample.h).
void RunShadowPass(const Backend& backend, const SceneView& scene, Span<const LightSource> lights,
                   uint32_t rays_per_end, SampleKey key, EyeState& state);

// The diffuse ends' positions, in order (state.caustic_queries): where the caustic pass and the
// indirect estimate search the photons. Needs the eye passes alone, so it can end their chain
// instead of waiting for the photon map with the search.
void RunCausticQueriesPass(const Backend& backend, EyeState& state);

// Caustic irradiance at every diffuse end (state.caustic) from its k nearest photons of the map
// within knn.max_radius, found by knn.method, and filtered over radius_scale times the k-th photon's
// distance (1, or the progressive radius's shrinking, photon/progressive_radius.h); also the query
// radius and the nearest photon's squared distance (for the debug views). Searches from
// state.caustic_queries (RunCausticQueriesPass). With a join, the GPU's search hands its queries
// out in chunks, slowest first by the join's last search, and a launch on another stream can take
// part of it (kdtree/point/knn_join.h).
void RunCausticPass(const Backend& backend, const PhotonMap& photon_map, const KnnSettings& knn,
                    PhotonFilter filter, float radius_scale, EyeState& state, KnnJoin* join = nullptr);

// What the shading pass shows: the image, or one of the debug views.
enum class ShadeView : uint8_t {
    Full,         // direct light, caustics and ambient light
    CausticOnly,  // the caustic radiance alone
    Photons,      // white where a photon lies within a pixel's footprint: the photons themselves
    KnnRadius,    // the radius of each caustic query, blue (small) to red (max_radius)
    TraversalCost,  // ray-triangle tests of each eye ray, blue (none) to red (kHeatMapTests or more)
};

// The traversal cost view: the number of ray-triangle tests shown as red.
constexpr float kHeatMapTests = 256.0f;

// The traversal cost view: every pixel's radiance is the heat colour of what tracing its eye ray
// (the queue after RunEyePass) costs.
void RunTraversalCostPass(const Backend& backend, const SceneView& scene, EyeState& state);

// Radiance of each diffuse end: direct light (shadowed; an area light's the mean over its shadow
// rays) plus the caustic irradiance, reflected by the albedo, plus the scene's ambient term; or a
// debug view. Written to the end's path in the tree.
void RunShadePass(const Backend& backend, Span<const LightSource> lights, uint32_t rays_per_end, SampleKey key,
                  Rgb ambient, ShadeView view, float max_radius, EyeState& state);

// Sums each path's subtree into it, from the deepest level up: the pixels' radiance.
void RunSumTreePass(const Backend& backend, EyeState& state);

// Adds this sample's radiance (state.PixelRadiance(), in state.order) to the running sum and writes
// the display image (RGBA8 sRGB) of the mean over `samples` samples, times exposure, through the tone
// map; both row by row.
void RunCompositePass(const Backend& backend, const EyeState& state, Span<Rgb> sum, uint32_t samples, float exposure,
                      ToneMap tone_map, Span<uint32_t> display);

}  // namespace caustica
