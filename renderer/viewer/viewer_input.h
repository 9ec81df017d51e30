// The viewer's input: SDL events (keys with the modifiers they carry, mouse drags and clicks, the
// wheel) become edits of a ViewerState, or actions for the window. No display is needed: tests
// push events through SDL's queue with its dummy video driver.
#pragma once

#include <SDL.h>

#include "renderer/viewer/viewer_state.h"

namespace caustica {

// Where the image lies in the window: scaled to fit, centred, its aspect ratio kept.
struct ImagePlacement {
    float x = 0, y = 0, scale = 1;
    static ImagePlacement Fit(int window_width, int window_height, int image_width, int image_height);
    float ImageX(float window_x) const { return (window_x - x) / scale; }
    float ImageY(float window_y) const { return (window_y - y) / scale; }
    float WindowX(float image_x) const { return x + image_x * scale; }
    float WindowY(float image_y) const { return y + image_y * scale; }
};

// What an event asks of the window itself.
enum class WindowAction { none, quit, screenshot, toggle_fullscreen };

class ViewerInput {
public:
    explicit ViewerInput(ViewerState& state) : state_(state) {}

    // Handles one event. mouse_free / keyboard_free: the on-screen interface does not want the
    // mouse / keyboard now (a click on the panel is not a pick).
    WindowAction Handle(const SDL_Event& event, const ImagePlacement& placement, bool mouse_free = true,
                        bool keyboard_free = true);

private:
    enum class Drag { none, orbit, pan, move_facing, move_floor };
    WindowAction Key(const SDL_Keysym& key);
    void Nudge(Vec3 offset);

    ViewerState& state_;
    Uint16 mods_ = KMOD_NONE;  // the modifiers as the last key event carried them
    Drag drag_ = Drag::none;
    bool drag_moved_ = false;
    int last_x_ = 0, last_y_ = 0;
};

}  // namespace caustica
