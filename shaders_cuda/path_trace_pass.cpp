#include "core/parallel_for.h"
#include "core/rng.h"
#include "photon/diffuse.h"
#include "photon/scatter.h"
#include "shaders_cuda/first_hit.h"
#include "shaders_cuda/light_sample.h"
#include "shaders_cuda/path_tracer.h"

namespace caustica {
namespace {

constexpr uint32_t kPathPass = 64;
constexpr float kInvPi = 1.0f / 3.14159265358979f;

struct PathTracePass {
    SceneView scene;
    Span<const LightSource> lights;
    int max_specular;
    SampleKey key;
    PixelOrder order;
    Span<const EyePath> paths;
    Span<const Hit> hits;
    Span<Rgb> radiance;
    Span<FirstHit> first_hit;

    CA_HD void operator()(int i) const {
        Rng rng(key.seed, key.sample, kPathPass, order.Linear(uint32_t(i)));
        Ray ray = paths[i].ray();
        Hit hit = hits[i];
        first_hit[i] = FirstAreaLightHit(lights, ray, hit.t) >= 0 ? FirstHit::Light : FirstHitOf(scene, hit);
        Rgb weight(1.0f), sum(0.0f);
        bool sees_lights = true;  // the camera ray, or a specular bounce's: no shadow ray brought their light
        float wavelength = 0.0f;  // nm; 0: all (photon/photon_tracer.h)
        int specular = 0;
        for (int diffuse = 0; diffuse <= kMaxDiffuseBounces;) {
            // Area lights block nothing: a path that has had its light by a shadow ray goes through.
            const int light = sees_lights ? FirstAreaLightHit(lights, ray, hit.t) : -1;
            if (light >= 0) {
                sum += weight * lights[light].Radiance();
                break;
            }
            if (!hit.Valid()) {
                sum += weight * scene.environment.Radiance(ray.direction);
                break;
            }
            const SurfacePoint p = scene.Describe(ray, hit);
            Vec3 direction;
            if (p.material->type == SurfaceType::Diffuse) {
                const Rgb albedo = scene.Albedo(*p.material, p.uv);
                const DiffusePoint d{p.position, p.shading_normal, p.geometric_normal, albedo};
                sum += weight * albedo * DirectIrradiance(scene, lights, d, rng) * kInvPi;
                Rgb factor;
                if (!ScatterDiffuse(albedo, p.shading_normal, p.geometric_normal, rng, &direction, &factor)) break;
                weight *= factor;
                sees_lights = false;
                ++diffuse;
            } else {
                if (specular++ == max_specular) break;
                if (scene.TakesWavelength(*p.material, wavelength))
                    scene.TakeWavelength(rng.NextFloat(), &wavelength, &weight);
                const SpecularEvent e = ScatterSpecular(p, ray.direction, hit.t, rng.NextFloat(), wavelength);
                weight *= e.weight;
                direction = e.direction;
                sees_lights = true;
            }
            if (!(MaxComponent(weight) > 0.0f)) break;
            ray = Ray(OffsetOrigin(p.position, p.geometric_normal, direction), direction);
            hit = scene.Closest(ray);
        }
        radiance[i] = sum;
    }
};

}  // namespace

void RunPathTracePass(const Backend& backend, const SceneView& scene, Span<const LightSource> lights, int max_specular,
                      SampleKey key, EyeState& state) {
    ParallelFor(backend, "path trace", state.pixels,
                PathTracePass{scene, lights, max_specular, key, state.order, state.paths.span(), state.hits.span(),
                              state.tree_radiance.span(), state.first_hit.span()});
}

}  // namespace caustica
