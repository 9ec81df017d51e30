// The indirect light of one sample: light that reached a visible diffuse point after at least one
// diffuse bounce (the global photon map, photon/global_photon_tracer.h), estimated one of two ways
// and added to the point's radiance; direct light and caustics (eye_passes.h) are not touched.
// (a) Density estimation from the global map right at the point, as real-time photon mappers do
// (Mara, McGuire and Luebke, "Toward Practical Real-Time Photon Mapping: Efficient GPU Density
// Estimation", I3D 2013): smooth and cheap, but the map's blur shows where light changes fast.
// (b) Final gathering (Jensen 1996, "Global Illumination using Photon Maps"):
// cosine-distributed gather rays from the point read the light leaving the diffuse surfaces they
// hit; the maps' blur moves one bounce away from what the eye sees, and the noise averages out
// over the samples.
#pragma once

#include <cstdint>

#include "core/backend.h"
#include "core/span.h"
#include "photon/photon_map.h"
#include "photon/radiance.h"
#include "shaders_cuda/eye_passes.h"
#include "shaders_cuda/eye_state.h"
#include "shaders_cuda/indirect_state.h"

namespace caustica {

// A global photon counts toward an estimate only where the surface it lies on faces within about
// 45 degrees of the point's: the wide gathering disc of indirect light would otherwise take light
// from the wall beside a corner onto the floor.
constexpr float kSameSurfaceCos = 0.7f;

// The global map's irradiance at a point of normal n from a KNN's neighbours (their o.count),
// filtered over radius; normals: of the surfaces the photons lie on.
CA_HD CA_INLINE Rgb GlobalIrradiance(Span<const PhotonArrival> arrivals, Span<const Vec3> normals,
                                     KnnSlot neighbours, KnnOutcome o, float radius, Vec3 n, PhotonFilter filter) {
    return PhotonIrradiance(arrivals, neighbours, int(o.count), radius, n, filter,
                            [normals, n](uint32_t p) { return Dot(normals[p], n) > kSameSurfaceCos; });
}

// Density estimation: the indirect irradiance at every diffuse end from its k nearest photons of the
// global map (built with the normals of the surfaces they lie on) within knn.max_radius, filtered
// over radius_scale times the k-th photon's distance (1, or the progressive radius's shrinking,
// photon/progressive_radius.h). Reads the ends' positions from eye.caustic_queries
// (RunCausticQueriesPass writes them).
void RunIndirectEstimatePass(const Backend& backend, const PhotonMap& global_map, const KnnSettings& knn,
                             PhotonFilter filter, float radius_scale, const EyeState& eye, IndirectState& state);

// The maps and estimate settings that final gathering reads at its hits.
struct GatherMaps {
    const PhotonMap* global_map;  // built with the photons' normals
    KnnSettings global_knn;
    const PhotonMap* caustic_map;
    KnnSettings caustic_knn;
    PhotonFilter filter;
    float radius_scale;  // of both maps' estimates (as in RunIndirectEstimatePass)
};

// Final gathering: the indirect irradiance at every diffuse end from `rays` gather rays (cosine
// about its normal, points of a (0, 2)-sequence stratified over the samples; through glass and off
// mirrors, max_specular bounces at most, with Fresnel-chosen branches) to the diffuse surfaces
// they hit; at each hit y the light leaving it toward the end, albedo / pi times y's direct,
// caustic and global irradiance (final_gather_pass.cpp says why all three).
void RunFinalGatherPasses(const Backend& backend, const SceneView& scene, Span<const LightSource> lights,
                          int max_specular, uint32_t rays, SampleKey key, const GatherMaps& maps,
                          const EyeState& eye, IndirectState& state);

// The edge-aware a-trous filter (denoise.h) of the indirect irradiance of the ends that camera rays
// see directly, in place; the other ends' stays.
void RunDenoisePasses(const Backend& backend, const CameraView& camera, const EyeState& eye, IndirectState& state);

// Adds every diffuse end's indirect radiance (its weight, albedo included, times the irradiance over
// pi) to its path in the ray tree (after the shade pass wrote the direct light and caustics there).
void RunAddIndirectPass(const Backend& backend, EyeState& eye, const IndirectState& state);

}  // namespace caustica
