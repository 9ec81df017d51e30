// caustica render: headless rendering of a scene's frames to PNG, JPEG or EXR files, on one device
// or shared out between several GPUs (shared_render.h).
#include <algorithm>
#include <cstdio>
#include <mutex>
#include <string>

#include "core/error.h"
#include "renderer/cli/commands.h"
#include "renderer/cli/frame_pattern.h"
#include "renderer/cli/frame_range.h"
#include "renderer/cli/progress.h"
#include "renderer/cli/render_devices.h"
#include "renderer/cli/render_options.h"
#include "renderer/cli/shared_render.h"
#include "renderer/frame_renderer.h"
#include "renderer/output/exr.h"
#include "renderer/output/image.h"
#include "renderer/output/json_writer.h"
#include "renderer/scene/scene_eval.h"
#include "renderer/scene/scene_loader.h"

namespace caustica {
namespace {

std::string Plural(size_t count, const char* word) { return Concat(count, " ", word, count == 1 ? "" : "s"); }

// The files of 'frames' (ascending): "a_0003.png" for one, "a_0000.png ... a_0012.png" for a run,
// else the frame numbers as runs ("frames 0-2, 5, 8-12 of a_%04d.png").
std::string FilesOf(const FramePattern& pattern, const std::string& pattern_text, const std::vector<int>& frames) {
    if (frames.size() == 1) return pattern.PathFor(frames[0]);
    if (frames.back() - frames.front() + 1 == int(frames.size()))
        return Concat(pattern.PathFor(frames.front()), " ... ", pattern.PathFor(frames.back()));
    return Concat("frames ", FrameRuns(frames), " of ", pattern_text);
}

// The last frame of the animation at the scene's frame rate (0 for a still scene).
int LastAnimationFrame(const Scene& scene) { return int(AnimationLength(scene) * scene.settings.frame_rate + 1e-6); }

// --dry-run: what a render would do, for a program that drives caustica (the Ray farm).
void PrintPlan(const Scene& scene, FrameRange all_frames, OutputChecker& outputs, const FramePattern& pattern,
               const std::vector<int>& to_render, const std::vector<int>& skipped, int samples) {
    JsonWriter json;
    json.BeginObject();
    json.Key("scene").String(scene.path);
    json.Key("first_frame").Integer(all_frames.first).Key("last_frame").Integer(all_frames.last);
    json.Key("last_animation_frame").Integer(LastAnimationFrame(scene));
    json.Key("samples").Integer(samples);
    json.Key("still").Bool(all_frames.count() == 1);
    for (const auto& [key, list] : {std::pair{"render", &to_render}, std::pair{"skip", &skipped}}) {
        json.Key(key).BeginArray();
        for (const int f : *list) {
            const OutputFile file = outputs.Check(pattern.PathFor(f), IfExists::keep);
            json.BeginObject().Key("frame").Integer(f).Key("file").String(file.given).Key("path").String(file.path);
            json.EndObject();
        }
        json.EndArray();
    }
    json.EndObject();
    std::fputs(json.Text().c_str(), stdout);
    std::fputs("\n", stdout);
}

}  // namespace

int RenderMain(const Args& args) {
    std::string scene_path, pattern_text, frames_text, gpus_text, shard_text, sample_range_text;
    int samples = 4;
    bool resume = false, dry_run = false;
    RenderOptions options;
    ArgParser parser("caustica render",
                     "Renders a scene's frames headless to PNG, JPEG or EXR files (by the extension), rebuilding both "
                     "kd-trees every frame, on one device or several GPUs.");
    parser.Positional("SCENE", kSceneArgumentHelp, &scene_path, true);
    parser.Option("-o", "PATTERN",
                  "output files, with one frame number such as out/frame_%04d.png (required): .png, .jpg or .jpeg "
                  "(8-bit sRGB), or .exr (linear 32-bit float RGB); missing folders are created",
                  &pattern_text);
    parser.Option("--frames", "A:B",
                  "frames A through B at the scene's frame rate (default: the whole animation, or frame 0)",
                  &frames_text);
    parser.Option("--samples", "S", "jittered samples per pixel, each with new photons", &samples);
    parser.Flag("--resume", "skip frames whose file already exists", &resume);
    parser.Option("--gpus", "all|N|I,J,...",
                  "render on several CUDA devices, one host thread each: all of them, the first N, or those numbered "
                  "(default: the one --device picks). A sequence's frames go to whichever is free; a still's samples "
                  "are shared out",
                  &gpus_text);
    parser.Option("--shard", "I/N",
                  "render only shard I of N of the frames (from 0): the I-th of N contiguous runs, the same for every "
                  "shard, for job arrays of another scheduler",
                  &shard_text);
    parser.Flag("--dry-run",
                "check everything as a render would (creating missing folders), then print the plan as JSON on "
                "standard output instead of rendering: each frame's file and whether it is rendered or skipped",
                &dry_run);
    parser.Option("--sample-range", "A:B",
                  "render samples A to B-1 of the --samples S and write their float sum to an .exr file, for "
                  "caustica combine to add up (a still's samples split between processes)",
                  &sample_range_text);
    AddRenderOptions(parser, &options);
    if (!parser.Parse(args)) return 0;
    if (pattern_text.empty()) throw InputError("caustica render: -o PATTERN is required (see caustica render --help)");
    if (samples < 1 || samples > 65536) throw InputError(Concat("--samples ", samples, ": expected 1 to 65536"));
    SampleSpan span{0, uint32_t(samples)};
    const bool sample_range = !sample_range_text.empty();
    if (sample_range) {
        const SampleRangeArg range = ParseSampleRange(sample_range_text, samples);
        span = {range.first, range.end - range.first};
    }

    const Scene scene = LoadSceneOrDefault(scene_path);
    const FramePattern pattern(pattern_text);
    const FrameRange all_frames =
        frames_text.empty() ? FrameRange{0, LastAnimationFrame(scene)} : ParseFrames(frames_text);
    if (all_frames.count() > 1 && !pattern.HasNumber())
        throw InputError(Concat("-o ", pattern_text, ": ", all_frames.count(),
                                " frames need a frame number in the file pattern, such as frame_%04d.png"));
    const FrameRange frames = shard_text.empty() ? all_frames : ShardOf(all_frames, ParseShard(shard_text));
    // Every frame's file is checked, and its folder created, before the first frame is rendered.
    OutputChecker outputs("-o");
    const IfExists if_exists = resume ? IfExists::keep : IfExists::replace;
    std::vector<OutputFile> files;
    std::vector<int> to_render, skipped;
    for (int f = frames.first; f <= frames.last; ++f) {
        OutputFile file = outputs.Check(pattern.PathFor(f), if_exists);
        const ImageFormat format = ImageFormatOf(file);
        if (sample_range && format != ImageFormat::exr)
            throw InputError(Concat(file.label, ": --sample-range writes the float sum of its samples: -o must name "
                                                ".exr files"));
        if (resume && file.exists) {
            skipped.push_back(f);
        } else {
            to_render.push_back(f);
            files.push_back(std::move(file));
        }
    }
    const std::vector<RenderDevice> devices = SelectRenderDevices(options.device, gpus_text);
    const RenderSettings settings = MakeRenderSettings(scene, options, devices[0].gpu);
    if (dry_run) {
        PrintPlan(scene, all_frames, outputs, pattern, to_render, skipped, samples);
        return 0;
    }

    if (frames.count() < 1) {
        std::fprintf(stderr, "shard %s of frames %d:%d has no frames; nothing to render\n", shard_text.c_str(),
                     all_frames.first, all_frames.last);
        return 0;
    }
    const int last_animated = LastAnimationFrame(scene);
    const int first_past = std::max(frames.first, last_animated + 1);
    if (frames.last >= first_past)
        std::fprintf(stderr, "warning: %s past the animation's end (frame %d at %g frames per second)%s\n",
                     (first_past == frames.last ? Concat("frame ", first_past, " is")
                                                : Concat("frames ", first_past, "-", frames.last, " are"))
                         .c_str(),
                     last_animated, scene.settings.frame_rate,
                     last_animated == 0 ? "; nothing in the scene moves" : "");
    std::fprintf(stderr, "rendering %s of %s on %s: %u photons, k = %d, %s, %s\n",
                 Plural(to_render.size(), "frame").c_str(), scene.path.c_str(), DescribeDevices(devices).c_str(),
                 settings.photons, settings.k,
                 settings.indirect ? Concat("indirect light from ", settings.global_photons, " global photons").c_str()
                                   : "no indirect light",
                 sample_range ? Concat("samples ", span.first, " to ", span.first + span.count - 1, " of ", samples).c_str()
                              : Concat(Plural(size_t(samples), "sample"), " per pixel").c_str());

    std::vector<std::string> names;
    for (const RenderDevice& d : devices) names.push_back(d.name);
    const float display_scale = DisplayScale(settings);
    const ToneMap tone_map = DisplayToneMap(settings);
    const auto write = [&](size_t i, Image& sum) {
        if (sample_range) {
            WriteOutputFile(files[i], EncodeExr(sum, SampleRange{span.first, span.count, uint32_t(samples),
                                                                 display_scale, tone_map}));
        } else {
            ScaleSumToImage(sum, span.count, display_scale);
            WriteImage(sum, files[i], tone_map);
        }
    };
    // A render of one frame is a still: its samples are shared out between the devices. Frames of a
    // sequence go to the devices whole, so each frame is the same whatever the devices.
    if (all_frames.count() == 1 && !to_render.empty()) {
        ProgressBar progress("render", int(span.count), "samples", names);
        ProgressBar* shown = span.count > 1 ? &progress : nullptr;
        Image still = RenderStill(scene, options, to_render[0], span, devices, shown);
        write(0, still);
        if (shown) progress.Finish();
    } else if (!to_render.empty()) {
        ProgressBar progress("render", int(to_render.size()), "frames", names);
        std::vector<size_t> index_of(size_t(frames.count()));
        for (size_t i = 0; i < to_render.size(); ++i) index_of[size_t(to_render[i] - frames.first)] = i;
        RenderAndWriteFrames(scene, options, to_render, span, devices,
                             [&](int frame, Image& sum) { write(index_of[size_t(frame - frames.first)], sum); },
                             to_render.size() > 1 ? &progress : nullptr);
        if (to_render.size() > 1) progress.Finish();
    }
    if (!to_render.empty())
        std::fprintf(stderr, "wrote %s: %s\n", Plural(to_render.size(), "file").c_str(),
                     FilesOf(pattern, pattern_text, to_render).c_str());
    if (!skipped.empty())
        std::fprintf(stderr, "skipped %s (--resume): %s\n", Plural(skipped.size(), "existing file").c_str(),
                     FilesOf(pattern, pattern_text, skipped).c_str());
    return 0;
}

}  // namespace caustica
