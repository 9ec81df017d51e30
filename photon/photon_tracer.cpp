#include "photon/photon_tracer.h"

#include <type_traits>

#include "core/parallel_for.h"
#include "core/parallel_for_paths.h"
#include "core/primitives.h"

namespace caustica {
namespace {

constexpr uint32_t kPhotonPass = 1;  // the pass key of the photon random numbers
constexpr uint32_t kPhotonWavelengthPass = 2;  // of the shift of a sample's photon wavelengths

// Photon i's path, a bounce a step (ParallelForPaths): slot i holds it if it is stored.
template <bool kDispersive>
struct TracePhotonsPass {
    SceneView scene;
    EmissionView emission;
    PhotonTraceSettings settings;
    uint32_t wavelength_offset;  // of PhotonWavelengthU, drawn per sample
    Span<Photon> slots;
    Span<uint32_t> stored;

    struct State {
        PhotonPath path;
        uint32_t index;
    };
    CA_HD bool Start(uint32_t i, State& s) const {
        Rng rng(settings.seed, settings.sample, kPhotonPass, uint64_t(i));
        const EmittedPhoton photon = EmitPhoton(emission, rng, i, settings.count);
        s.path = PhotonPath(photon, kDispersive ? PhotonWavelengthU(i, wavelength_offset) : 0.0f, rng);
        s.index = i;
        return true;
    }
    CA_HD bool Step(State& s) const {
        const PhotonFate fate = StepPhoton<kDispersive>(scene, s.path, settings.max_bounces, &slots[s.index]);
        if (fate != PhotonFate::Travels) stored[s.index] = fate == PhotonFate::Stored ? 1u : 0u;
        return fate == PhotonFate::Travels;
    }
};

// Moves each stored photon to its place in the output (offsets from an exclusive scan of the flags).
struct GatherStoredPass {
    Span<const Photon> slots;
    Span<const uint32_t> offsets;  // a photon is stored where the next offset differs (the total last)
    Span<Photon> out;
    CA_HD void operator()(int i) const {
        if (offsets[i + 1] != offsets[i]) out[offsets[i]] = slots[i];
    }
};

}  // namespace

PhotonTracer::PhotonTracer(const Backend& backend)
    : backend_(backend), slots_(backend), stored_(backend), total_(SpaceOf(backend), sizeof(uint32_t)) {}

void PhotonTracer::Trace(const SceneView& scene, const EmissionView& emission, const PhotonTraceSettings& settings,
                         Buffer<Photon>& photons) {
    const uint32_t n = emission.lights.empty() ? 0u : settings.count;
    slots_.Resize(n, false);
    stored_.Resize(size_t(n) + 1, false);
    const uint32_t wavelength_offset = Rng(settings.seed, settings.sample, kPhotonWavelengthPass, 0).NextU32();
    const auto trace = [&](auto dispersive) {
        ParallelForPaths(backend_, "photon trace", n,
                         TracePhotonsPass<decltype(dispersive)::value>{scene, emission, settings, wavelength_offset,
                                                                       slots_.span(), stored_.span()});
    };
    if (scene.Disperses()) trace(std::true_type());
    else trace(std::false_type());
    const uint32_t total = ExclusiveScanTotal<uint32_t>(backend_, stored_.span(), total_);
    photons.Resize(total, false);
    ParallelFor(backend_, "photon gather", n, GatherStoredPass{slots_.span(), stored_.span(), photons.span()});
}

}  // namespace caustica
