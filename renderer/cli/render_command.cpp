// caustica render: headless rendering of a scene's frames to PNG or JPEG files.
#include <cstdio>
#include <string>

#include "core/backend.h"
#include "core/error.h"
#include "renderer/cli/commands.h"
#include "renderer/cli/frame_pattern.h"
#include "renderer/cli/progress.h"
#include "renderer/cli/render_options.h"
#include "renderer/frame_renderer.h"
#include "renderer/output/image.h"
#include "renderer/scene/scene_eval.h"
#include "renderer/scene/scene_loader.h"

namespace caustica {
namespace {

struct FrameRange {
    int first = 0, last = 0;  // inclusive
};

// "A:B" (frames A through B) or "A" (one frame).
FrameRange ParseFrames(const std::string& text) {
    FrameRange r;
    const size_t colon = text.find(':');
    char* end = nullptr;
    const std::string a = text.substr(0, colon), b = colon == std::string::npos ? a : text.substr(colon + 1);
    const long first = std::strtol(a.c_str(), &end, 10);
    const bool a_ok = !a.empty() && *end == '\0';
    const long last = std::strtol(b.c_str(), &end, 10);
    const bool b_ok = !b.empty() && *end == '\0';
    if (!a_ok || !b_ok || first < 0 || last < first || last > 10000000)
        throw InputError(Concat("--frames \"", text, "\": expected A:B with 0 <= A <= B (frames A through B)"));
    r.first = int(first);
    r.last = int(last);
    return r;
}

}  // namespace

int RenderMain(const Args& args) {
    std::string scene_path, pattern_text, frames_text;
    int samples = 4;
    bool resume = false;
    RenderOptions options;
    ArgParser parser("caustica render",
                     "Renders a scene's frames headless to PNG or JPEG files (by the extension), rebuilding both "
                     "kd-trees every frame.");
    parser.Positional("SCENE", kSceneArgumentHelp, &scene_path, true);
    parser.Option("-o", "PATTERN",
                  "output files, with one frame number such as out/frame_%04d.png (required): .png, .jpg or .jpeg; "
                  "missing folders are created",
                  &pattern_text);
    parser.Option("--frames", "A:B",
                  "frames A through B at the scene's frame rate (default: the whole animation, or frame 0)",
                  &frames_text);
    parser.Option("--samples", "S", "jittered samples per pixel, each with new photons", &samples);
    parser.Flag("--resume", "skip frames whose file already exists", &resume);
    AddRenderOptions(parser, &options);
    if (!parser.Parse(args)) return 0;
    if (pattern_text.empty()) throw InputError("caustica render: -o PATTERN is required (see caustica render --help)");
    if (samples < 1 || samples > 65536) throw InputError(Concat("--samples ", samples, ": expected 1 to 65536"));

    const Scene scene = LoadSceneOrDefault(scene_path);
    const FramePattern pattern(pattern_text);
    FrameRange frames;
    if (!frames_text.empty()) {
        frames = ParseFrames(frames_text);
    } else {
        frames.last = int(AnimationLength(scene) * scene.settings.frame_rate + 1e-6);
    }
    const int count = frames.last - frames.first + 1;
    if (count > 1 && !pattern.HasNumber())
        throw InputError(Concat("-o ", pattern_text, ": ", count,
                                " frames need a frame number in the file pattern, such as frame_%04d.png"));
    // Every frame's file is checked, and its folder created, before the first frame is rendered.
    OutputChecker outputs("-o");
    const IfExists if_exists = resume ? IfExists::keep : IfExists::replace;
    for (int f = frames.first; f <= frames.last; ++f) ImageFormatOf(outputs.Check(pattern.PathFor(f), if_exists));

    const Backend backend = Backend::Create(options.device);
    const RenderSettings settings = MakeRenderSettings(scene, options, backend);
    std::fprintf(stderr, "rendering %d frame%s of %s on %s: %u photons, k = %d, %d samples per pixel\n", count,
                 count == 1 ? "" : "s", scene.path.c_str(), backend.Describe().c_str(), settings.photons, settings.k,
                 samples);
    FrameRenderer renderer(backend);
    renderer.SetMaterials(ToSceneMaterials(scene));
    ProgressBar progress("render", count, "frames");
    int skipped = 0;
    SceneFrame frame;
    FrameInput input;
    for (int f = frames.first; f <= frames.last; ++f) {
        const OutputFile file = outputs.Check(pattern.PathFor(f), if_exists);
        if (resume && file.exists) {
            ++skipped;
        } else {
            EvaluateScene(scene, f / scene.settings.frame_rate, &frame);
            ToFrameInput(scene, frame, MakeImageSize(options), &input);
            renderer.Prepare(input, settings);
            for (int s = 0; s < samples; ++s) renderer.AddSample();
            WriteImage(renderer.CurrentImage(), file);
        }
        if (count > 1) progress.Advance();
    }
    if (count > 1) progress.Finish();
    std::fprintf(stderr, "wrote %d file%s: %s%s\n", count - skipped, count - skipped == 1 ? "" : "s",
                 pattern.PathFor(frames.first).c_str(), count > 1 ? Concat(" ... ", pattern.PathFor(frames.last)).c_str() : "");
    if (skipped > 0) std::fprintf(stderr, "skipped %d existing file%s (--resume)\n", skipped, skipped == 1 ? "" : "s");
    return 0;
}

}  // namespace caustica
