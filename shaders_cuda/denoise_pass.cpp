#include "core/parallel_for.h"
#include "shaders_cuda/denoise.h"
#include "shaders_cuda/indirect_passes.h"

namespace caustica {
namespace {

constexpr uint32_t kNoEnd = 0xffffffffu;

// Row-major pixels: the guide and indirect irradiance of each camera ray's diffuse end.
struct DenoiseGatherPass {
    PixelOrder order;
    uint32_t pixels;
    Vec3 camera_origin, camera_forward;
    Span<const DiffusePoint> diffuse;
    Span<const uint32_t> end_node;
    Span<const Rgb> irradiance;
    Span<DenoiseGuide> guides;
    Span<Rgb> values;
    Span<uint32_t> pixel_end;
    CA_HD void operator()(int e) const {
        const uint32_t node = end_node[e];
        if (node >= pixels) return;  // behind glass or a mirror: not what the pixel shows first
        const DiffusePoint& d = diffuse[node];
        const uint32_t p = order.Linear(node);
        // Depth 0 marks no point: a point at the camera would divide by it, so it keeps a floor.
        guides[p] = {d.position, d.normal, d.weight, Max(Dot(d.position - camera_origin, camera_forward), 1e-6f)};
        values[p] = irradiance[e];
        pixel_end[p] = uint32_t(e);
    }
};

// One a-trous iteration: taps `step` pixels apart.
struct AtrousPass {
    int width, height, step;
    Span<const DenoiseGuide> guides;
    Span<const uint32_t> pixel_end;
    Span<const Rgb> in;
    Span<Rgb> out;
    CA_HD void operator()(int p) const {
        if (pixel_end[p] == kNoEnd) return;
        const DenoiseGuide& g = guides[p];
        const int x = p % width, y = p / width;
        Rgb sum(0.0f);
        float weights = 0.0f;
        for (int dy = -2; dy <= 2; ++dy) {
            const int qy = y + dy * step;
            if (qy < 0 || qy >= height) continue;
            for (int dx = -2; dx <= 2; ++dx) {
                const int qx = x + dx * step;
                if (qx < 0 || qx >= width) continue;
                const int q = qy * width + qx;
                if (pixel_end[q] == kNoEnd) continue;
                const float w = AtrousKernel(dx) * AtrousKernel(dy) * (q == p ? 1.0f : DenoiseWeight(g, guides[q]));
                sum += in[q] * w;
                weights += w;
            }
        }
        out[p] = sum / weights;  // the centre's own weight keeps it above 0
    }
};

struct DenoiseScatterPass {
    Span<const uint32_t> pixel_end;
    Span<const Rgb> values;
    Span<Rgb> irradiance;
    CA_HD void operator()(int p) const {
        if (pixel_end[p] != kNoEnd) irradiance[pixel_end[p]] = values[p];
    }
};

}  // namespace

void RunDenoisePasses(const Backend& backend, const CameraView& camera, const EyeState& eye, IndirectState& state) {
    const uint32_t pixels = eye.pixels;
    const int width = int(eye.order.width), height = int(eye.order.height);
    state.denoise_guides.Resize(pixels, false);
    state.denoise_pixel_end.Resize(pixels, false);
    state.denoise_pixel_end.FillBytes(0xff);
    for (Buffer<Rgb>& b : state.denoise_values) b.Resize(pixels, false);
    ParallelFor(backend, "denoise gather", eye.end_count,
                DenoiseGatherPass{eye.order, pixels, camera.origin, camera.forward, eye.diffuse.span(),
                                  eye.end_node.span(), state.irradiance.span(), state.denoise_guides.span(),
                                  state.denoise_values[0].span(), state.denoise_pixel_end.span()});
    int current = 0;
    for (int i = 0; i < kDenoiseIterations; ++i, current ^= 1)
        ParallelFor(backend, "a-trous", pixels,
                    AtrousPass{width, height, 1 << i, state.denoise_guides.span(), state.denoise_pixel_end.span(),
                               state.denoise_values[current].span(), state.denoise_values[current ^ 1].span()});
    ParallelFor(backend, "denoise scatter", pixels,
                DenoiseScatterPass{state.denoise_pixel_end.span(), state.denoise_values[current].span(),
                                   state.irradiance.span()});
}

}  // namespace caustica
