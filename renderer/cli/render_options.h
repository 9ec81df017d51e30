// The command-line options that the rendering subcommands (view, render, bench frame) share.
#pragma once

#include "renderer/cli/cli_args.h"
#include "renderer/scene_to_frame.h"

namespace caustica {

// The help of the SCENE argument of view, render, info and bench frame.
constexpr const char* kSceneArgumentHelp =
    "a scene file: YAML (.yaml, .yml) or glTF 2.0 (.gltf, .glb) (default: the built-in ring scene)";

// --device, --seed, --photons, --k, --indirect, --global-photons, --gather-rays, --denoise, --progressive,
// --width, --height, --exposure, --tonemap, --filter, --knn, --integrator, --view.
void AddRenderOptions(ArgParser& parser, RenderOptions* options);

}  // namespace caustica
