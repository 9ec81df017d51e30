// Writing a scene back to YAML (the viewer saves edited lights, objects and camera this way).
#pragma once

#include <string>

#include "renderer/scene/scene.h"

namespace caustica {

// The scene as YAML text; file paths are written relative to 'directory' (absolute when that is
// not possible). Loading it back from a file in 'directory' gives an equal scene.
std::string SceneToYaml(const Scene& scene, const std::string& directory);

// Writes the scene to 'path' through a temporary file in the same folder and a rename, so that a
// failure leaves no half-written file. Failures are RuntimeError naming the path.
void SaveScene(const Scene& scene, const std::string& path);

}  // namespace caustica
