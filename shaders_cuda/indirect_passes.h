// The indirect light of one sample: light that reached a visible diffuse point after at least one
// diffuse bounce (the global photon map, photon/global_photon_tracer.h), estimated by density
// estimation from the global map right at the point, as real-time photon mappers do (Mara, McGuire
// and Luebke, "Toward Practical Real-Time Photon Mapping: Efficient GPU Density Estimation", I3D
// 2013), and added to the point's radiance. Direct light and caustics (eye_passes.h) are not
// touched.
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

// Density estimation: the indirect irradiance at every diffuse end from its k nearest global photons
// within knn.max_radius (normals: of the surfaces the photons lie on), filtered over radius_scale
// times the k-th photon's distance (1, or the progressive radius's shrinking,
// photon/progressive_radius.h). Reads the ends' positions from eye.caustic_queries (RunCausticPass
// writes them).
void RunIndirectEstimatePass(const Backend& backend, const PhotonMap& global_map, Span<const Photon> photons,
                             Span<const Vec3> normals, const KnnSettings& knn, PhotonFilter filter,
                             float radius_scale, const EyeState& eye, IndirectState& state);

// Adds every diffuse end's indirect radiance (its weight, albedo included, times the irradiance over
// pi) to its path in the ray tree (after the shade pass wrote the direct light and caustics there).
void RunAddIndirectPass(const Backend& backend, EyeState& eye, const IndirectState& state);

}  // namespace caustica
