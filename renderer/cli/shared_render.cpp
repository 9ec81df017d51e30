#include "renderer/cli/shared_render.h"

#include <algorithm>
#include <thread>

#include "core/background_jobs.h"
#include "core/error.h"
#include "core/worker_thread.h"
#include "renderer/frame_renderer.h"
#include "renderer/scene/scene_eval.h"
#include "renderer/scene_to_frame.h"

namespace caustica {
namespace {

// One device's renderer, readied for a frame's samples.
struct DeviceRenderer {
    DeviceRenderer(const Backend& backend, const Scene& scene, const RenderOptions& options,
                   const SceneMaterials& materials)
        : scene(scene),
          settings(MakeRenderSettings(scene, options, backend)),
          renderer(backend),
          frames(scene, MakeImageSize(options)) {
        renderer.SetMaterials(materials);
    }

    const FrameInput& InputOf(int frame) { return frames.At(frame / scene.settings.frame_rate); }
    // prepared_ahead: the frame's geometry was prepared during the frame before (PrepareAhead).
    void Prepare(int frame, uint32_t first_sample, bool prepared_ahead = false) {
        settings.first_sample = first_sample;
        renderer.Prepare(prepared_ahead ? frames.input() : InputOf(frame), settings);
    }
    // Prepares 'next''s geometry while the frame's first sample runs (before it): on a GPU from
    // another host thread, on a share of the SMs where the GPU has enough (DefaultGeometryAheadSms).
    void PrepareAhead(int next) { renderer.PrepareGeometryAhead(InputOf(next)); }

    const Scene& scene;
    RenderSettings settings;
    FrameRenderer renderer;
    SceneFrames frames;
};

}  // namespace

std::vector<SampleSpan> SplitSamples(SampleSpan span, int parts) {
    CA_CHECK_MSG(parts > 0, "samples split into ", parts, " parts");
    std::vector<SampleSpan> out;
    for (int p = 0; p < parts; ++p) {
        const uint32_t begin = uint32_t(uint64_t(span.count) * uint64_t(p) / uint64_t(parts));
        const uint32_t end = uint32_t(uint64_t(span.count) * uint64_t(p + 1) / uint64_t(parts));
        out.push_back({span.first + begin, end - begin});
    }
    return out;
}

Image SumInOrder(const std::vector<Image>& images) {
    CA_CHECK_MSG(!images.empty(), "no images to add");
    Image sum = images[0];
    for (size_t i = 1; i < images.size(); ++i) {
        CA_CHECK_MSG(images[i].width == sum.width && images[i].height == sum.height, "images of different sizes: ",
                     sum.width, "x", sum.height, " and ", images[i].width, "x", images[i].height);
        for (size_t p = 0; p < sum.pixels.size(); ++p) sum.pixels[p] = sum.pixels[p] + images[i].pixels[p];
    }
    return sum;
}

int ImageWriterThreads(int devices, size_t frame_bytes) {
    const int cores = int(std::thread::hardware_concurrency());
    const size_t frames_in_memory = kImageWriterBytes / std::max<size_t>(frame_bytes, 1);
    const size_t devices_frames = 3 * size_t(devices);  // queued, held by a hand-over, downloading
    const size_t writers_in_memory = frames_in_memory - std::min(frames_in_memory, devices_frames);
    return std::max(1, std::min({cores - 2 * devices, 16, int(std::min<size_t>(writers_in_memory, 16))}));
}

void RenderFrames(const Scene& scene, const RenderOptions& options, const std::vector<int>& frames, SampleSpan span,
                  const std::vector<RenderDevice>& devices, ImagePool& sums, const FrameSink& deliver) {
    const SceneMaterials materials = ToSceneMaterials(scene);
    std::atomic<size_t> next{0};
    RunOnDevices(devices, [&](int device, const Backend& backend, const std::atomic<bool>& stop) {
        DeviceRenderer r(backend, scene, options, materials);
        r.settings.geometry_ahead_sms = DefaultGeometryAheadSms(backend);
        // Each frame's sum travels to the host behind its last sample, and a thread of the device's
        // own copies it out and delivers it (a 1080p frame's copy took 3.4 ms of an H200 host's
        // 7.5 ms a frame when this thread did it) while this one renders the next frame, whose
        // geometry was prepared during this frame's first sample. The device takes its next frame
        // as it begins one, so it never holds more than one frame ahead.
        WorkerThread hand_over;
        bool prepared_ahead = false;
        for (size_t i = next++; i < frames.size() && !stop;) {
            r.Prepare(frames[i], span.first, prepared_ahead);
            const size_t following = next++;
            prepared_ahead = following < frames.size();
            if (prepared_ahead) r.PrepareAhead(frames[following]);
            for (uint32_t s = 0; s < span.count && !stop; ++s) r.renderer.AddSample();
            if (stop) return;
            hand_over.Wait();  // the last frame's sum copied out: the renderer downloads one at a time
            r.renderer.StartSampleSumDownload();
            hand_over.Start([&r, &sums, &deliver, device, frame = frames[i]] {
                Image sum = sums.Take();
                r.renderer.FinishSampleSumDownload(sum);
                deliver(device, frame, std::move(sum));
            });
            i = following;
        }
        hand_over.Wait();
    });
}

void RenderAndWriteFrames(const Scene& scene, const RenderOptions& options, const std::vector<int>& frames,
                          SampleSpan span, const std::vector<RenderDevice>& devices, const FrameWriter& write,
                          ProgressBar* progress) {
    const ImageSize size = FrameImageSize(MakeImageSize(options), scene.camera.width, scene.camera.height);
    const size_t frame_bytes = size_t(size.width) * size_t(size.height) * sizeof(Rgb);
    const int writers = ImageWriterThreads(int(devices.size()), frame_bytes);
    ImagePool sums;  // before the jobs, which give their images back
    BackgroundJobs jobs(writers, int(devices.size()));
    RenderFrames(scene, options, frames, span, devices, sums, [&](int device, int frame, Image sum) {
        jobs.Add([&write, &sums, progress, device, frame, sum = std::move(sum)]() mutable {
            write(frame, sum);
            sums.GiveBack(std::move(sum));
            if (progress) progress->Advance(device);
        });
    });
    jobs.Finish();
}

Image RenderStill(const Scene& scene, const RenderOptions& options, int frame, SampleSpan span,
                  const std::vector<RenderDevice>& devices, ProgressBar* progress) {
    const SceneMaterials materials = ToSceneMaterials(scene);
    const std::vector<SampleSpan> parts = SplitSamples(span, int(devices.size()));
    std::vector<Image> sums(devices.size());
    RunOnDevices(devices, [&](int device, const Backend& backend, const std::atomic<bool>& stop) {
        const SampleSpan part = parts[size_t(device)];
        if (part.count == 0) return;  // fewer samples than devices
        DeviceRenderer r(backend, scene, options, materials);
        r.Prepare(frame, part.first);
        for (uint32_t s = 0; s < part.count; ++s) {
            if (stop) return;
            r.renderer.AddSample();
            if (progress) progress->Advance(device);
        }
        sums[size_t(device)] = r.renderer.SampleSum();
    });
    std::vector<Image> rendered;
    for (size_t d = 0; d < sums.size(); ++d)
        if (parts[d].count > 0) rendered.push_back(std::move(sums[d]));
    return SumInOrder(rendered);
}

}  // namespace caustica
