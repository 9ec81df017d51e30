#include "core/parallel_for.h"
#include "core/rng.h"
#include "core/sobol02.h"
#include "shaders_cuda/eye_passes.h"

namespace caustica {
namespace {

constexpr uint32_t kEyePass = 16;
constexpr uint32_t kLensPass = 17;

// Where on the lens the pixel's ray of this sample starts: the sample's point of the pixel's
// scrambled (0, 2)-sequence, so the depth of field's blur converges over the samples. The
// scramble is keyed by (seed, pass, pixel) alone (sample 0 of the key): it must stay the same over
// a pixel's samples to keep them stratified.
CA_HD CA_INLINE Vec2 LensSample(SampleKey key, uint64_t pixel) {
    Rng rng(key.seed, 0, kLensPass, pixel);
    const uint32_t scramble_x = rng.NextU32();
    return Sobol02(key.sample, scramble_x, rng.NextU32());
}

// Each pixel's camera ray, made and traced by one thread: the path goes to memory for the bounces,
// but is not read back by a pass of its own. Beside the photon trace, a pass that wrote the paths
// took 0.18 ms of the champagne's eye chain before the trace that read them
// (docs/notes/frame-performance.md).
struct CameraRaysPass {
    CameraView camera;
    PixelOrder order;
    SampleKey key;
    SceneView scene;
    Span<EyePath> paths;
    Span<Hit> hits;

    CA_HD EyePath Path(int p) const {
        uint32_t x, y;
        order.Pixel(uint32_t(p), x, y);
        float jx = 0.5f, jy = 0.5f;
        if (key.sample > 0) {
            Rng rng(key.seed, key.sample, kEyePass, uint64_t(y) * camera.width + x);
            jx = rng.NextFloat();
            jy = rng.NextFloat();
        }
        const Vec2 lens = camera.HasLens() ? LensSample(key, uint64_t(y) * camera.width + x) : Vec2(0.5f, 0.5f);
        const Ray ray = camera.Generate(float(x) + jx, float(y) + jy, lens);
        return {ray.origin, ray.direction, Rgb(1.0f), uint32_t(p), uint32_t(p), 0u, 0u};
    }
    CA_HD void operator()(int p) const {
        const EyePath path = Path(p);
        paths[p] = path;
        hits[p] = scene.Closest(path.ray());
    }
};

}  // namespace

void RunEyePass(const Backend& backend, const SceneView& scene, const CameraView& camera, SampleKey key,
                EyeState& state) {
    const size_t pixels = size_t(camera.width) * size_t(camera.height);
    state.order = PixelOrder{uint32_t(camera.width), uint32_t(camera.height)};
    state.pixels = uint32_t(pixels);
    state.paths.Resize(pixels, false);
    state.hits.Resize(pixels, false);
    state.first_hit.Resize(pixels, false);
    state.tree_radiance.Resize(pixels, false);
    ParallelFor(backend, "camera rays", pixels,
                CameraRaysPass{camera, state.order, key, scene, state.paths.span(), state.hits.span()});
    state.path_count = uint32_t(pixels);
    state.paths_traced = uint32_t(pixels);
}

}  // namespace caustica
