#include "renderer/bench/bench_scaling.h"

#include <chrono>

#include "renderer/cli/shared_render.h"
#include "renderer/frame_renderer.h"

namespace caustica {
namespace {

double SecondsOf(const std::function<void()>& work) {
    const auto start = std::chrono::steady_clock::now();
    work();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

std::vector<ScalingRun> MeasureScaling(const Scene& scene, const RenderOptions& options,
                                       const std::vector<RenderDevice>& devices, int frames, int samples,
                                       int still_samples) {
    const float display_scale = DisplayScale(MakeRenderSettings(scene, options, devices[0].gpu));
    const auto encode = [&](uint32_t count) {
        return [=](int, Image& sum) {
            ScaleSumToImage(sum, count, display_scale);
            EncodeImage(sum, ImageFormat::png);
        };
    };
    // Warm-up: each device's first frame (its context, its buffers' first allocations).
    RenderAndWriteFrames(scene, options, std::vector<int>(devices.size(), 0), {0, 1}, devices, encode(1), nullptr);

    std::vector<int> sequence(size_t(frames), 0);
    for (int f = 0; f < frames; ++f) sequence[size_t(f)] = f;
    const std::vector<RenderDevice> first(devices.begin(), devices.begin() + 1);
    std::vector<ScalingRun> runs;
    // The workload on the first device alone, then on all of them.
    const auto measure = [&](const char* workload, int items, const std::function<void(const std::vector<RenderDevice>&)>& work) {
        const double alone = SecondsOf([&] { work(first); });
        const double shared = SecondsOf([&] { work(devices); });
        runs.push_back({workload, 1, alone, items / alone, 1.0});
        runs.push_back({workload, int(devices.size()), shared, items / shared, alone / shared});
    };
    measure("sequence", frames, [&](const std::vector<RenderDevice>& set) {
        RenderAndWriteFrames(scene, options, sequence, {0, uint32_t(samples)}, set, encode(uint32_t(samples)),
                             nullptr);
    });
    measure("still", still_samples, [&](const std::vector<RenderDevice>& set) {
        Image still = RenderStill(scene, options, 0, {0, uint32_t(still_samples)}, set, nullptr);
        encode(uint32_t(still_samples))(0, still);
    });
    return runs;
}

}  // namespace caustica
