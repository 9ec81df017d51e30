#include "renderer/bench/bench_frame.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "core/error.h"
#include "core/memory.h"
#include "core/sm_share.h"
#include "renderer/bench/bench_scaling.h"
#include "renderer/bench/bench_support.h"
#include "renderer/cli/cli_args.h"
#include "renderer/cli/render_devices.h"
#include "renderer/cli/render_options.h"
#include "renderer/cli/version.h"
#include "renderer/frame_renderer.h"
#include "renderer/scene/scene_eval.h"
#include "renderer/scene/scene_loader.h"
#include "renderer/scene_to_frame.h"

namespace caustica {

namespace {

// --gpus: the scaling table, its summary line and its JSON.
int ReportScaling(const Scene& scene, const RenderOptions& options, const std::vector<RenderDevice>& devices,
                  int frames, int samples, int still_samples, const std::optional<OutputFile>& json_file) {
    const RenderSettings settings = MakeRenderSettings(scene, options, devices[0].gpu);
    const std::vector<ScalingRun> runs = MeasureScaling(scene, options, devices, frames, samples, still_samples);
    const ImageSize size = FrameImageSize(MakeImageSize(options), scene.camera.width, scene.camera.height);
    std::printf("bench frame --gpus: %s at %dx%d, %u photons a sample, k = %d, on %s\n", scene.path.c_str(), size.width,
                size.height, settings.photons, settings.k, DescribeDevices(devices).c_str());
    std::printf("%-34s %8s %10s %16s %9s\n", "workload", "devices", "seconds", "rate", "speed-up");
    for (const ScalingRun& r : runs) {
        const std::string workload = r.workload == "sequence" ? Concat("sequence: ", frames, " frames x ", samples, " samples")
                                                              : Concat("still: ", still_samples, " samples");
        std::printf("%-34s %8d %10.3f %9.2f %s/s %8.2fx\n", workload.c_str(), r.devices, r.seconds, r.rate,
                    r.workload == "sequence" ? "frames " : "samples", r.speedup);
    }
    std::printf("SUMMARY bench frame --gpus %zu %s %dx%d photons=%u: sequence %.2fx (%.2f -> %.2f frames/s), still "
                "%.2fx (%.1f -> %.1f samples/s)\n",
                devices.size(), scene.path.c_str(), size.width, size.height, settings.photons, runs[1].speedup,
                runs[0].rate, runs[1].rate, runs[3].speedup, runs[2].rate, runs[3].rate);
    if (json_file) {
        JsonWriter json;
        json.BeginObject();
        json.Key("devices").BeginArray();
        for (const RenderDevice& d : devices) json.BeginObject().Key("name").String(d.name).Key("device_name").String(d.description).EndObject();
        json.EndArray();
        json.Key("commit").String(BuildCommit());
        json.Key("scene").String(scene.path).Key("width").Integer(size.width).Key("height").Integer(size.height);
        json.Key("photons").Integer(settings.photons).Key("frames").Integer(frames).Key("samples").Integer(samples);
        json.Key("still_samples").Integer(still_samples);
        json.Key("runs").BeginArray();
        for (const ScalingRun& r : runs)
            json.BeginObject().Key("workload").String(r.workload).Key("devices").Integer(r.devices).Key("seconds")
                .Number(r.seconds).Key("rate").Number(r.rate).Key("speedup").Number(r.speedup).EndObject();
        json.EndArray();
        json.EndObject();
        WriteOutputFile(*json_file, json.Text());
    }
    return 0;
}

}  // namespace

int BenchFrameMain(const std::vector<std::string>& args) {
    std::string scene_path, json_path, gpus_text;
    int frames = 20, samples = 4, still_samples = 64, ahead_sms = 0;
    bool display = false;
    RenderOptions options;
    ArgParser parser("caustica bench frame",
                     "Renders frames of a scene (both kd-trees rebuilt every frame, one sample per pixel) and "
                     "prints the median time of each pass and the frame rate; with --gpus, how a sequence and a "
                     "still scale over several GPUs.");
    parser.Positional("SCENE", kSceneArgumentHelp, &scene_path, true);
    parser.Option("--frames", "F", "timed frames (after one warm-up frame)", &frames);
    parser.Option("--json", "FILE", "also write the results as JSON", &json_path);
    parser.Option("--ahead-sms", "N",
                  "on the GPU, build each next frame's geometry tree on N SMs while the frame's sample runs on the "
                  "others (FrameRenderer::PrepareGeometryAhead); 0: one frame after another (the CPU's only choice)",
                  &ahead_sms);
    parser.ShowDefault("--ahead-sms", "three tenths of the SMs, to the nearest multiple of 8, on a GPU of at least "
                                      "64 SMs (40 of 132), else 0");
    parser.Flag("--display",
                "also read each frame's 8-bit image back after its sample, as the viewer does before it draws "
                "it (the 'display' row: the host's wait from the sample's last launch to the image; with "
                "--ahead-sms 0 the viewer's frame)",
                &display);
    parser.Option("--gpus", "all|N|I,J,...",
                  "instead, the scaling over these GPUs (as render --gpus): the sequence of --frames frames of "
                  "--samples samples and a still of --still-samples samples, on the first GPU alone and on all, "
                  "by the render command's code (each frame encoded as PNG in memory)",
                  &gpus_text);
    parser.Option("--samples", "S", "with --gpus: samples of each frame of the sequence", &samples);
    parser.Option("--still-samples", "S", "with --gpus: samples of the still", &still_samples);
    AddRenderOptions(parser, &options);
    if (!parser.Parse(args)) return 0;
    if (frames < 1 || frames > 100000) throw InputError(Concat("--frames ", frames, ": expected 1 to 100000"));
    for (const char* option : {"--ahead-sms", "--display"})
        if (!gpus_text.empty() && parser.Given(option))
            throw InputError(Concat("caustica bench frame: ", option, " goes without --gpus (the scaling runs the "
                                    "render command's frames, each of several samples)"));
    if (gpus_text.empty() && (parser.Given("--samples") || parser.Given("--still-samples")))
        throw InputError("caustica bench frame: --samples and --still-samples go with --gpus (the per-pass times "
                         "are of one sample)");
    if (samples < 1 || samples > 65536) throw InputError(Concat("--samples ", samples, ": expected 1 to 65536"));
    if (still_samples < 1 || still_samples > 65536)
        throw InputError(Concat("--still-samples ", still_samples, ": expected 1 to 65536"));

    const Scene scene = LoadSceneOrDefault(scene_path);
    const std::optional<OutputFile> json_file = CheckJsonTarget(json_path);
    if (!gpus_text.empty())
        return ReportScaling(scene, options, SelectRenderDevices(options.device, gpus_text), frames, samples,
                             still_samples, json_file);
    const Backend backend = Backend::Create(options.device);
    RenderSettings settings = MakeRenderSettings(scene, options, backend);
    const int device_sms = backend.IsGpu() ? SmCount(backend.device()) : 0;
    if (!parser.Given("--ahead-sms")) ahead_sms = DefaultGeometryAheadSms(backend);
    if (!backend.IsGpu() && ahead_sms != 0)
        throw InputError(Concat("--ahead-sms ", ahead_sms, ": expected 0 on the CPU, which has no SMs to share"));
    if (backend.IsGpu() && (ahead_sms < 0 || ahead_sms >= device_sms))
        throw InputError(Concat("--ahead-sms ", ahead_sms, ": expected 0 to ", device_sms - 1, " (the GPU's ",
                                device_sms, " SMs, less one)"));
    settings.geometry_ahead_sms = ahead_sms;
    FrameRenderer renderer(backend);
    renderer.SetMaterials(ToSceneMaterials(scene));

    // Each frame: the scene at the frame's time (animated scenes move), uploaded, both trees
    // rebuilt, one sample rendered. 'animate' is the host's evaluation and the device's height
    // fields.
    std::vector<double> total, animate, geometry, photon_trace, photon_tree, global_trace, global_tree, eye, bounces,
        shadow, shade, indirect, composite, display_readback;
    ResetPeakDeviceBytes();
    int width = 0, height = 0;
    SceneFrames scene_frames(scene, MakeImageSize(options));
    // With --ahead-sms each frame's geometry was prepared in the frame before (the scene evaluated at
    // the next frame's time there, its input kept by scene_frames), and a frame takes until both its
    // sample and the next frame's geometry are done.
    const auto frame_time = [&](int f) { return std::max(f, 0) / scene.settings.frame_rate; };
    const auto since = [](std::chrono::steady_clock::time_point t) {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
    };
    for (int f = -1; f < frames; ++f) {
        const auto start = std::chrono::steady_clock::now();
        const bool prepared = ahead_sms > 0 && f >= 0;
        const FrameInput& input = prepared ? scene_frames.input() : scene_frames.At(frame_time(f));
        double animate_ms = since(start);
        renderer.Prepare(input, settings);
        width = input.camera.width;
        height = input.camera.height;
        if (ahead_sms > 0 && f + 1 < frames) {  // 'input' is replaced by the next frame's
            const auto evaluate = std::chrono::steady_clock::now();
            const FrameInput& next = scene_frames.At(frame_time(f + 1));
            animate_ms += since(evaluate);
            renderer.PrepareGeometryAhead(next);
        }
        renderer.AddSample();
        double display_ms = 0;
        if (display) {
            const auto read = std::chrono::steady_clock::now();
            renderer.DisplayPixels();
            display_ms = since(read);
        }
        renderer.Synchronize();
        const double frame_ms = since(start);
        if (f < 0) continue;  // warm-up: allocations and first-touch costs
        const PassTimes& t = renderer.times();
        total.push_back(frame_ms);
        animate.push_back(animate_ms + t.moving_geometry);
        geometry.push_back(t.geometry_tree);
        photon_trace.push_back(t.photon_trace);
        photon_tree.push_back(t.photon_tree);
        global_trace.push_back(t.global_trace);
        global_tree.push_back(t.global_tree);
        eye.push_back(t.eye);
        bounces.push_back(t.bounces);
        shadow.push_back(t.shadow);
        shade.push_back(t.shade);
        indirect.push_back(t.indirect);
        composite.push_back(t.composite);
        display_readback.push_back(display_ms);
    }
    struct Row {
        const char* name;
        Timing t;
    };
    const Row rows[] = {{"animate", Summarize(animate)},       {"geometry_tree", Summarize(geometry)},
                        {"photon_trace", Summarize(photon_trace)}, {"photon_tree", Summarize(photon_tree)},
                        {"global_trace", Summarize(global_trace)}, {"global_tree", Summarize(global_tree)},
                        {"eye", Summarize(eye)},               {"bounces", Summarize(bounces)},
                        {"shadow", Summarize(shadow)},         {"shade", Summarize(shade)},
                        {"indirect", Summarize(indirect)},     {"composite", Summarize(composite)},
                        {"display", Summarize(display_readback)}, {"total", Summarize(total)}};
    const Timing& total_time = rows[std::size(rows) - 1].t;
    const double fps = 1000.0 / total_time.median;
    std::printf("bench frame: %s on %s, %dx%d, %u photons emitted (%u stored), k = %d, %s KNN, specular splits %d "
                "(%.2f eye paths a pixel), shadow samples %d, %d frames, %s\n",
                scene.path.c_str(), backend.Describe().c_str(), width, height, settings.photons,
                renderer.stored_photons(), settings.k, KnnMethodName(settings.knn), settings.specular_splits,
                double(renderer.eye_paths()) / (double(width) * height), settings.shadow_samples, frames,
                ahead_sms > 0 ? Concat("the next frame's geometry ahead on ", ahead_sms, " SMs").c_str()
                              : "one frame after another");
    if (settings.indirect)
        std::printf("indirect light: %u global photons emitted (%u stored), k = %d\n", settings.global_photons,
                    renderer.stored_global_photons(), settings.global_k);
    std::printf("%-14s %10s %10s %10s\n", "pass", "median ms", "min ms", "max ms");
    for (const Row& r : rows) std::printf("%-14s %10.3f %10.3f %10.3f\n", r.name, r.t.median, r.t.min, r.t.max);
    std::printf("%-14s %10.1f\n", "fps", fps);
    std::printf("SUMMARY bench frame %s %s %dx%d photons=%u k=%d knn=%s: %.1f fps (median frame %.2f ms)\n",
                scene.path.c_str(), backend.Name(), width, height, settings.photons, settings.k,
                KnnMethodName(settings.knn), fps, total_time.median);

    if (json_file) {
        JsonWriter json;
        json.BeginObject();
        WriteBenchHeader(json, backend);
        WriteFrameSettings(json, scene.path, width, height, settings);
        json.Key("stored_photons").Integer(renderer.stored_photons());
        json.Key("stored_global_photons").Integer(renderer.stored_global_photons());
        json.Key("eye_paths").Integer(renderer.eye_paths());
        json.Key("frames").Integer(frames);
        json.Key("ahead_sms").Integer(ahead_sms);
        json.Key("passes_ms").BeginObject();
        for (const Row& r : rows) json.Key(r.name).Number(r.t.median);
        json.EndObject();
        json.Key("fps").Number(fps);
        json.Key("peak_device_bytes").Integer(int64_t(DeviceMemoryCounters().peak_device_bytes));
        json.EndObject();
        WriteOutputFile(*json_file, json.Text());
    }
    return 0;
}

}  // namespace caustica
