// Caustic photon tracing (Zhou et al. 2008, section 5.3; Jensen 2001): photons leave the lights
// through the projection maps, bounce off mirrors and through glass, and are stored where they
// first reach a diffuse surface after at least one specular bounce. Others are dropped.
#pragma once

#include <cstdint>

#include "core/backend.h"
#include "core/buffer.h"
#include "core/readback.h"
#include "photon/photon.h"
#include "photon/projection_map.h"
#include "photon/scatter.h"
#include "photon/scene_view.h"

namespace caustica {

struct PhotonTraceSettings {
    uint32_t count = 1000000;  // photons emitted this frame
    int max_bounces = 8;       // specular interactions before a photon is dropped
    uint64_t seed = 1;
    uint32_t sample = 0;       // keys the random numbers with the seed: the same sample of a still
                               // scene traces the same photons, in every frame
};

class PhotonTracer {
public:
    explicit PhotonTracer(const Backend& backend);

    // Traces settings.count photons and writes the stored ones to photons (resized to their
    // number, in emission order, so the result does not depend on scheduling).
    void Trace(const SceneView& scene, const EmissionView& emission, const PhotonTraceSettings& settings,
               Buffer<Photon>& photons);

private:
    const Backend& backend_;
    Buffer<Photon> slots_;      // one per emitted photon
    Buffer<uint32_t> stored_;   // 1 where the slot holds a stored photon, then its output offset; the total last
    Readback total_;            // the stored photons' count
};

// The number in [0, 1) that picks photon 'index''s wavelength should it meet dispersive glass: the
// golden-ratio sequence shifted by offset (32-bit fixed point), so a sample's photons cover the
// spectrum evenly (any count of them: by the three-gap theorem no interval of length 1 / count holds
// more than three) while neighbours, which leave through the same cell, take far-apart wavelengths.
CA_HD CA_INLINE float PhotonWavelengthU(uint32_t index, uint32_t offset) {
    return float((index * 0x9e3779b9u + offset) >> 8) * (1.0f / 16777216.0f);
}

// A photon on its way: its ray, the power and wavelength it carries, its random numbers and the
// specular bounces it has taken.
struct PhotonPath {
    Ray ray;
    Rgb power;
    float wavelength = 0.0f;    // nm; 0: all
    float wavelength_u = 0.0f;  // picks the wavelength should it meet dispersive glass
    Rng rng;
    int bounce = 0;

    PhotonPath() = default;
    CA_HD PhotonPath(const EmittedPhoton& photon, float u, const Rng& random)
        : ray(photon.origin, photon.direction), power(photon.power), wavelength_u(u), rng(random) {}
};

enum class PhotonFate : uint8_t { Travels, Stored, Lost };

// Follows the photon to its next hit. It is stored (in *stored) when it lands on a diffuse surface
// after at least one specular bounce; it travels on from a mirror or through glass; else it is
// lost. A photon is light of all wavelengths until it meets dispersive glass; there it takes the
// wavelength SampleVisibleWavelength(wavelength_u), and its power the colour of that wavelength
// (spectrum.h). kDispersive false leaves that out, for scenes whose glass does not disperse
// (their photons then trace as fast as before dispersion existed).
template <bool kDispersive>
CA_HD CA_INLINE PhotonFate StepPhoton(const SceneView& scene, PhotonPath& path, int max_bounces, Photon* stored) {
    const Hit hit = scene.Closest(path.ray);
    if (!hit.Valid()) return PhotonFate::Lost;
    const SurfacePoint p = scene.Describe(path.ray, hit);
    if (p.material->type == SurfaceType::Diffuse) {
        if (path.bounce == 0) return PhotonFate::Lost;  // direct light is shaded exactly, not with photons
        stored->position = p.position;
        stored->power = path.power;
        stored->direction = path.ray.direction;
        return PhotonFate::Stored;
    }
    if (path.bounce == max_bounces) return PhotonFate::Lost;
    if (kDispersive && scene.TakesWavelength(*p.material, path.wavelength))
        scene.TakeWavelength(path.wavelength_u, &path.wavelength, &path.power);
    const SpecularEvent e = ScatterSpecular(p, path.ray.direction, hit.t, path.rng.NextFloat(), path.wavelength);
    path.power *= e.weight;
    if (!(MaxComponent(path.power) > 0.0f)) return PhotonFate::Lost;
    path.ray = Ray(OffsetOrigin(p.position, p.geometric_normal, e.direction), e.direction);
    ++path.bounce;
    return PhotonFate::Travels;
}

}  // namespace caustica
