// The live viewer window (built when SDL2, Dear ImGui and OpenGL are found; see CAUSTICA_WINDOW).
#pragma once

#include <string>

#include "core/backend.h"
#include "renderer/scene/scene.h"
#include "renderer/scene_to_frame.h"

namespace caustica {

// Whether a window can be opened here (a build with SDL2 and a display); if not, why.
bool WindowAvailable(std::string* why_not);

// Runs the viewer until the window is closed. scene_path is where edits are saved beside
// (empty: the built-in scene, saved in the current folder).
int RunViewer(Scene& scene, const std::string& scene_path, const RenderOptions& options, const Backend& backend);

}  // namespace caustica
