// The state that flows through the eye passes of one sample (Zhou et al. 2008, section 4, with
// Whitted's ray trees): each pixel's camera ray is a path; at glass a path may split into a
// reflected and a refracted child, each carrying its Fresnel share of the weight, so a pixel ends
// as a tree of paths whose leaves are diffuse points (shaded), rays that leave the scene or meet a
// light (their radiance), or nothing. The passes work on queues of paths, one queue per bounce
// while paths may branch, and from the first bounce at which none can, one pass takes each path of
// its queue to its end; every queue keeps the order of the one before (a path's children sit where
// an exclusive scan of the child counts puts them), so the frame does not depend on scheduling.
//
// The tree keeps a node for each path of the bounces at which paths may split (the first
// specular_splits, in a scene with glass) and of the bounce after them; a path of a later bounce
// goes on alone and continues its parent's node. A node and the chain that continues it end once
// at most (a diffuse end, light, or nothing), and that end's radiance is the node's: a node that
// goes on brings nothing itself. A scene without glass so keeps a node per pixel and nothing
// more, as one path a pixel did. The pixel's radiance is then summed up the tree, a level at a
// time, in a fixed order: no atomics, the same on both backends. Pixels are numbered in
// PixelOrder (8x4 tiles), so that neighbouring items are neighbours on screen; the composite pass
// writes the image row by row.
#pragma once

#include <cstdint>
#include <vector>

#include "core/backend.h"
#include "core/buffer.h"
#include "core/pixel_order.h"
#include "core/readback.h"
#include "core/vec.h"
#include "kdtree/point/knn_batch.h"
#include "kdtree/triangle/ray.h"
#include "photon/spectrum.h"

namespace caustica {

// The bits of a path's id: a pixel's tree splits at most SceneLimits::kMaxSpecularSplits = 16 times
// on a path, so ids stay below 2^17.
constexpr int kPathIdBits = 17;

// One branch of a pixel's ray tree: 48 bytes, aligned so that a thread moves it in three 16-byte
// loads or stores (at 64 bytes, with a float wavelength, eye-ray generation took 19 times as long
// on an H100: docs/benchmarks-history.md).
struct alignas(16) EyePath {
    Vec3 origin, direction;  // of its ray, which starts at t = 0 and is unbounded
    Rgb weight;      // the factors of the surfaces from the camera to here (tints, Fresnel shares,
                     // absorption)
    uint32_t pixel;  // in the frame's PixelOrder
    uint32_t node;   // its node in the tree (its own, or the one it continues)
    uint32_t id : kPathIdBits;  // names the branch among its pixel's, for its random numbers: the
                     // camera ray 0, a split's children 2 id + 1 (reflected) and 2 id + 2 (refracted),
                     // a path that goes on alone keeps its parent's
    uint32_t wavelength_code : 32 - kPathIdBits;  // WavelengthCode of the wavelength it took at the
                                                  // first dispersive glass; 0: all wavelengths

    static constexpr float kCodeNm = (kWavelengthMax - kWavelengthMin) / float((1u << (32 - kPathIdBits)) - 2u);
    // A wavelength in nm (within the sampled range, spectrum.h) as the nearest of 2^15 - 1 codes,
    // 0.014 nm apart: a path bends and weighs its light by its code's wavelength, so the rounding
    // moves the sample, not the estimate.
    CA_HD static uint32_t WavelengthCode(float nm) {
        const float x = (Min(Max(nm, kWavelengthMin), kWavelengthMax) - kWavelengthMin) / kCodeNm;
        return 1u + uint32_t(x + 0.5f);
    }
    CA_HD static float WavelengthOfCode(uint32_t code) {
        return code == 0 ? 0.0f : kWavelengthMin + float(code - 1u) * kCodeNm;
    }
    CA_HD float Wavelength() const { return WavelengthOfCode(wavelength_code); }
    CA_HD Ray ray() const { return Ray(origin, direction); }
};
static_assert(sizeof(EyePath) == 48, "an eye path is three 16-byte vectors");

// Where a path ends on a diffuse surface: what shading needs (aligned as EyePath).
struct alignas(16) DiffusePoint {
    Vec3 position;
    Vec3 normal;   // shading normal, facing the viewer
    Vec3 offset_normal;  // geometric normal facing the viewer, for shadow ray origins
    Rgb weight;    // albedo times the path's weight
};

// What a pixel's eye ray meets first, for error statistics by material (bench quality).
enum class FirstHit : uint8_t { Background, Diffuse, Glass, Metal, Light };
constexpr int kFirstHitKinds = 5;

struct EyeState {
    PixelOrder order;                 // of the camera's pixels, set by RunEyePass
    uint32_t pixels = 0;
    // The queue of the current bounce's paths and their hits.
    Buffer<EyePath> paths;
    Buffer<Hit> hits;
    uint32_t path_count = 0;
    uint32_t paths_traced = 0;        // in all queues of the sample
    // Scratch of the bounce pass: the other children of each path that branches (the first replaces
    // its parent in the queue), the next queue, and the counts of a bounce whose paths cannot branch.
    Buffer<EyePath> more_children, next_paths;
    Buffer<uint64_t> counts;
    Readback totals;                  // a bounce's totals of both counts, read back
    // The tree's nodes, level after level: the paths of bounce b are the nodes
    // [level_first[b], level_first[b + 1]) while b <= specular_splits (every b in a scene with
    // dispersive glass).
    std::vector<uint32_t> level_first;
    Buffer<uint64_t> tree_offsets;    // per node that may split: where its children (low 32 bits,
                                      // within the next level) and its diffuse end (high 32 bits,
                                      // within the bounce's ends) go, an exclusive scan of both counts
    Buffer<Rgb> tree_radiance;        // per node: the light its end brings (the background, a light,
                                      // its diffuse end), then with its subtree's; level 0 is the pixels
    Buffer<DiffusePoint> diffuse;     // per node: its diffuse end, where it has one
    // The diffuse ends: bounce after bounce, each bounce's in its queue's order, until the paths
    // cannot branch; then the lone paths' (bounce_pass.cpp), in their first queue's order.
    Buffer<uint32_t> end_node;        // per end: its node
    uint32_t end_count = 0;
    Buffer<FirstHit> first_hit;       // per pixel
    Buffer<uint8_t> visible;          // per end and shadow ray: 1 when nothing blocks it
    Buffer<Vec3> caustic_queries;     // per end: where the photons are gathered
    KnnResults knn;                   // the KNN's scratch, where neighbours do not stay on chip
    Buffer<Rgb> caustic;              // per end: caustic irradiance
    Buffer<float> caustic_radius;     // per end: the radius of its photon query
    Buffer<float> caustic_nearest2;   // per end: squared distance to its nearest photon

    explicit EyeState(const Backend& b)
        : paths(b), hits(b), more_children(b), next_paths(b), counts(b),
          totals(SpaceOf(b), sizeof(uint64_t)), tree_offsets(b),
          tree_radiance(b), diffuse(b), end_node(b), first_hit(b), visible(b), caustic_queries(b), knn(b), caustic(b),
          caustic_radius(b), caustic_nearest2(b) {}

    // This sample's radiance per pixel, in PixelOrder (after the passes).
    Span<const Rgb> PixelRadiance() const { return tree_radiance.span().first(pixels); }
};

}  // namespace caustica
