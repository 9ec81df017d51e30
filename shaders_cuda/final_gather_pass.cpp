#include <algorithm>

#include "core/parallel_for.h"
#include "core/rng.h"
#include "core/sobol02.h"
#include "kdtree/point/knn_for_each.h"
#include "photon/diffuse.h"
#include "photon/scatter.h"
#include "shaders_cuda/indirect_passes.h"
#include "shaders_cuda/light_sample.h"

// What a gather hit brings, so that no light path is counted twice. The frame splits the light
// reaching a visible diffuse point x by the path it took: direct (light -> x: shadow rays), caustic
// (light -> specular+ -> x: the caustic map) and indirect (at least one diffuse surface between the
// light and x). Let y be the last diffuse surface of an indirect path before x: a gather ray from x
// (through glass and off mirrors, as the path would go) finds y, and the light leaving y toward x is
// albedo / pi times ALL the irradiance at y, whichever way it came: direct at y (light -> y: a shadow
// ray from y), caustic at y (light -> specular+ -> y: the caustic map at y) and indirect at y (the
// global map at y, which holds the photons after at least one diffuse bounce). Each indirect path
// at x has exactly one such y and falls in exactly one of the three at y; a gather ray that meets a
// light brings nothing (that light is x's direct or caustic light), nor one that leaves the scene
// (the environment lights nothing, docs/scenes.md), as in the density estimate at x.

namespace caustica {
namespace {

constexpr uint32_t kGatherPass = 80;
constexpr uint32_t kGatherScramblePass = 81;

struct GatherRayPass {
    SceneView scene;
    Span<const LightSource> lights;
    int max_specular;
    SampleKey key;
    uint32_t rays;
    uint32_t first_end;
    Span<const DiffusePoint> diffuse;
    Span<const uint32_t> end_node;
    Span<DiffusePoint> hits;
    Span<Vec3> queries;
    Span<Rgb> light;

    CA_HD void operator()(int g) const {
        const uint32_t end = first_end + uint32_t(g) / rays, j = uint32_t(g) % rays;
        const uint32_t node = end_node[end];
        const DiffusePoint x = diffuse[node];
        // No hit yet: weight 0, and the KNN queries the end itself (its result is not used).
        hits[g] = DiffusePoint{x.position, x.normal, x.offset_normal, Rgb(0.0f)};
        queries[g] = x.position;
        light[g] = Rgb(0.0f);
        // The ray's point of the end's scrambled (0, 2)-sequence, whose scramble is keyed by the node
        // alone: a camera ray's node is its pixel in every sample, so a pixel's gather rays stay
        // stratified over its samples (an end behind glass is stratified less, never biased).
        Rng scramble(key.seed, 0, kGatherScramblePass, node);
        const uint32_t scramble_x = scramble.NextU32();
        const Vec2 u = Sobol02(key.sample * rays + j, scramble_x, scramble.NextU32());
        Vec3 direction;
        if (!DiffuseDirection(x.normal, x.offset_normal, u.x, u.y, &direction)) return;
        Rng rng(key.seed, key.sample, kGatherPass, uint64_t(end) * rays + j);
        Ray ray(OffsetOrigin(x.position, x.offset_normal, direction), direction);
        Rgb weight(1.0f);
        float wavelength = 0.0f;  // nm; 0: all (photon/photon_tracer.h)
        for (int specular = 0;; ++specular) {
            const Hit hit = scene.Closest(ray);
            if (!hit.Valid()) return;
            const SurfacePoint p = scene.Describe(ray, hit);
            if (p.material->type == SurfaceType::Diffuse) {
                const DiffusePoint y{p.position, p.shading_normal, p.geometric_normal,
                                     weight * scene.Albedo(*p.material, p.uv)};
                hits[g] = y;
                queries[g] = y.position;
                light[g] = y.weight * DirectIrradiance(scene, lights, y, rng);
                return;
            }
            if (specular == max_specular) return;
            if (scene.TakesWavelength(*p.material, wavelength))
                scene.TakeWavelength(rng.NextFloat(), &wavelength, &weight);
            const SpecularEvent e = ScatterSpecular(p, ray.direction, hit.t, rng.NextFloat(), wavelength);
            weight *= e.weight;
            if (!(MaxComponent(weight) > 0.0f)) return;
            ray = Ray(OffsetOrigin(p.position, p.geometric_normal, e.direction), e.direction);
        }
    }
};

// Adds each hit's global (Global true) or caustic irradiance, times its weight, where the KNN leaves
// the neighbours.
template <bool Global>
struct AddMapLight {
    Span<const PhotonArrival> arrivals;
    Span<const Vec3> normals;  // of the global photons' surfaces (Global only)
    Span<const DiffusePoint> hits;
    PhotonFilter filter;
    float radius_scale;
    Span<Rgb> light;
    CA_HD void operator()(uint32_t i, KnnSlot neighbours, KnnOutcome o) const {
        const DiffusePoint& y = hits[i];
        if (!(MaxComponent(y.weight) > 0.0f)) return;
        const float radius = o.radius * radius_scale;
        const Rgb e = Global ? GlobalIrradiance(arrivals, normals, neighbours, o, radius, y.normal, filter)
                             : CausticIrradiance(arrivals, neighbours, int(o.count), radius, y.normal, filter);
        light[i] += y.weight * e;
    }
};

// The end's indirect irradiance: pi times the mean radiance of its gather rays (cosine sampling's
// density cos / pi cancels the cosine), each albedo / pi times its hit's irradiance, so the mean of
// the rays' weighted irradiance.
struct MeanGatherPass {
    uint32_t rays;
    uint32_t first_end;
    Span<const Rgb> light;
    Span<Rgb> irradiance;
    CA_HD void operator()(int e) const {
        Rgb sum(0.0f);
        for (uint32_t j = 0; j < rays; ++j) sum += light[size_t(e) * rays + j];
        irradiance[first_end + uint32_t(e)] = sum * (1.0f / float(rays));
    }
};

}  // namespace

void RunFinalGatherPasses(const Backend& backend, const SceneView& scene, Span<const LightSource> lights,
                          int max_specular, uint32_t rays, SampleKey key, const GatherMaps& maps,
                          const EyeState& eye, IndirectState& state) {
    const uint32_t ends = eye.end_count;
    state.irradiance.Resize(ends, false);
    if (ends == 0 || rays == 0) return;
    // Gather rays in flight at once bound the scratch (on the CPU the KNN keeps k neighbours a ray
    // in it); every ray's result is its own, so the batches do not change the image.
    const uint32_t batch_rays = backend.IsGpu() ? (1u << 22) : (1u << 16);
    const uint32_t batch_ends = std::max(1u, batch_rays / rays);
    for (uint32_t first = 0; first < ends; first += batch_ends) {
        const uint32_t count = std::min(batch_ends, ends - first), n = count * rays;
        state.gather_hits.Resize(n, false);
        state.gather_queries.Resize(n, false);
        state.gather_light.Resize(n, false);
        ParallelFor(backend, "gather rays", n,
                    GatherRayPass{scene, lights, max_specular, key, rays, first, eye.diffuse.span(),
                                  eye.end_node.span(), state.gather_hits.span(), state.gather_queries.span(),
                                  state.gather_light.span()});
        const Span<const Vec3> queries = state.gather_queries.span();
        KnnForEach(backend, maps.global_map->Tree(), maps.global_map->Radii(), queries, maps.global_knn, state.knn,
                   AddMapLight<true>{maps.global_map->Arrivals(), maps.global_map->Normals(), state.gather_hits.span(),
                                     maps.filter, maps.radius_scale, state.gather_light.span()});
        if (!maps.caustic_map->Arrivals().empty())
            KnnForEach(backend, maps.caustic_map->Tree(), maps.caustic_map->Radii(), queries, maps.caustic_knn,
                       state.knn,
                       AddMapLight<false>{maps.caustic_map->Arrivals(), {}, state.gather_hits.span(), maps.filter,
                                          maps.radius_scale, state.gather_light.span()});
        ParallelFor(backend, "mean gather", count,
                    MeanGatherPass{rays, first, state.gather_light.span(), state.irradiance.span()});
    }
}

}  // namespace caustica
