#include "renderer/frame_renderer.h"

#include <algorithm>

#include "core/timer.h"
#include "core/worker_thread.h"
#include "kdtree/triangle/bfs_builder.h"
#include "photon/photon_map.h"
#include "photon/photon_tracer.h"

namespace caustica {

float DisplayScale(const RenderSettings& settings) {
    return settings.view == ShadeView::Full || settings.view == ShadeView::CausticOnly ? settings.exposure : 1.0f;
}

struct FrameRenderer::State {
    const Backend& backend;
    RenderSettings settings;
    CameraView camera;
    Rgb ambient;
    float max_radius = 0;
    // The scene, in the backend's memory.
    Buffer<Triangle> triangles;
    Buffer<TriangleShading> shading;
    Buffer<SurfaceMaterial> materials;
    Buffer<TextureView> textures;
    Buffer<uint32_t> texels;
    EnvironmentView environment;
    Buffer<Rgb> environment_texels;
    Buffer<Rgb> spectrum;  // SpectralRgbTable(), once a material disperses
    bool dispersive = false;  // some material disperses
    std::vector<LightSource> frame_lights;  // the frame's, with their shadow rays
    Buffer<LightSource> lights;
    uint32_t shadow_rays_per_end = 0;
    ProjectionMapBuilder emission_maps;
    Buffer<LightEmission> emission_lights;
    Buffer<float> emission_cdf;
    Buffer<uint32_t> emission_cells;
    // Trees, photons and passes.
    BfsSahBuilder geometry_builder;
    SahTree geometry_tree;
    PhotonTracer photon_tracer;
    Buffer<Photon> photons;
    PhotonMap photon_map;
    EyeState eye;
    Buffer<Rgb> sum;
    Buffer<uint32_t> display;
    uint32_t samples = 0;
    PassTimes times;
    // On the GPU the eye passes are issued from a second host thread, with their own backend
    // (scratch, and a lower launch priority), while this one issues the photon passes (AddSample).
    Backend eye_backend;
    std::unique_ptr<WorkerThread> eye_thread;  // last: it finishes its task before the rest goes

    explicit State(const Backend& b)
        : backend(b), triangles(b), shading(b), materials(b), textures(b), texels(b), environment_texels(b), spectrum(b),
          lights(b),
          emission_lights(b), emission_cdf(b), emission_cells(b), geometry_builder(b), geometry_tree(b),
          photon_tracer(b), photons(b), photon_map(b), eye(b), sum(b), display(b), eye_backend(b.Background()),
          eye_thread(b.IsGpu() ? std::make_unique<WorkerThread>() : nullptr) {}

    // The views that show one photon query's value per pixel follow one path per pixel: a sum over a
    // ray tree would blend their colours.
    EyeTreeSettings EyeTree() const {
        const bool one_path = settings.view == ShadeView::Photons || settings.view == ShadeView::KnnRadius;
        const int wavelengths = dispersive ? (one_path ? 1 : kHeroWavelengths) : 0;
        return {settings.max_bounces, one_path ? 0 : settings.specular_splits, settings.view == ShadeView::Full,
                wavelengths};
    }

    float DisplayScale() const { return caustica::DisplayScale(settings); }

    SceneView View() const {
        EnvironmentView sky = environment;
        sky.texels = environment_texels.span();
        return {triangles.span(), shading.span(), materials.span(), textures.span(), texels.span(),
                geometry_tree.View(), sky, SpectrumView{spectrum.span()}};
    }
};

FrameRenderer::FrameRenderer(const Backend& backend) : state_(std::make_unique<State>(backend)) {}
FrameRenderer::~FrameRenderer() = default;

void FrameRenderer::SetMaterials(const SceneMaterials& materials) {
    State& s = *state_;
    s.materials.Upload(materials.materials);
    s.textures.Upload(materials.textures);
    s.texels.Upload(materials.texels);
    s.environment = materials.environment;
    s.environment_texels.Upload(materials.environment_texels);
    s.dispersive = std::any_of(materials.materials.begin(), materials.materials.end(),
                               [](const SurfaceMaterial& m) { return m.Dispersive(); });
    if (s.dispersive && s.spectrum.size() == 0) s.spectrum.Upload(SpectralRgbTable());
}

void FrameRenderer::Prepare(const FrameInput& frame, const RenderSettings& settings) {
    State& s = *state_;
    s.settings = settings;
    s.camera = frame.camera;
    s.ambient = frame.ambient;
    s.max_radius = settings.max_radius_fraction * Length(frame.bounds.Extent());
    s.triangles.Upload(frame.triangles);
    s.shading.Upload(frame.shading);
    s.frame_lights = frame.lights;
    for (LightSource& l : s.frame_lights) l.shadow_rays = l.IsArea() ? uint32_t(settings.shadow_samples) : 1u;
    s.lights.Upload(s.frame_lights);
    s.shadow_rays_per_end = ShadowRaysPerEnd(s.frame_lights);
    const ProjectionMaps& maps = s.emission_maps.Build(frame.lights, frame.specular, frame.bounds);
    s.emission_lights.Upload(maps.lights);
    s.emission_cdf.Upload(maps.light_cdf);
    s.emission_cells.Upload(maps.cells);

    Stopwatch clock(s.backend);
    s.geometry_builder.Build(s.triangles.span(), s.geometry_tree);
    s.times.geometry_tree = clock.ElapsedMs();

    const size_t pixels = size_t(frame.camera.width) * size_t(frame.camera.height);
    s.sum.Resize(pixels, false);
    s.sum.FillBytes(0);
    s.display.Resize(pixels, false);
    s.samples = 0;
}

void FrameRenderer::AddSample() {
    State& s = *state_;
    const SceneView scene = s.View();
    const uint32_t sample = s.settings.first_sample + s.samples;
    const SampleKey key{s.settings.seed, sample};
    s.times = PassTimes{s.times.geometry_tree};  // the passes this sample skips show as 0
    Stopwatch clock(s.backend);  // also: the geometry tree is complete before either chain reads it

    // The eye passes do not need the photons. On the GPU they run beside the photon passes, whose
    // tree levels are short launches that leave most of the GPU idle; each chain times its own
    // passes, so the two chains' times overlap in the frame's.
    const bool traversal_cost = s.settings.view == ShadeView::TraversalCost;
    auto eye_passes = [&s, scene, key, traversal_cost] {
        Stopwatch eye_clock(s.eye_backend);
        RunEyePass(s.eye_backend, scene, s.camera, key, s.eye);
        s.times.eye = eye_clock.ElapsedMs();
        if (traversal_cost) return;  // the heat map replaces the rest of the sample
        eye_clock.Restart();
        RunBouncePasses(s.eye_backend, scene, s.lights.span(), s.EyeTree(), key, s.eye);
        s.times.bounces = eye_clock.ElapsedMs();
        eye_clock.Restart();
        RunShadowPass(s.eye_backend, scene, s.lights.span(), s.shadow_rays_per_end, key, s.eye);
        s.times.shadow = eye_clock.ElapsedMs();  // waits for the chain: its results are complete
    };
    if (s.eye_thread) s.eye_thread->Start(eye_passes);
    else eye_passes();

    PhotonTraceSettings photon_settings;
    photon_settings.count = s.settings.photons;
    photon_settings.max_bounces = s.settings.max_bounces;
    photon_settings.seed = s.settings.seed;
    photon_settings.sample = sample;
    const EmissionView emission{s.emission_lights.span(), s.emission_cdf.span(), s.emission_cells.span()};
    s.photon_tracer.Trace(scene, emission, photon_settings, s.photons);
    s.times.photon_trace = clock.ElapsedMs();

    clock.Restart();
    s.photon_map.Build(s.photons.span(), s.settings.k, s.settings.knn);
    s.times.photon_tree = clock.ElapsedMs();

    if (s.eye_thread) s.eye_thread->Wait();
    if (traversal_cost) {
        RunTraversalCostPass(s.backend, scene, s.eye);
        ++s.samples;
        RunCompositePass(s.backend, s.eye, s.sum.span(), s.samples, s.DisplayScale(), s.display.span());
        return;
    }

    clock.Restart();
    KnnSettings knn;
    knn.method = s.settings.knn;
    knn.k = s.settings.k;
    knn.max_radius = s.max_radius;
    RunCausticPass(s.backend, s.photon_map, s.photons.span(), knn, s.settings.filter, s.eye);
    RunShadePass(s.backend, s.lights.span(), s.shadow_rays_per_end, key, s.ambient, s.settings.view, s.max_radius,
                 s.eye);
    RunSumTreePass(s.backend, s.eye);
    s.times.shade = clock.ElapsedMs();

    clock.Restart();
    ++s.samples;
    RunCompositePass(s.backend, s.eye, s.sum.span(), s.samples, s.DisplayScale(), s.display.span());
    s.times.composite = clock.ElapsedMs();
}

uint32_t FrameRenderer::samples() const { return state_->samples; }
uint32_t FrameRenderer::stored_photons() const { return uint32_t(state_->photons.size()); }
uint32_t FrameRenderer::eye_paths() const {
    const EyeState& eye = state_->eye;
    return eye.level_first.empty() ? eye.pixels : eye.level_first.back();
}
std::vector<Photon> FrameRenderer::StoredPhotons() const { return state_->photons.Download(); }
const PassTimes& FrameRenderer::times() const { return state_->times; }
std::vector<uint32_t> FrameRenderer::DisplayPixels() const { return state_->display.Download(); }

std::vector<FirstHit> FrameRenderer::FirstHits() const {
    const State& s = *state_;
    const std::vector<FirstHit> ordered = s.eye.first_hit.Download();
    std::vector<FirstHit> rows(ordered.size());
    for (uint32_t i = 0; i < ordered.size(); ++i) rows[s.eye.order.Linear(i)] = ordered[i];
    return rows;
}

Image FrameRenderer::SampleSum() const {
    const State& s = *state_;
    Image image(s.camera.width, s.camera.height);
    image.pixels = s.sum.Download();
    return image;
}

Image FrameRenderer::CurrentImage() const {
    return ImageOfSum(SampleSum(), state_->samples, state_->DisplayScale());
}

Image ImageOfSum(const Image& sum, uint32_t samples, float display_scale) {
    Image image(sum.width, sum.height);
    const float scale = samples > 0 ? display_scale / float(samples) : 0.0f;
    for (size_t i = 0; i < sum.pixels.size(); ++i) image.pixels[i] = sum.pixels[i] * scale;
    return image;
}

}  // namespace caustica
