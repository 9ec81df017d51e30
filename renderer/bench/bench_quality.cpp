#include "renderer/bench/bench_quality.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "core/error.h"
#include "renderer/bench/bench_support.h"
#include "renderer/bench/image_error.h"
#include "renderer/cli/cli_args.h"
#include "renderer/cli/progress.h"
#include "renderer/cli/render_options.h"
#include "renderer/frame_renderer.h"
#include "renderer/output/image.h"
#include "renderer/output/output_file.h"
#include "renderer/scene/scene_eval.h"
#include "renderer/scene/scene_loader.h"

namespace caustica {
namespace {

// The reference: a file, or the scene rendered with many samples.
Image ReadReference(const std::string& path, int width, int height) {
    Image image = ReadImage(path);
    if (image.width != width || image.height != height)
        throw InputError(Concat("--reference ", path, ": the image is ", image.width, "x", image.height,
                                ", the frames are ", width, "x", height, " (set --width and --height)"));
    return image;
}

// "1,2,4,8": sample counts, increasing, each 1 to 65536.
std::vector<int> ParseSeries(const std::string& text) {
    std::vector<int> counts;
    size_t at = 0;
    while (at <= text.size()) {
        const size_t comma = std::min(text.find(',', at), text.size());
        const std::string item = text.substr(at, comma - at);
        char* end = nullptr;
        const long n = std::strtol(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0' || n < 1 || n > 65536 || (!counts.empty() && n <= counts.back()))
            throw InputError(Concat("--samples-series ", text, ": expected increasing sample counts from 1 to 65536 "
                                    "separated by commas, such as 1,2,4,8 (at \"", item, "\")"));
        counts.push_back(int(n));
        at = comma + 1;
    }
    return counts;
}

// Appends b's rows below a's: the frames' errors are then measured as one image's.
void AppendRows(Image& a, const Image& b) {
    a.width = b.width;
    a.height += b.height;
    a.pixels.insert(a.pixels.end(), b.pixels.begin(), b.pixels.end());
}

}  // namespace

int BenchQualityMain(const std::vector<std::string>& args) {
    std::string scene_path, json_path, reference_path, series_text;
    int samples = 1, reference_samples = 256, frames = 4;
    RenderOptions options;
    ArgParser parser("caustica bench quality",
                     "Renders a reference (many samples, or a given image) and frames of few samples with other "
                     "seeds, and prints how far the frames are from the reference: the mean absolute error, the "
                     "root mean square error and the fraction of pixels off by more than 0.1 (channels clamped to "
                     "[0, 1], linear) and the mean and root mean square relative error per pixel (unclamped), over all "
                     "pixels and by the material each pixel's eye ray meets first (the diffuse row against a "
                     "path-traced --reference: how far photon mapping is from the true image); and the time of a "
                     "frame. A path-traced reference is noisy: measure it against a second one (--integrator path "
                     "--samples as many), and the square of the RMS relative error without its noise is the "
                     "measured one's minus half of that one's.");
    parser.Positional("SCENE", kSceneArgumentHelp, &scene_path, true);
    parser.Option("--samples", "S", "samples per pixel of the measured frames", &samples);
    parser.Option("--reference-samples", "R", "samples per pixel of the rendered reference (seed --seed)",
                  &reference_samples);
    parser.Option("--reference", "FILE",
                  "compare with this image instead of rendering a reference: .exr (linear, as render writes it), "
                  ".png or .jpg",
                  &reference_path);
    parser.Option("--samples-series", "LIST",
                  "measure each frame after each of these sample counts (such as 1,2,4,8,16; the last replaces "
                  "--samples): the error and the time against the samples, for progressive and fixed-k estimates",
                  &series_text);
    parser.Option("--frames", "F", "measured frames, with seeds --seed + 1 to --seed + F", &frames);
    parser.Option("--json", "FILE", "also write the results as JSON", &json_path);
    AddRenderOptions(parser, &options);
    if (!parser.Parse(args)) return 0;
    if (samples < 1 || samples > 65536) throw InputError(Concat("--samples ", samples, ": expected 1 to 65536"));
    if (reference_samples < 1 || reference_samples > 65536)
        throw InputError(Concat("--reference-samples ", reference_samples, ": expected 1 to 65536"));
    const std::vector<int> series = series_text.empty() ? std::vector<int>{samples} : ParseSeries(series_text);
    samples = series.back();
    if (frames < 1 || frames > 10000) throw InputError(Concat("--frames ", frames, ": expected 1 to 10000"));
    if (!options.tonemap.empty() && options.tonemap != "none")
        throw InputError(Concat("--tonemap ", options.tonemap, ": bench quality measures the linear images, before "
                                "any tone map"));
    if (options.seed > 2147483647 - frames)
        throw InputError(Concat("--seed ", options.seed, ": expected at most ", 2147483647 - frames));

    const Scene scene = LoadSceneOrDefault(scene_path);
    const std::optional<OutputFile> json_file = CheckJsonTarget(json_path);
    const Backend backend = Backend::Create(options.device);
    RenderSettings settings = MakeRenderSettings(scene, options, backend);
    FrameRenderer renderer(backend);
    renderer.SetMaterials(ToSceneMaterials(scene));
    const FrameInput input = ToFrameInput(scene, EvaluateScene(scene, 0.0), MakeImageSize(options));
    const int width = input.camera.width, height = input.camera.height;
    if (!reference_path.empty()) ReadReference(reference_path, width, height);  // bad input before any work

    // One sample first: allocations and first-touch costs stay out of the timed frames.
    renderer.Prepare(input, settings);
    renderer.AddSample();
    Image reference;
    if (reference_path.empty()) {
        renderer.Prepare(input, settings);
        ProgressBar progress("reference", reference_samples, "samples");
        for (int s = 0; s < reference_samples; ++s) {
            renderer.AddSample();
            progress.Advance();
        }
        progress.Finish();
        reference = renderer.CurrentImage();
    } else {
        reference = ReadReference(reference_path, width, height);
    }

    // Per count of the series: the frames' images, one below the other, and the time to reach it.
    std::vector<Image> measured(series.size()), references(series.size());
    std::vector<std::vector<FirstHit>> first_hits(series.size());
    std::vector<std::vector<double>> series_ms(series.size());
    for (int f = 0; f < frames; ++f) {
        settings.seed = uint64_t(options.seed) + 1 + uint64_t(f);
        double ms = 0.0;
        auto start = std::chrono::steady_clock::now();
        renderer.Prepare(input, settings);
        for (int s = 1, next = 0; s <= samples; ++s) {
            renderer.AddSample();
            if (s != series[size_t(next)]) continue;
            backend.Synchronize();
            ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
            series_ms[size_t(next)].push_back(ms);
            AppendRows(measured[size_t(next)], renderer.CurrentImage());
            AppendRows(references[size_t(next)], reference);
            const std::vector<FirstHit> hits = renderer.FirstHits();
            first_hits[size_t(next)].insert(first_hits[size_t(next)].end(), hits.begin(), hits.end());
            ++next;
            start = std::chrono::steady_clock::now();  // the measurement is not the frame's time
        }
    }
    std::vector<std::vector<ImageError>> series_errors;
    for (size_t k = 0; k < series.size(); ++k)
        series_errors.push_back(MeasureImageError(measured[k], references[k], first_hits[k]));
    std::vector<double> frame_ms = series_ms.back();
    const std::vector<ImageError>& errors = series_errors.back();
    const Timing frame = Summarize(frame_ms);
    const std::string reference_text =
        reference_path.empty() ? Concat(reference_samples, " samples (seed ", options.seed, ")") : reference_path;

    std::printf("bench quality: %s on %s, %dx%d, %u photons, k = %d, specular splits %d, shadow samples %d, %d "
                "sample%s a frame against %s, %d frames\n",
                scene.path.c_str(), backend.Describe().c_str(), width, height, settings.photons, settings.k,
                settings.specular_splits, settings.shadow_samples, samples, samples == 1 ? "" : "s",
                reference_text.c_str(), frames);
    std::printf("%-11s %10s %10s %10s %10s %10s %10s\n", "pixels", "count", "MAE", "RMSE", "off > 0.1", "rel. err.",
                "RMS rel.");
    for (size_t k = 0; k < errors.size(); ++k) {
        const ImageError& e = errors[k];
        if (k > 0 && e.pixels == 0) continue;
        std::printf("%-11s %10zu %10.5f %10.5f %9.3f%% %9.3f%% %9.3f%%\n",
                    k == 0 ? "all" : FirstHitName(FirstHit(k - 1)), e.pixels / size_t(frames), e.mean_absolute,
                    e.root_mean_square, 100.0 * e.far_fraction, 100.0 * e.mean_relative,
                    100.0 * e.root_mean_square_relative);
    }
    if (series.size() > 1) {
        std::printf("%8s %12s %10s %10s %14s\n", "samples", "seconds", "MAE", "RMSE", "diffuse rel.");
        for (size_t k = 0; k < series.size(); ++k)
            std::printf("%8d %12.3f %10.5f %10.5f %13.3f%%\n", series[k], Summarize(series_ms[k]).median / 1000.0,
                        series_errors[k][0].mean_absolute, series_errors[k][0].root_mean_square,
                        100.0 * series_errors[k][1 + size_t(FirstHit::Diffuse)].mean_relative);
    }
    std::printf("frame ms    %10.3f (min %.3f, max %.3f; %d sample%s)\n", frame.median, frame.min, frame.max, samples,
                samples == 1 ? "" : "s");
    const ImageError& glass = errors[1 + size_t(FirstHit::Glass)];
    std::printf("SUMMARY bench quality %s %s %dx%d samples=%d splits=%d shadow_samples=%d reference=%s: %.3f%% of "
                "pixels off by more than 0.1 (glass %.3f%%), diffuse mean relative error %.3f%%, median frame %.2f ms\n",
                scene.path.c_str(), backend.Name(), width, height, samples, settings.specular_splits,
                settings.shadow_samples, reference_text.c_str(), 100.0 * errors[0].far_fraction,
                100.0 * glass.far_fraction, 100.0 * errors[1 + size_t(FirstHit::Diffuse)].mean_relative,
                frame.median);

    if (json_file) {
        JsonWriter json;
        json.BeginObject();
        WriteBenchHeader(json, backend);
        WriteFrameSettings(json, scene.path, width, height, settings);
        json.Key("samples").Integer(samples).Key("frames").Integer(frames);
        if (reference_path.empty()) json.Key("reference_samples").Integer(reference_samples);
        else json.Key("reference").String(reference_path);
        json.Key("errors").BeginObject();
        for (size_t k = 0; k < errors.size(); ++k) {
            const ImageError& e = errors[k];
            json.Key(k == 0 ? "all" : FirstHitName(FirstHit(k - 1))).BeginObject();
            json.Key("pixels").Integer(int64_t(e.pixels / size_t(frames)));
            json.Key("mean_absolute").Number(e.mean_absolute).Key("root_mean_square").Number(e.root_mean_square);
            json.Key("far_fraction").Number(e.far_fraction);
            json.Key("mean_relative").Number(e.mean_relative);
            json.Key("root_mean_square_relative").Number(e.root_mean_square_relative);
            json.EndObject();
        }
        json.EndObject();
        WriteTiming(json, "frame_ms", frame);
        // The error (all pixels, and the diffuse ones' relative error) and the median time after each
        // count of the series.
        json.Key("series").BeginArray();
        for (size_t k = 0; k < series.size(); ++k) {
            json.BeginObject();
            json.Key("samples").Integer(series[k]).Key("seconds").Number(Summarize(series_ms[k]).median / 1000.0);
            json.Key("mean_absolute").Number(series_errors[k][0].mean_absolute);
            json.Key("root_mean_square").Number(series_errors[k][0].root_mean_square);
            json.Key("diffuse_mean_relative").Number(series_errors[k][1 + size_t(FirstHit::Diffuse)].mean_relative);
            json.EndObject();
        }
        json.EndArray();
        json.EndObject();
        WriteOutputFile(*json_file, json.Text());
    }
    return 0;
}

}  // namespace caustica
