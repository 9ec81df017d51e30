// caustica info: loads and validates a scene and prints its statistics.
#include <iostream>

#include "core/error.h"
#include "renderer/cli/cli_args.h"
#include "renderer/cli/commands.h"
#include "renderer/cli/render_options.h"
#include "renderer/scene/scene_loader.h"
#include "renderer/scene/scene_stats.h"

namespace caustica {

int InfoMain(const Args& args) {
    std::string scene_path;
    ArgParser parser("caustica info", "Loads and validates a scene file and prints its statistics.");
    parser.Positional("SCENE", kSceneArgumentHelp, &scene_path, true);
    if (!parser.Parse(args)) return 0;
    const Scene scene = LoadSceneOrDefault(scene_path);
    PrintSceneStats(scene, ComputeSceneStats(scene), std::cout);
    return 0;
}

}  // namespace caustica
