#include "renderer/frame_renderer.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include "core/pass_clock.h"
#include "core/readback.h"
#include "core/sm_share.h"
#include "core/thread_stream.h"
#include "core/worker_thread.h"
#include "kdtree/triangle/bfs_builder.h"
#include "photon/global_photon_tracer.h"
#include "photon/photon_map.h"
#include "photon/photon_tracer.h"
#include "photon/progressive_radius.h"
#include "shaders_cuda/indirect_passes.h"
#include "shaders_cuda/path_tracer.h"

namespace caustica {

namespace {

// Starts reading 'bytes' at src back through 'readback', made (or made larger) to hold them.
void StartReadback(std::unique_ptr<Readback>& readback, MemorySpace space, const void* src, size_t bytes) {
    if (!readback || readback->capacity() < bytes)
        readback = std::make_unique<Readback>(space, std::max<size_t>(bytes, 1));
    readback->Start(src, bytes);
}

// The frame's geometry tree weighs a node's traversal at 0.75 of a triangle's intersection in the
// SAH, where the builder's default (SahParams) weighs them equally: the deeper tree costs its build
// a little more and its rays a little less, and a frame's sample traces millions of rays through
// it while the next frame's tree is built beside it. On an H200 (run 285) the champagne's, the
// Cornell box's and the orbit's frames took 1.5-2.2% less, the others as long, frames one after
// another too; at 0.5 the ring's frames one after another took 5% longer, their tree built in the
// frame (docs/notes/frame-performance.md, the frame's tree).
SahParams FrameTreeParams() {
    SahParams params;
    params.cost_traversal = 0.75f;
    return params;
}

// The views of light (not of a debug quantity), which the exposure and the tone map apply to.
bool ShowsLight(const RenderSettings& settings) {
    return settings.view == ShadeView::Full || settings.view == ShadeView::CausticOnly;
}

// A frame's projection maps in the backend's memory. They are built and uploaded again only when
// the lights, the specular objects' bounds or the scene's bounds differ from those they were built
// for: a still light costs a frame nothing, where building its maps took the host 0.14-0.24 ms
// while the GPU waited (docs/notes/frame-performance.md, what the GPU waits for).
class EmissionBuffers {
public:
    EmissionBuffers(const Backend& b, EmissionCoverage coverage)
        : coverage_(coverage), lights_(b), cdf_(b), cells_(b) {}

    void Update(const std::vector<LightSource>& lights, const std::vector<SpecularBound>& specular,
                const Aabb& bounds) {
        if (built_ && lights == built_lights_ && specular == built_specular_ && bounds.lo == built_bounds_.lo &&
            bounds.hi == built_bounds_.hi)
            return;
        const ProjectionMaps& maps = builder_.Build(lights, specular, bounds, coverage_);
        lights_.Upload(maps.lights);
        cdf_.Upload(maps.light_cdf);
        cells_.Upload(maps.cells);
        built_lights_ = lights;
        built_specular_ = specular;
        built_bounds_ = bounds;
        built_ = true;
    }
    EmissionView View() const { return {lights_.span(), cdf_.span(), cells_.span()}; }

private:
    EmissionCoverage coverage_;
    ProjectionMapBuilder builder_;
    Buffer<LightEmission> lights_;
    Buffer<float> cdf_;
    Buffer<uint32_t> cells_;
    bool built_ = false;
    std::vector<LightSource> built_lights_;
    std::vector<SpecularBound> built_specular_;
    Aabb built_bounds_;
};

// The passes of one chain (a host thread's), each the span between two marks of the chain's clock,
// read into PassTimes when the times are asked for.
class PassTimer {
public:
    explicit PassTimer(const Backend& backend) : clock_(backend) {}
    void Clear() {
        clock_.Clear();
        passes_.clear();
    }
    int Mark() { return clock_.Mark(); }
    // The pass that began at mark 'from' ends here; returns this mark.
    int End(double PassTimes::*time, int from) {
        passes_.push_back({time, from, clock_.Mark()});
        return passes_.back().to;
    }
    const PassClock& clock() const { return clock_; }
    void AddTo(PassTimes& times) const {
        for (const Pass& p : passes_) times.*p.time += clock_.Ms(p.from, p.to);
    }

private:
    struct Pass {
        double PassTimes::*time;
        int from, to;
    };
    PassClock clock_;
    std::vector<Pass> passes_;
};

// Ends a chain of passes on another stream (an SM share's, or the photon chain's): the calling
// thread's own stream waits for them.
void LeaveStream(std::optional<ThreadStreamScope>& on_stream, PassTimer& timer) {
    if (!on_stream) return;
    const QueuePoint done = timer.clock().Point(timer.Mark());
    on_stream.reset();
    done.WaitHere();
}

// A frame's geometry in the backend's memory: what UploadGeometry uploads and PlaceAndBuildGeometry
// places, and its tree.
struct FrameGeometry {
    Buffer<Triangle> triangles;
    Buffer<TriangleShading> shading;
    uint64_t id = 0;  // the FrameInput's whose triangles and shading these are
    Buffer<float> heightfield_base, heightfield_heights;
    Buffer<SineWave> waves;
    Buffer<Triangle> moving_base;
    Buffer<TriangleShading> moving_base_shading;
    SahTree tree;

    explicit FrameGeometry(const Backend& b)
        : triangles(b), shading(b), heightfield_base(b), heightfield_heights(b), waves(b), moving_base(b),
          moving_base_shading(b), tree(b) {}
};

}  // namespace

int DefaultGeometryAheadSms(const Backend& backend) {
    return backend.IsGpu() ? GeometryAheadSms(SmCount(backend.device())) : 0;
}

int GeometryAheadSms(int device_sms) {
    constexpr int kLeastDeviceSms = 64, kGranularity = 8;
    return device_sms >= kLeastDeviceSms ? (device_sms * 3 / 10 + kGranularity / 2) / kGranularity * kGranularity : 0;
}

float DisplayScale(const RenderSettings& settings) { return ShowsLight(settings) ? settings.exposure : 1.0f; }

ToneMap DisplayToneMap(const RenderSettings& settings) {
    return ShowsLight(settings) ? settings.tone_map : ToneMap::None;
}

struct FrameRenderer::State {
    const Backend& backend;
    RenderSettings settings;
    CameraView camera;
    Rgb ambient;
    float max_radius = 0;
    // The frame's geometry is one of two: the next frame's (PrepareGeometryAhead) is placed and
    // built in the other while this frame's passes read theirs.
    FrameGeometry geometries[2];
    int current = 0;  // the frame's: geometries[current]
    // The placements of the geometry being prepared (UploadGeometry), at placement_time.
    std::vector<HeightfieldView> heightfields;  // generated over their triangles every Prepare
    std::vector<MovingObjectView> moving_objects;  // placed over their triangles every Prepare
    double placement_time = 0;
    Buffer<SurfaceMaterial> materials;
    Buffer<TextureView> textures;
    Buffer<uint32_t> texels;
    bool has_glass = false;  // only glass splits eye paths
    EnvironmentView environment;
    Buffer<Rgb> environment_texels;
    Buffer<Rgb> spectrum;  // SpectralRgbTable(), once a material disperses
    bool dispersive = false;  // some material disperses
    std::vector<LightSource> frame_lights;  // the frame's, with their shadow rays, as in 'lights'
    Buffer<LightSource> lights;
    uint32_t shadow_rays_per_end = 0;
    EmissionBuffers emission, global_emission;
    // Trees, photons and passes.
    // The geometry's passes and tree builds have a backend of their own (scratch): the next frame's
    // are issued from a third host thread while this one issues the sample's passes.
    Backend geometry_backend;
    BfsSahBuilder geometry_builder;
    PhotonTracer photon_tracer;
    Buffer<Photon> photons;
    PhotonMap photon_map;
    // Indirect light: the global photons, the normals of the surfaces they lie on, their map.
    GlobalPhotonTracer global_tracer;
    Buffer<Photon> global_photons;
    Buffer<Vec3> global_normals;
    PhotonMap global_map;
    float global_max_radius = 0;
    EyeState eye;
    IndirectState indirect;
    // The caustic search's chunks, handed out slowest first by the last sample's times; where the
    // SMs are shared (PrepareGeometryAhead), the first share joins every sample's search, after the
    // next frame's tree where it builds one (JoinGeometryAhead).
    KnnJoin caustic_join;
    Buffer<Rgb> sum;
    std::unique_ptr<Readback> sum_download;  // StartSampleSumDownload's copy of 'sum'
    bool download_started = false;
    int download_width = 0, download_height = 0;  // its image's size
    Buffer<uint32_t> display;
    std::unique_ptr<Readback> display_download;  // DisplayPixels' copy of 'display'
    uint32_t samples = 0;
    // On the GPU the eye passes are issued from a second host thread, with their own backend
    // (scratch, and a lower launch priority), while this one issues the photon passes (AddSample)
    // on a stream of the highest priority.
    Backend eye_backend;
    PriorityStream photon_stream;
    // Each chain's passes, timed without waiting for them: Prepare's, a sample's photon and shading
    // passes, its eye passes (the second thread's). times() reads them into 'times'.
    PassTimer prepare_timer, sample_timer, eye_timer;
    bool eye_chain = false;  // the last sample's eye passes ran as a chain of their own (eye_timer)
    QueuePoint queries_ready;  // the eye passes' chain after the caustic queries, before its shadow pass
    QueuePoint eye_done;       // the eye passes' chain after the sample's last eye pass
    // The next frame's geometry, prepared while the frame's first sample runs (PrepareGeometryAhead):
    // on the GPU its passes run on the first of two shares of the SMs and the sample's photon and
    // shading passes on the second, where they do not hold every SM until their last wave.
    std::unique_ptr<SmShares> shares;  // on the GPU with RenderSettings::geometry_ahead_sms
    int shares_sms = 0;                // the SMs asked for the first share
    PriorityStream ahead_stream;       // the geometry ahead's on the GPU without shares
    PassClock prepare_clock;   // marks prepared
    QueuePoint prepared;       // after Prepare: the frames before are done, the frame's tree built
    QueuePoint geometry_ready;  // after the last geometry placed and built
    uint64_t ahead_geometry_id = 0;  // the frame whose geometry is prepared ahead; 0: none
    double ahead_time = 0;
    bool ahead_issued = false;  // the geometry ahead's passes are all queued (its thread waited for)
    PassTimes times;
    // Last: they finish their tasks before the rest goes.
    std::unique_ptr<WorkerThread> eye_thread;
    std::unique_ptr<WorkerThread> ahead_thread;  // issues the geometry prepared ahead

    explicit State(const Backend& b)
        : backend(b), geometries{FrameGeometry(b), FrameGeometry(b)}, materials(b), textures(b), texels(b),
          environment_texels(b), spectrum(b), lights(b), emission(b, EmissionCoverage::TowardSpecular),
          global_emission(b, EmissionCoverage::Everywhere), geometry_backend(b.Sibling()),
          geometry_builder(geometry_backend, FrameTreeParams()), photon_tracer(b), photons(b), photon_map(b),
          global_tracer(b), global_photons(b), global_normals(b), global_map(b), eye(b), indirect(b), caustic_join(b),
          sum(b), display(b),
          eye_backend(b.Background()), photon_stream(b.IsGpu()), prepare_timer(b), sample_timer(b),
          eye_timer(eye_backend), ahead_stream(b.IsGpu()), prepare_clock(b),
          eye_thread(b.IsGpu() ? std::make_unique<WorkerThread>() : nullptr),
          ahead_thread(b.IsGpu() ? std::make_unique<WorkerThread>() : nullptr) {}

    // Waits until the geometry prepared ahead is queued (its thread's read-backs done); rethrows its
    // error.
    void WaitForAheadIssued() {
        if (ahead_geometry_id == 0 || ahead_issued) return;
        ahead_issued = true;
        if (ahead_thread) ahead_thread->Wait();
    }
    // After a sample's caustic search is queued, the same, and the first share joins the search
    // once its queue gets there: after the geometry's build in a frame's first sample, at once in
    // the later samples of a frame (a sequence's), where its SMs would otherwise idle until the
    // sample's end.
    void JoinGeometryAhead() {
        WaitForAheadIssued();
        if (!shares) return;
        const ThreadStreamScope first(shares->FirstStream());
        caustic_join.Join();
    }

    // The views that show one photon query's value per pixel follow one path per pixel: a sum over a
    // ray tree would blend their colours. Without glass no path splits: the passes need not prepare
    // for it.
    EyeTreeSettings EyeTree() const {
        const bool one_path = settings.view == ShadeView::Photons || settings.view == ShadeView::KnnRadius;
        const int wavelengths = dispersive ? (one_path ? 1 : kHeroWavelengths) : 0;
        return {settings.max_bounces, one_path || !has_glass ? 0 : settings.specular_splits,
                settings.view == ShadeView::Full, wavelengths};
    }

    float DisplayScale() const { return caustica::DisplayScale(settings); }

    SceneView View() const {
        const FrameGeometry& g = geometries[current];
        EnvironmentView sky = environment;
        sky.texels = environment_texels.span();
        return {g.triangles.span(), g.shading.span(), materials.span(), textures.span(), texels.span(),
                g.tree.View(), sky, SpectrumView{dispersive ? spectrum.span() : Span<const Rgb>()}};
    }
};

FrameRenderer::FrameRenderer(const Backend& backend) : state_(std::make_unique<State>(backend)) {}
FrameRenderer::~FrameRenderer() = default;

void FrameRenderer::SetMaterials(const SceneMaterials& materials) {
    State& s = *state_;
    s.materials.Upload(materials.materials);
    s.textures.Upload(materials.textures);
    s.texels.Upload(materials.texels);
    s.has_glass = std::any_of(materials.materials.begin(), materials.materials.end(),
                              [](const SurfaceMaterial& m) { return m.type == SurfaceType::Glass; });
    s.environment = materials.environment;
    s.environment_texels.Upload(materials.environment_texels);
    s.dispersive = std::any_of(materials.materials.begin(), materials.materials.end(),
                               [](const SurfaceMaterial& m) { return m.Dispersive(); });
    if (s.dispersive && s.spectrum.size() == 0) s.spectrum.Upload(SpectralRgbTable());
}

// The frame's geometry uploaded into geometries[geometry] where it changed, on the calling thread's
// stream, and its placements kept for PlaceAndBuildGeometry: once this returns, 'frame' is no
// longer read.
void FrameRenderer::UploadGeometry(const FrameInput& frame, int geometry) {
    State& s = *state_;
    FrameGeometry& g = s.geometries[geometry];
    if (frame.geometry_id == 0 || frame.geometry_id != g.id) {
        g.triangles.Upload(frame.triangles);
        g.shading.Upload(frame.shading);
        g.heightfield_base.Upload(frame.heightfield_base);
        g.waves.Upload(frame.waves);
        g.moving_base.Upload(frame.moving_base);
        g.moving_base_shading.Upload(frame.moving_base_shading);
        size_t vertices = 0;
        for (const HeightfieldView& f : frame.heightfields)
            vertices = std::max(vertices, size_t(f.grid.quads_x + 1) * (f.grid.quads_z + 1));
        g.heightfield_heights.Resize(vertices, false);
        g.id = frame.geometry_id;
    }
    // The placements change every frame; what they place was uploaded with the geometry.
    s.heightfields = frame.heightfields;
    s.moving_objects = frame.moving_objects;
    s.placement_time = frame.time;
}

// geometries[geometry]'s moving objects and water placed at the last UploadGeometry's time and its
// tree built, timed by the prepare timer, on the calling thread's stream.
void FrameRenderer::PlaceAndBuildGeometry(int geometry) {
    State& s = *state_;
    FrameGeometry& g = s.geometries[geometry];
    s.prepare_timer.Clear();
    if (!s.heightfields.empty() || !s.moving_objects.empty()) {
        const int start = s.prepare_timer.Mark();
        RunMovingObjectPasses(s.geometry_backend, s.moving_objects, g.moving_base.span(),
                              g.moving_base_shading.span(), g.triangles.span(), g.shading.span());
        RunHeightfieldPasses(s.geometry_backend, s.heightfields, g.heightfield_base.span(), g.waves.span(),
                             s.placement_time, g.heightfield_heights.span(), g.triangles.span(), g.shading.span());
        s.prepare_timer.End(&PassTimes::moving_geometry, start);
    }
    const int tree_start = s.prepare_timer.Mark();
    s.geometry_builder.Build(g.triangles.span(), g.tree);
    s.geometry_ready = s.prepare_timer.clock().Point(s.prepare_timer.End(&PassTimes::geometry_tree, tree_start));
}

void FrameRenderer::PrepareGeometryAhead(const FrameInput& next) {
    State& s = *state_;
    CA_CHECK_MSG(next.geometry_id != 0, "geometry prepared ahead must be named (FrameInput::geometry_id)");
    CA_CHECK_MSG(s.ahead_geometry_id == 0 && s.samples == 0,
                 "PrepareGeometryAhead comes after Prepare, before the frame's samples, once a frame");
    s.ahead_geometry_id = next.geometry_id;
    s.ahead_time = next.time;
    s.ahead_issued = false;
    const int geometry = 1 - s.current;
    void* stream = s.shares ? s.shares->FirstStream() : s.ahead_stream.get();
    {
        const ThreadStreamScope scope(stream);
        s.prepared.WaitHere();
        UploadGeometry(next, geometry);  // copies only where the geometry changed
    }
    auto issue = [this, geometry, stream] {
        const ThreadStreamScope scope(stream);
        PlaceAndBuildGeometry(geometry);
    };
    if (s.ahead_thread) s.ahead_thread->Start(issue);
    else issue();
}

void FrameRenderer::Prepare(const FrameInput& frame, const RenderSettings& settings) {
    State& s = *state_;
    s.settings = settings;
    s.camera = frame.camera;
    s.ambient = frame.ambient;
    s.max_radius = settings.max_radius_fraction * Length(frame.bounds.Extent());
    s.WaitForAheadIssued();  // its passes queued before their share may be replaced below
    const int ahead_sms = s.backend.IsGpu() ? settings.geometry_ahead_sms : 0;
    if (ahead_sms != s.shares_sms) {
        s.shares = ahead_sms > 0 ? std::make_unique<SmShares>(s.backend.device(), ahead_sms) : nullptr;
        s.shares_sms = ahead_sms;
    }
    if (s.ahead_geometry_id != 0) {
        CA_CHECK_MSG(frame.geometry_id == s.ahead_geometry_id && frame.time == s.ahead_time,
                     "Prepare after PrepareGeometryAhead takes the frame whose geometry was prepared");
        s.ahead_geometry_id = 0;
        s.current = 1 - s.current;
        s.geometry_ready.WaitHere();
    } else {
        UploadGeometry(frame, s.current);
        PlaceAndBuildGeometry(s.current);
    }
    std::vector<LightSource> frame_lights = frame.lights;
    for (LightSource& l : frame_lights) l.shadow_rays = l.IsArea() ? uint32_t(settings.shadow_samples) : 1u;
    if (frame_lights != s.frame_lights) {  // still lights: nothing to upload
        s.lights.Upload(frame_lights);
        s.frame_lights = std::move(frame_lights);
    }
    s.shadow_rays_per_end = ShadowRaysPerEnd(s.frame_lights);
    s.emission.Update(frame.lights, frame.specular, frame.bounds);
    s.global_max_radius = settings.global_max_radius_fraction * Length(frame.bounds.Extent());
    if (settings.indirect)
        s.global_emission.Update(frame.lights, {}, frame.bounds);

    const size_t pixels = size_t(frame.camera.width) * size_t(frame.camera.height);
    s.sum.Resize(pixels, false);
    s.sum.FillBytes(0);
    s.display.Resize(pixels, false);
    s.samples = 0;
    s.prepare_clock.Clear();
    s.prepared = s.prepare_clock.Point(s.prepare_clock.Mark());
}

void FrameRenderer::AddSample() {
    State& s = *state_;
    const SceneView scene = s.View();
    const uint32_t sample = s.settings.first_sample + s.samples;
    const SampleKey key{s.settings.seed, sample};
    // The passes this sample skips show as 0.
    PassTimer& timer = s.sample_timer;
    timer.Clear();
    s.caustic_join.Clear();
    s.eye_chain = s.settings.integrator != Integrator::Path;
    const int start = timer.Mark();

    if (s.settings.integrator == Integrator::Path) {
        RunEyePass(s.backend, scene, s.camera, key, s.eye);
        const int traced = timer.End(&PassTimes::eye, start);
        RunPathTracePass(s.backend, scene, s.lights.span(), s.settings.max_bounces, key, s.eye);
        const int shaded = timer.End(&PassTimes::shade, traced);
        s.JoinGeometryAhead();
        ++s.samples;
        RunCompositePass(s.backend, s.eye, s.sum.span(), s.samples, s.DisplayScale(), DisplayToneMap(s.settings),
                         s.display.span());
        timer.End(&PassTimes::composite, shaded);
        return;
    }

    // The eye passes do not need the photons. On the GPU they run beside the photon passes, whose
    // tree levels are short launches that leave most of the GPU idle; each chain times its own
    // passes, so the two chains' times overlap in the frame's. The chains wait for each other on
    // the GPU, not on the host: the eye passes for the sample's start, the shading for the eye passes.
    const bool traversal_cost = s.settings.view == ShadeView::TraversalCost;
    const QueuePoint tree_built = timer.clock().Point(start);  // Prepare built it before this mark
    auto eye_passes = [&s, scene, key, traversal_cost, tree_built] {
        PassTimer& eye_timer = s.eye_timer;
        eye_timer.Clear();
        tree_built.WaitHere();
        const int eye_start = eye_timer.Mark();
        RunEyePass(s.eye_backend, scene, s.camera, key, s.eye);
        const int traced = eye_timer.End(&PassTimes::eye, eye_start);
        s.eye_done = eye_timer.clock().Point(traced);
        if (traversal_cost) return;  // the heat map replaces the rest of the sample
        RunBouncePasses(s.eye_backend, scene, s.lights.span(), s.EyeTree(), key, s.eye);
        const int bounced = eye_timer.End(&PassTimes::bounces, traced);
        RunCausticQueriesPass(s.eye_backend, s.eye);
        s.queries_ready = eye_timer.clock().Point(eye_timer.Mark());
        RunShadowPass(s.eye_backend, scene, s.lights.span(), s.shadow_rays_per_end, key, s.eye);
        s.eye_done = eye_timer.clock().Point(eye_timer.End(&PassTimes::shadow, bounced));
    };
    if (s.eye_thread) s.eye_thread->Start(eye_passes);
    else eye_passes();

    // The photon passes on a stream of the highest priority, from the sample's start: CUB's kernels
    // and the fills among them go before the eye passes' blocks, as the passes' own kernels do
    // (core/thread_stream.h). Where the geometry is prepared ahead on a share of the SMs, that is
    // the other share's stream, on which the rest of the sample runs too: the photon trace's
    // persistent warps hold every SM they reach until their photons run out, and from a stream that
    // reached every SM they held the next frame's tree back as well (docs/notes/frame-performance.md).
    // Elsewhere the photon chain's own stream, which the thread's own stream waits for after it.
    std::optional<ThreadStreamScope> on_photon_stream, on_share;
    if (s.shares) on_share.emplace(s.shares->SecondStream());
    else if (s.photon_stream.get()) on_photon_stream.emplace(s.photon_stream.get());
    if (on_share || on_photon_stream) tree_built.WaitHere();
    PhotonTraceSettings photon_settings;
    photon_settings.count = s.settings.photons;
    photon_settings.max_bounces = s.settings.max_bounces;
    photon_settings.seed = s.settings.seed;
    photon_settings.sample = sample;
    s.photon_tracer.Trace(scene, s.emission.View(), photon_settings, s.photons);
    const int traced = timer.End(&PassTimes::photon_trace, start);
    s.photon_map.Build(s.photons.span(), {}, s.settings.k, s.settings.knn);
    int mark = timer.End(&PassTimes::photon_tree, traced);

    const bool indirect = s.settings.indirect && s.settings.view == ShadeView::Full;
    if (indirect) {
        photon_settings.count = s.settings.global_photons;
        s.global_tracer.Trace(scene, s.global_emission.View(), photon_settings, s.global_photons, s.global_normals);
        mark = timer.End(&PassTimes::global_trace, mark);
        s.global_map.Build(s.global_photons.span(), s.global_normals.span(), s.settings.global_k, s.settings.knn);
        timer.End(&PassTimes::global_tree, mark);
    }
    LeaveStream(on_photon_stream, timer);

    if (s.eye_thread) s.eye_thread->Wait();
    if (traversal_cost) {
        s.eye_done.WaitHere();
        RunTraversalCostPass(s.backend, scene, s.eye);
        s.JoinGeometryAhead();
        ++s.samples;
        RunCompositePass(s.backend, s.eye, s.sum.span(), s.samples, s.DisplayScale(), DisplayToneMap(s.settings),
                         s.display.span());
        LeaveStream(on_share, timer);
        return;
    }

    KnnSettings knn;
    knn.method = s.settings.knn;
    knn.k = s.settings.k;
    knn.max_radius = s.max_radius;
    const float radius_scale = s.settings.progressive ? ProgressiveRadiusScale(sample, s.settings.alpha) : 1.0f;
    // The search needs the eye chain's queries, not its shadow rays: it runs beside the shadow pass
    // (the Cornell box's frames one after another 6.4 -> 5.9 ms; docs/notes/frame-performance.md).
    s.queries_ready.WaitHere();
    mark = timer.Mark();
    RunCausticPass(s.backend, s.photon_map, knn, s.settings.filter, radius_scale, s.eye, &s.caustic_join);
    s.JoinGeometryAhead();
    s.eye_done.WaitHere();
    // The ambient term stands in for indirect light: where that is computed, adding it would count
    // indirect light twice.
    const Rgb ambient = indirect ? Rgb(0.0f) : s.ambient;
    RunShadePass(s.backend, s.lights.span(), s.shadow_rays_per_end, key, ambient, s.settings.view, s.max_radius,
                 s.eye);
    mark = timer.End(&PassTimes::shade, mark);
    if (indirect) {
        KnnSettings global_knn = knn;
        global_knn.k = s.settings.global_k;
        global_knn.max_radius = s.global_max_radius;
        if (s.settings.gather_rays > 0) {
            const GatherMaps maps{&s.global_map, global_knn, &s.photon_map, knn, s.settings.filter, radius_scale};
            RunFinalGatherPasses(s.backend, scene, s.lights.span(), s.settings.max_bounces, s.settings.gather_rays,
                                 key, maps, s.eye, s.indirect);
        } else {
            RunIndirectEstimatePass(s.backend, s.global_map, global_knn, s.settings.filter, radius_scale, s.eye,
                                    s.indirect);
        }
        if (s.settings.denoise) RunDenoisePasses(s.backend, s.camera, s.eye, s.indirect);
        RunAddIndirectPass(s.backend, s.eye, s.indirect);
        mark = timer.End(&PassTimes::indirect, mark);
    }
    RunSumTreePass(s.backend, s.eye);
    mark = timer.End(&PassTimes::shade, mark);
    ++s.samples;
    RunCompositePass(s.backend, s.eye, s.sum.span(), s.samples, s.DisplayScale(), DisplayToneMap(s.settings),
                     s.display.span());
    timer.End(&PassTimes::composite, mark);
    LeaveStream(on_share, timer);
}

void FrameRenderer::Synchronize() const {
    State& s = *state_;
    s.WaitForAheadIssued();
    s.backend.Synchronize();
    if (s.shares) s.shares->Synchronize();
    const ThreadStreamScope ahead(s.ahead_stream.get());
    s.geometry_backend.Synchronize();
}

uint32_t FrameRenderer::samples() const { return state_->samples; }
uint32_t FrameRenderer::stored_photons() const { return uint32_t(state_->photons.size()); }
uint32_t FrameRenderer::stored_global_photons() const {
    return state_->settings.indirect ? uint32_t(state_->global_photons.size()) : 0u;
}
uint32_t FrameRenderer::eye_paths() const { return state_->eye.paths_traced; }
std::vector<Photon> FrameRenderer::StoredPhotons() const { return state_->photons.Download(); }
std::vector<Photon> FrameRenderer::StoredGlobalPhotons() const { return state_->global_photons.Download(); }
const PassTimes& FrameRenderer::times() const {
    State& s = *state_;
    s.times = PassTimes{};
    s.prepare_timer.AddTo(s.times);
    s.sample_timer.AddTo(s.times);
    if (s.eye_chain) s.eye_timer.AddTo(s.times);
    return s.times;
}
ToneMap FrameRenderer::tone_map() const { return DisplayToneMap(state_->settings); }
Span<const uint32_t> FrameRenderer::DisplayPixels() {
    State& s = *state_;
    StartReadback(s.display_download, s.display.space(), s.display.data(), s.display.size() * sizeof(uint32_t));
    return Span<const uint32_t>(static_cast<const uint32_t*>(s.display_download->Wait()), s.display.size());
}

std::vector<FirstHit> FrameRenderer::FirstHits() const {
    const State& s = *state_;
    const std::vector<FirstHit> ordered = s.eye.first_hit.Download();
    std::vector<FirstHit> rows(ordered.size());
    for (uint32_t i = 0; i < ordered.size(); ++i) rows[s.eye.order.Linear(i)] = ordered[i];
    return rows;
}

Image FrameRenderer::SampleSum() const {
    const State& s = *state_;
    Image image;  // not sized first: its pixels come whole from the download
    image.width = s.camera.width;
    image.height = s.camera.height;
    image.pixels = s.sum.Download();
    return image;
}

void FrameRenderer::StartSampleSumDownload() {
    State& s = *state_;
    CA_CHECK_MSG(!s.download_started, "a sample sum's download started before the last one finished");
    StartReadback(s.sum_download, s.sum.space(), s.sum.data(), s.sum.size() * sizeof(Rgb));
    s.download_started = true;
    s.download_width = s.camera.width;
    s.download_height = s.camera.height;
}

void FrameRenderer::FinishSampleSumDownload(Image& sum) {
    State& s = *state_;
    CA_CHECK_MSG(s.download_started, "a sample sum's download finished that was not started");
    const void* bytes = s.sum_download->Wait();
    sum.width = s.download_width;
    sum.height = s.download_height;
    sum.pixels.resize(size_t(sum.width) * size_t(sum.height));
    std::memcpy(sum.pixels.data(), bytes, sum.pixels.size() * sizeof(Rgb));
    s.download_started = false;
}

Image FrameRenderer::CurrentImage() const {
    return ImageOfSum(SampleSum(), state_->samples, state_->DisplayScale());
}

Image ImageOfSum(Image sum, uint32_t samples, float display_scale) {
    ScaleSumToImage(sum, samples, display_scale);
    return sum;
}

void ScaleSumToImage(Image& sum, uint32_t samples, float display_scale) {
    const float scale = samples > 0 ? display_scale / float(samples) : 0.0f;
    for (Rgb& pixel : sum.pixels) pixel = pixel * scale;
}

}  // namespace caustica
