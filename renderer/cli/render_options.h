// The command-line options that the rendering subcommands (view, render, bench frame) share.
#pragma once

#include "renderer/cli/cli_args.h"
#include "renderer/scene_to_frame.h"

namespace caustica {

// --device, --seed, --photons, --k, --width, --height, --exposure, --filter, --knn, --view.
void AddRenderOptions(ArgParser& parser, RenderOptions* options);

}  // namespace caustica
