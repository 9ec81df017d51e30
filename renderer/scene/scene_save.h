// Writing a scene back to YAML (the viewer saves edited lights, objects and camera this way).
#pragma once

#include <string>

#include "renderer/scene/scene.h"

namespace caustica {

// The scene as YAML text; file paths are written relative to 'directory' (absolute when that is
// not possible). Loading it back from a file in 'directory' gives an equal scene.
std::string SceneToYaml(const Scene& scene, const std::string& directory);

// The text of a scene file to be written at 'path' (its paths relative to that folder), after the
// scene's own opening comment (or a line saying it was saved). Files are written by the output room (renderer/output/output_file.h).
std::string SavedSceneText(const Scene& scene, const std::string& path);

}  // namespace caustica
