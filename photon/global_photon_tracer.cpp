#include "photon/global_photon_tracer.h"

#include "core/parallel_for.h"
#include "core/primitives.h"

namespace caustica {
namespace {

constexpr uint32_t kGlobalPhotonPass = 2;  // the pass key of the global photons' random numbers

struct CountStores {
    uint32_t count = 0;
    CA_HD void operator()(const Photon&, Vec3) { ++count; }
};

// Writes a photon's stores from its first place on, never more than the count pass found.
struct WriteStores {
    Photon* photons;
    Vec3* normals;
    uint32_t next, end;
    CA_HD void operator()(const Photon& photon, Vec3 normal) {
        if (next == end) return;
        photons[next] = photon;
        normals[next] = normal;
        ++next;
    }
};

struct CountGlobalPhotonsPass {
    SceneView scene;
    EmissionView emission;
    PhotonTraceSettings settings;
    Span<uint32_t> counts;
    CA_HD void operator()(int i) const {
        Rng rng(settings.seed, settings.sample, kGlobalPhotonPass, uint64_t(i));
        CountStores store;
        TraceGlobalPhoton(scene, EmitPhoton(emission, rng, uint32_t(i), settings.count), rng, settings.max_bounces,
                          store);
        counts[i] = store.count;
    }
};

struct WriteGlobalPhotonsPass {
    SceneView scene;
    EmissionView emission;
    PhotonTraceSettings settings;
    Span<const uint32_t> offsets;  // the photon's first place, and the total last
    Span<Photon> photons;
    Span<Vec3> normals;
    CA_HD void operator()(int i) const {
        const uint32_t first = offsets[i], end = offsets[i + 1];
        if (first == end) return;
        Rng rng(settings.seed, settings.sample, kGlobalPhotonPass, uint64_t(i));
        WriteStores store{photons.data(), normals.data(), first, end};
        TraceGlobalPhoton(scene, EmitPhoton(emission, rng, uint32_t(i), settings.count), rng, settings.max_bounces,
                          store);
    }
};

}  // namespace

GlobalPhotonTracer::GlobalPhotonTracer(const Backend& backend)
    : backend_(backend), offsets_(backend), total_(SpaceOf(backend), sizeof(uint32_t)) {}

void GlobalPhotonTracer::Trace(const SceneView& scene, const EmissionView& emission,
                               const PhotonTraceSettings& settings, Buffer<Photon>& photons, Buffer<Vec3>& normals) {
    const uint32_t n = emission.lights.empty() ? 0u : settings.count;
    offsets_.Resize(size_t(n) + 1, false);
    ParallelFor(backend_, "global photon count", n, CountGlobalPhotonsPass{scene, emission, settings, offsets_.span()});
    const uint32_t total = ExclusiveScanTotal<uint32_t>(backend_, offsets_.span(), total_);
    photons.Resize(total, false);
    normals.Resize(total, false);
    ParallelFor(backend_, "global photon store", n,
                WriteGlobalPhotonsPass{scene, emission, settings, offsets_.span(), photons.span(), normals.span()});
}

}  // namespace caustica
