#include "core/parallel_for.h"
#include "core/primitives.h"
#include "core/rng.h"
#include "photon/scatter.h"
#include "shaders_cuda/eye_passes.h"
#include "shaders_cuda/trace_pass.h"

namespace caustica {
namespace {

constexpr uint32_t kBouncePass = 32;  // + the bounce number

CA_HD CA_INLINE FirstHit FirstHitOf(const SceneView& scene, const Hit& hit) {
    if (!hit.Valid()) return FirstHit::Background;
    switch (scene.materials[scene.shading[hit.triangle].material].type) {
        case SurfaceType::Glass: return FirstHit::Glass;
        case SurfaceType::Mirror: return FirstHit::Metal;
        case SurfaceType::Diffuse: break;
    }
    return FirstHit::Diffuse;
}

struct ClassifyHitsPass {
    SceneView scene;
    SampleKey key;
    PixelOrder order;
    int bounce, max_bounces;
    Span<const uint32_t> active;
    Span<Ray> rays;
    Span<Rgb> throughput;
    Span<const Hit> hits;
    Span<uint8_t> continues;
    Span<DiffusePoint> diffuse;
    Span<uint8_t> ends_diffuse;
    Span<FirstHit> first_hit;
    CA_HD void operator()(int i) const {
        const uint32_t p = active[i];
        continues[i] = 0;
        const Hit hit = hits[p];
        if (bounce == 0) first_hit[p] = FirstHitOf(scene, hit);
        if (!hit.Valid()) return;  // left the scene: no light comes from the background
        const Ray ray = rays[p];
        const SurfacePoint s = scene.Describe(ray, hit);
        if (s.material->type == SurfaceType::Diffuse) {
            diffuse[p] = {s.position, s.shading_normal, s.geometric_normal,
                          scene.Albedo(*s.material, s.uv) * throughput[p]};
            ends_diffuse[p] = 1;
            return;
        }
        if (bounce == max_bounces) return;
        Rng rng(key.seed, key.sample, kBouncePass + uint32_t(bounce), uint64_t(order.Linear(p)));
        const SpecularEvent e = ScatterSpecular(s, ray.direction, hit.t, rng.NextFloat());
        const Rgb t = throughput[p] * e.weight;
        if (!(MaxComponent(t) > 0.0f)) return;
        throughput[p] = t;
        rays[p] = Ray(OffsetOrigin(s.position, s.geometric_normal, e.direction), e.direction);
        continues[i] = 1;
    }
};

}  // namespace

void RunBouncePasses(const Backend& backend, const SceneView& scene, int max_bounces, SampleKey key, EyeState& state) {
    for (int bounce = 0; state.active_count > 0; ++bounce) {
        const Span<const uint32_t> active = state.active.span().first(state.active_count);
        ParallelFor(backend, "classify hits", active.size(),
                    ClassifyHitsPass{scene, key, state.order, bounce, max_bounces, active, state.rays.span(),
                                     state.throughput.span(), state.hits.span(), state.continues.span(),
                                     state.diffuse.span(), state.ends_diffuse.span(), state.first_hit.span()});
        if (bounce == max_bounces) break;
        state.active_count = uint32_t(Compact<uint32_t>(backend, active, state.continues.span().first(active.size()),
                                                        state.next_active.span()));
        state.active.Swap(state.next_active);
        RunTracePass(backend, scene, state.active.span().first(state.active_count), state);
    }
    // The diffuse ends, in pixel order, for the shadow and shading passes.
    state.diffuse_count = uint32_t(Compact<uint32_t>(backend, Span<const uint32_t>(state.all_pixels.span()),
                                                     state.ends_diffuse.span(), state.diffuse_pixels.span()));
}

}  // namespace caustica
