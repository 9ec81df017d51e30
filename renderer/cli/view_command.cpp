// caustica view: the live viewer, or, where no window can be opened, the same frame as a PNG file.
#include <cstdio>
#include <cstdlib>

#include "core/error.h"
#include "renderer/cli/commands.h"
#include "renderer/cli/render_options.h"
#include "renderer/frame_renderer.h"
#include "renderer/output/image.h"
#include "renderer/scene/scene_loader.h"
#include "renderer/viewer/viewer.h"

namespace caustica {

int ViewMain(const Args& args) {
    std::string scene_path, fallback_path = "caustica-view.png";
    int samples = 4;
    RenderOptions options;
    ArgParser parser("caustica view",
                     "Shows a scene live: move the camera, lights and objects and watch the caustics follow "
                     "(press h in the window for the keys). Without a display it renders the first frame to a "
                     "PNG file instead and says where.");
    parser.Positional("SCENE", kSceneArgumentHelp, &scene_path, true);
    parser.Option("--png", "FILE",
                  "where to write the frame when no window can be opened: .png, .jpg or .jpeg (8-bit sRGB), or .exr "
                  "(linear 32-bit float RGB)",
                  &fallback_path);
    parser.Option("--samples", "S", "samples per pixel of the PNG written without a window", &samples);
    parser.Option("--max-samples", "N", "samples the window accumulates while nothing moves", &options.max_samples);
    options.denoise = "scene";  // the viewer filters indirect light unless the scene or the user says not to
    AddRenderOptions(parser, &options);
    if (!parser.Parse(args)) return 0;
    if (samples < 1 || samples > 65536) throw InputError(Concat("--samples ", samples, ": expected 1 to 65536"));
    if (options.max_samples < 1 || options.max_samples > 65536)
        throw InputError(Concat("--max-samples ", options.max_samples, ": expected 1 to 65536"));

    Scene scene = LoadSceneOrDefault(scene_path);
    const Backend backend = Backend::Create(options.device);
    std::string why_no_window;
    if (WindowAvailable(&why_no_window)) return RunViewer(scene, scene_path, options, backend);

    const OutputFile file = CheckOutputFile("--png", fallback_path);
    ImageFormatOf(file);
    std::fprintf(stderr, "caustica view: no window (%s); rendering the first frame to a file instead\n",
                 why_no_window.c_str());
    FrameRenderer renderer(backend);
    PrepareFrame(renderer, scene, options, backend, 0.0);
    for (int s = 0; s < samples; ++s) renderer.AddSample();
    WriteImage(renderer.CurrentImage(), file, renderer.tone_map());
    std::printf("wrote %s (%s on %s, %u photons stored)\n", file.path.c_str(), scene.path.c_str(),
                backend.Describe().c_str(), renderer.stored_photons());
    return 0;
}

}  // namespace caustica
