// The frame pipeline: orders the passes of a frame and owns their memory (ARCHITECTURE.md, "One
// frame, as data"). Prepare() takes a frame's scene and rebuilds the geometry tree; each
// AddSample() traces a new set of photons, rebuilds the photon tree and adds one jittered sample
// of every pixel, so a still view converges while a moving one (Prepare every frame) stays
// responsive. Buffers are kept and reused: a warm frame allocates nothing.
#pragma once

#include <cstdint>
#include <memory>

#include "core/backend.h"
#include "core/buffer.h"
#include "photon/photon.h"
#include "photon/progressive_radius.h"
#include "photon/radiance.h"
#include "renderer/frame_input.h"
#include "renderer/output/image.h"
#include "shaders_cuda/eye_passes.h"

namespace caustica {

enum class Integrator : uint8_t { PhotonMapping, Path };

struct RenderSettings {
    uint32_t photons = 200000;  // emitted per sample
    int k = 50;                 // photons per radiance estimate
    int max_bounces = 8;        // specular bounces of photons and eye rays
    int specular_splits = 0;    // bounces at which eye rays follow both branches at glass (EyeTreeSettings)
    int shadow_samples = 1;     // shadow rays per diffuse point and area light
    uint64_t seed = 1;
    float exposure = 1.0f;
    ToneMap tone_map = ToneMap::None;  // applied after the exposure, before the sRGB encoding
    PhotonFilter filter = PhotonFilter::Cone;
    // How the caustic gather finds its k photons: the exact search was faster than Algorithm 6 on
    // the GPU and the CPU (docs/notes/photon-knn-performance.md).
    KnnMethod knn = KnnMethod::Exact;
    // Caustic queries gather photons within this fraction of the scene's diagonal at most.
    float max_radius_fraction = 0.02f;
    // Indirect light from the global photon map (shaders_cuda/indirect_passes.h): its photons emitted
    // per sample, and the photons of each estimate at a visible point, within this fraction of the
    // scene's diagonal at most (wider than the caustics': indirect light varies slowly, and its
    // estimate should be smooth).
    bool indirect = false;
    uint32_t global_photons = 250000;
    int global_k = 64;
    float global_max_radius_fraction = 0.1f;
    // Final gathering's rays per diffuse end and sample (shaders_cuda/indirect_passes.h, (b)); 0:
    // the density estimate at the visible point, (a).
    uint32_t gather_rays = 0;
    // The edge-aware a-trous filter of each sample's indirect light (shaders_cuda/denoise.h).
    bool denoise = false;
    // Progressive photon mapping (photon/progressive_radius.h): both maps' estimates of sample i
    // gather within the k-th photon's distance times the radius's shrinking after i samples.
    bool progressive = false;
    float alpha = kDefaultProgressiveAlpha;
    ShadeView view = ShadeView::Full;
    // Photon mapping, or the reference path tracer (shaders_cuda/path_tracer.h), which traces no
    // photons and shows only the image (no debug view).
    Integrator integrator = Integrator::PhotonMapping;
    // The index of the first sample that AddSample renders: a still's samples shared out between
    // devices or processes keep their random numbers (keyed by the sample's index in the whole).
    uint32_t first_sample = 0;
    // On the GPU, the SMs (rounded up to the driver's granularity) that the next frame's geometry
    // tree gets while a sample runs, its last passes on the rest (FrameRenderer::PrepareGeometryAhead);
    // 0: no split, every pass may use every SM.
    int geometry_ahead_sms = 0;
};

// geometry_ahead_sms for a sequence on 'backend': GeometryAheadSms of its SMs on a GPU, 0 on the CPU.
int DefaultGeometryAheadSms(const Backend& backend);
// The share of a GPU of device_sms SMs for the geometry ahead: three tenths, to the nearest multiple
// of 8 (a share's granularity on sm_90: cuda.h, cuDevSmResourceSplitByCount), on a GPU of at least 64
// SMs; 0 on smaller ones, where no share was measured. On an H200's 132 SMs that is 40: against 32
// the nine frame benchmarks took as long in sum, and the slowest of them, the champagne's, 5.31 ->
// 5.11 ms, while the fastest (the prism's and the diamond's) took 0.07-0.09 ms longer
// (docs/notes/frame-performance.md, the share of the geometry ahead).
int GeometryAheadSms(int device_sms);

// What turns the mean of the samples into the image: the exposure (the debug views' colours are
// their own scale: 1).
float DisplayScale(const RenderSettings& settings);
// The tone map of the 8-bit images: the settings' (the debug views': none).
ToneMap DisplayToneMap(const RenderSettings& settings);
// The image of 'samples' samples whose float sum is 'sum': their mean times display_scale (a sum
// passed as a temporary is scaled in its own storage).
Image ImageOfSum(Image sum, uint32_t samples, float display_scale);
// The same in place, where the sum is not needed after (a writer's frame: no second image to allocate).
void ScaleSumToImage(Image& sum, uint32_t samples, float display_scale);

// Milliseconds spent in each pass of the last sample (moving_geometry, the moving objects and
// water placed on the device, and geometry_tree: of the last Prepare), from where its chain's queue
// stood when the pass was queued to where it stood after (core/pass_clock.h). On the GPU the eye,
// bounce and shadow passes run beside photon tracing and the photon tree, so the frame takes less
// than the sum. shadow also holds the gathering of the caustic search's queries, just before the
// shadow rays, which end the eye passes' chain.
struct PassTimes {
    double moving_geometry = 0, geometry_tree = 0, photon_trace = 0, photon_tree = 0, global_trace = 0, global_tree = 0,
           eye = 0, bounces = 0, shadow = 0, shade = 0, indirect = 0, composite = 0;
};

class FrameRenderer {
public:
    explicit FrameRenderer(const Backend& backend);
    ~FrameRenderer();

    // Uploads a scene's materials and textures (once per scene, or when they change).
    void SetMaterials(const SceneMaterials& materials);
    // Uploads the frame's scene, rebuilds the geometry tree and starts a new accumulation.
    void Prepare(const FrameInput& frame, const RenderSettings& settings);
    // Renders one more sample into the accumulation.
    void AddSample();
    // Places the next frame's geometry and builds its tree while the frame's first sample runs:
    // called after Prepare, before AddSample. On the GPU another host thread issues it, on
    // geometry_ahead_sms SMs (core/sm_share.h) beside the sample's passes, which keep the rest
    // for their last passes; those SMs then join the sample's caustic search. It goes to a second
    // set of buffers (the frames alternate between two), so it waits for no pass of this frame.
    // The next Prepare must take a frame equal to 'next' (named by a geometry_id) and then finds
    // the geometry ready; the frames are those of Prepare alone (on the CPU bit for bit, on the GPU
    // within its rounding). A sequence of frames so hides the tree's build, a chain of short
    // launches, behind the passes that fill the GPU.
    void PrepareGeometryAhead(const FrameInput& next);

    // Waits until the GPU work queued so far, the geometry prepared ahead included, has finished
    // (no-op on the CPU) and reports GPU errors.
    void Synchronize() const;

    uint32_t samples() const;
    uint32_t stored_photons() const;
    // Photons the last sample stored in the global map (0 without indirect light).
    uint32_t stored_global_photons() const;
    // Eye paths the last sample traced: the camera rays and every branch of their ray trees.
    uint32_t eye_paths() const;
    // Host copy of the photons the last sample stored (the caustic map's, and the global map's).
    std::vector<Photon> StoredPhotons() const;
    std::vector<Photon> StoredGlobalPhotons() const;
    // The last Prepare's and sample's pass times (waits for those passes to finish).
    const PassTimes& times() const;
    // The mean of the samples so far, linear RGB times the exposure.
    Image CurrentImage() const;
    // The float sum of the samples so far (linear RGB, before the exposure).
    Image SampleSum() const;
    // SampleSum in two steps, so that the next frame is queued while the sum travels: Start queues
    // its copy into page-locked host memory behind the samples queued so far (Prepare and AddSample
    // may follow at once: the GPU runs them after the copy), Finish waits for it and copies it into
    // 'sum', whose pixels keep their storage when it has the frame's size (a frame's megabytes in
    // fresh host memory cost page faults). One download at a time. Finish may run on another
    // thread (with this GPU current) while this one renders on, until the next Start.
    void StartSampleSumDownload();
    void FinishSampleSumDownload(Image& sum);
    // What 8-bit images of CurrentImage() pass through (DisplayToneMap of the settings).
    ToneMap tone_map() const;
    // The same as RGBA8 sRGB pixels, tone-mapped (the viewer's texture), read back through
    // page-locked memory and valid until the next call: a new 8 MB vector a 1080p frame took page
    // faults and the driver's staging of pageable memory.
    Span<const uint32_t> DisplayPixels();
    // What each pixel's eye ray met first in the last sample, row by row.
    std::vector<FirstHit> FirstHits() const;

private:
    void UploadGeometry(const FrameInput& frame, int geometry);
    void PlaceAndBuildGeometry(int geometry);

    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace caustica
