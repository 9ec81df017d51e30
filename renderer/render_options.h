// The options that the rendering subcommands (view, render, bench frame) share, and how they
// combine with a scene's own settings.
#pragma once

#include <string>

#include "core/backend.h"
#include "renderer/cli_args.h"
#include "renderer/frame_renderer.h"
#include "renderer/scene.h"
#include "renderer/scene_to_frame.h"

namespace caustica {

struct RenderOptions {
    std::string device = "auto";
    int seed = 1;
    int photons = 0;  // 0: the scene's setting (capped on the CPU)
    int k = 0;        // 0: the scene's setting
    int width = 0, height = 0;  // 0: the scene camera's resolution
    double exposure = 1.0;
    std::string filter = "cone";
    std::string knn = "exact";
    int max_samples = 1024;  // the viewer stops accumulating here
    std::string view = "image";
};

// Photons per sample on the CPU backend unless --photons asks for more: two CPU cores trace far
// fewer photons per second than a GPU, and the viewer must stay interactive.
constexpr int kCpuDefaultPhotons = 100000;

// --device, --seed, --photons, --k, --width, --height, --exposure, --filter, --knn, --view.
void AddRenderOptions(ArgParser& parser, RenderOptions* options);

// Checks the values (InputError naming the option) and combines them with the scene's settings.
RenderSettings MakeRenderSettings(const Scene& scene, const RenderOptions& options, const Backend& backend);
ImageSize MakeImageSize(const RenderOptions& options);

// The scene at path, or the built-in default scene (scenes/ring.yaml) when path is empty.
Scene LoadSceneOrDefault(const std::string& path);

// Readies renderer for the scene at one time with these options: materials, the frame's
// geometry, lights and camera, the settings. Samples are then added with AddSample().
void PrepareFrame(FrameRenderer& renderer, const Scene& scene, const RenderOptions& options, const Backend& backend,
                  double time_seconds);

}  // namespace caustica
