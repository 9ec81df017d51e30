// The viewer in a build without its window (SDL2, Dear ImGui or OpenGL missing): none can be opened.
#include "core/error.h"
#include "renderer/viewer/viewer.h"

namespace caustica {

bool WindowAvailable(std::string* why_not) {
    *why_not = "this build has no viewer window (CAUSTICA_WINDOW=OFF, or SDL2, Dear ImGui or OpenGL not found)";
    return false;
}

int RunViewer(Scene&, const std::string&, const RenderOptions&, const Backend&) {
    throw RuntimeError("the viewer is not part of this build");
}

}  // namespace caustica
