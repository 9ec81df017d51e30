// The viewer in a build without SDL2: no window can be opened.
#include "core/error.h"
#include "renderer/viewer/viewer.h"

namespace caustica {

bool WindowAvailable(std::string* why_not) {
    *why_not = "this build has no SDL2 window support (CAUSTICA_WINDOW=OFF or SDL2 not found)";
    return false;
}

int RunViewer(Scene&, const std::string&, const RenderOptions&, const Backend&) {
    throw RuntimeError("the viewer is not part of this build");
}

}  // namespace caustica
