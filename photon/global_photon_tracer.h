// Global photon tracing (Jensen 2001, "Realistic Image Synthesis Using Photon Mapping", sections
// 5.2 and 5.4; the step Zhou et al. 2008 name at their paper's end: "global photon maps on the GPU
// using a general photon scattering scheme based on Russian roulette"). Photons leave the lights
// in every direction (the projection maps with every cell active), go through glass and off
// mirrors as caustic photons do, and at a diffuse surface go on with the probability of its
// albedo in a cosine-distributed direction. A photon is stored at every diffuse surface it reaches
// after at least one diffuse bounce: direct light keeps its shadow rays, and light that went from
// a light through specular surfaces alone to a diffuse one is the caustic map's, so no path is
// counted twice (direct + caustic + global = every path that ends at a diffuse surface).
//
// A photon may be stored several times, so the tracer runs twice: once to count each photon's
// stores, and, after a scan of the counts, again to write them where the scan says. Both runs draw
// the same random numbers (keyed by photon), and the launch unit does not fuse multiply-adds, so
// both follow the same paths; the stored photons are in emission order on either backend.
#pragma once

#include <cstdint>

#include "core/backend.h"
#include "core/buffer.h"
#include "core/readback.h"
#include "core/rng.h"
#include "photon/diffuse.h"
#include "photon/photon.h"
#include "photon/photon_tracer.h"
#include "photon/projection_map.h"
#include "photon/scatter.h"
#include "photon/scene_view.h"

namespace caustica {

class GlobalPhotonTracer {
public:
    explicit GlobalPhotonTracer(const Backend& backend);

    // Traces settings.count global photons (settings.max_bounces: specular bounces in all) and
    // writes the stored ones to photons, and the normal of the surface each lies on to normals (both
    // resized to their number, in emission order).
    void Trace(const SceneView& scene, const EmissionView& emission, const PhotonTraceSettings& settings,
               Buffer<Photon>& photons, Buffer<Vec3>& normals);

private:
    const Backend& backend_;
    Buffer<uint32_t> offsets_;  // per emitted photon: its stores, then their first place (a scan); the total last
    Readback total_;            // the stored photons' count
};

// Traces one global photon and calls store(photon, normal) at each diffuse surface it reaches after
// at least one diffuse bounce.
template <class Store>
CA_HD CA_INLINE void TraceGlobalPhoton(const SceneView& scene, EmittedPhoton photon, Rng& rng, int max_bounces,
                                       Store& store) {
    Ray ray(photon.origin, photon.direction);
    Rgb power = photon.power;
    float wavelength = 0.0f;  // nm; 0: all (photon_tracer.h)
    int specular = 0;
    for (int diffuse = 0; diffuse <= kMaxDiffuseBounces;) {
        const Hit hit = scene.Closest(ray);
        if (!hit.Valid()) return;
        const SurfacePoint p = scene.Describe(ray, hit);
        Vec3 direction;
        if (p.material->type == SurfaceType::Diffuse) {
            if (diffuse > 0) store(Photon{p.position, power, ray.direction}, p.shading_normal);
            Rgb factor;
            if (!ScatterDiffuse(scene.Albedo(*p.material, p.uv), p.shading_normal, p.geometric_normal, rng, &direction,
                                &factor))
                return;
            power *= factor;
            ++diffuse;
        } else {
            if (specular++ == max_bounces) return;
            if (scene.TakesWavelength(*p.material, wavelength)) scene.TakeWavelength(rng.NextFloat(), &wavelength, &power);
            const SpecularEvent e = ScatterSpecular(p, ray.direction, hit.t, rng.NextFloat(), wavelength);
            power *= e.weight;
            direction = e.direction;
        }
        if (!(MaxComponent(power) > 0.0f)) return;
        ray = Ray(OffsetOrigin(p.position, p.geometric_normal, direction), direction);
    }
}

}  // namespace caustica
