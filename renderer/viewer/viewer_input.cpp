#include "renderer/viewer/viewer_input.h"

#include <algorithm>

namespace caustica {

ImagePlacement ImagePlacement::Fit(int window_width, int window_height, int image_width, int image_height) {
    ImagePlacement p;
    p.scale =
        std::max(std::min(float(window_width) / float(image_width), float(window_height) / float(image_height)), 1e-3f);
    p.x = 0.5f * (float(window_width) - p.scale * float(image_width));
    p.y = 0.5f * (float(window_height) - p.scale * float(image_height));
    return p;
}

void ViewerInput::Nudge(Vec3 offset) {
    if (state_.editor().selected_kind() == ViewEditor::Kind::None) return;
    state_.BeginEdit();
    state_.editor().Move(offset);
    state_.EndEdit();
}

WindowAction ViewerInput::Key(const SDL_Keysym& key) {
    // The modifiers held when the key went down, as the event says: read later, a slow frame
    // would see the keyboard as it is then.
    const bool shift = key.mod & KMOD_SHIFT, ctrl = key.mod & KMOD_CTRL;
    ViewEditor& editor = state_.editor();
    const CameraView& camera = state_.input().camera;
    const float nudge = 0.02f * Length(state_.frame().bounds.Extent());
    const Vec3 forward = Normalize(Vec3(camera.forward.x, 0.0f, camera.forward.z));
    const Vec3 right = Normalize(Vec3(camera.right.x, 0.0f, camera.right.z));
    switch (key.sym) {
        case SDLK_q: return WindowAction::quit;
        case SDLK_ESCAPE:
            if (!state_.show_help) return WindowAction::quit;
            state_.show_help = false;
            break;
        case SDLK_z:
            if (ctrl && !(shift ? state_.Redo() : state_.Undo()))
                state_.Inform(shift ? "nothing to redo" : "nothing to undo");
            break;
        case SDLK_y:
            if (ctrl && !state_.Redo()) state_.Inform("nothing to redo");
            break;
        case SDLK_h: state_.show_help = !state_.show_help; break;
        case SDLK_F1: state_.show_panel = !state_.show_panel; break;
        case SDLK_F11: return WindowAction::toggle_fullscreen;
        case SDLK_TAB: editor.SelectNextLight(); break;
        case SDLK_o: editor.SelectNextObject(); break;
        case SDLK_UP: Nudge(forward * nudge); break;
        case SDLK_DOWN: Nudge(forward * -nudge); break;
        case SDLK_RIGHT: Nudge(right * nudge); break;
        case SDLK_LEFT: Nudge(right * -nudge); break;
        case SDLK_PAGEUP: Nudge(Vec3(0, nudge, 0)); break;
        case SDLK_PAGEDOWN: Nudge(Vec3(0, -nudge, 0)); break;
        case SDLK_PLUS:
        case SDLK_EQUALS:
        case SDLK_KP_PLUS:
        case SDLK_MINUS:
        case SDLK_KP_MINUS:
            state_.BeginEdit();
            editor.ScaleLightPower(key.sym == SDLK_MINUS || key.sym == SDLK_KP_MINUS ? 0.8f : 1.25f);
            state_.EndEdit();
            break;
        case SDLK_c: {
            state_.BeginEdit();
            const std::string name = editor.CycleLightColour();
            state_.EndEdit();
            if (!name.empty()) state_.Inform(Concat("light colour: ", name));
            break;
        }
        case SDLK_p: state_.ScalePhotons(!shift); break;
        case SDLK_k: state_.StepK(!shift); break;
        case SDLK_SPACE: state_.TogglePlay(); break;
        case SDLK_PERIOD: state_.StepFrames(1); break;
        case SDLK_COMMA: state_.StepFrames(-1); break;
        case SDLK_1: state_.SetView(ShadeView::Full); break;
        case SDLK_2: state_.SetView(ShadeView::Photons); break;
        case SDLK_3: state_.SetView(ShadeView::CausticOnly); break;
        case SDLK_4: state_.SetView(ShadeView::KnnRadius); break;
        case SDLK_5: state_.SetView(ShadeView::TraversalCost); break;
        case SDLK_t: state_.CycleToneMap(); break;
        case SDLK_s: state_.Save(); break;
        case SDLK_x:
        case SDLK_F12: return WindowAction::screenshot;
        default: break;
    }
    return WindowAction::none;
}

WindowAction ViewerInput::Handle(const SDL_Event& e, const ImagePlacement& placement, bool mouse_free,
                                 bool keyboard_free) {
    switch (e.type) {
        case SDL_QUIT: return WindowAction::quit;
        case SDL_KEYUP: mods_ = e.key.keysym.mod; break;
        case SDL_KEYDOWN:
            mods_ = e.key.keysym.mod;
            if (keyboard_free) return Key(e.key.keysym);
            break;
        case SDL_MOUSEBUTTONDOWN: {
            if (!mouse_free || drag_ != Drag::none) break;
            const bool shift = mods_ & KMOD_SHIFT, ctrl = mods_ & KMOD_CTRL;
            const bool selected = state_.editor().selected_kind() != ViewEditor::Kind::None;
            if (e.button.button == SDL_BUTTON_RIGHT)
                drag_ = Drag::pan;
            else if (e.button.button != SDL_BUTTON_LEFT)
                break;
            else if (selected && ctrl)
                drag_ = Drag::move_floor;
            else if (selected && shift)
                drag_ = Drag::move_facing;
            else
                drag_ = Drag::orbit;
            if (drag_ == Drag::move_floor || drag_ == Drag::move_facing) state_.BeginEdit();
            drag_moved_ = false;
            last_x_ = e.button.x;
            last_y_ = e.button.y;
            break;
        }
        case SDL_MOUSEBUTTONUP:
            if (drag_ == Drag::none) break;
            // A click without motion picks what is under the mouse.
            if (drag_ != Drag::pan && !drag_moved_) {
                const float x = placement.ImageX(float(e.button.x) + 0.5f),
                            y = placement.ImageY(float(e.button.y) + 0.5f);
                const CameraView& camera = state_.input().camera;
                if (x >= 0 && y >= 0 && x < float(camera.width) && y < float(camera.height))
                    state_.editor().Pick(x, y, camera, state_.FrameWithTriangles());
            }
            if (state_.editing()) state_.EndEdit();
            drag_ = Drag::none;
            break;
        case SDL_MOUSEMOTION: {
            if (drag_ == Drag::none) break;
            const int dx = e.motion.x - last_x_, dy = e.motion.y - last_y_;
            if (dx == 0 && dy == 0) break;
            drag_moved_ = true;
            const CameraView& camera = state_.input().camera;
            if (drag_ == Drag::pan) {
                state_.editor().Pan(float(dx) / placement.scale, float(dy) / placement.scale, camera);
            } else if (drag_ == Drag::orbit) {
                state_.editor().Orbit(float(dx), float(dy));
            } else {
                const Vec3 normal = drag_ == Drag::move_floor ? Vec3(0, 1, 0) : camera.forward;
                state_.editor().Move(
                    ViewEditor::DragOnPlane(camera, state_.editor().SelectedPosition(state_.frame()), normal,
                                            placement.ImageX(float(last_x_)), placement.ImageY(float(last_y_)),
                                            placement.ImageX(float(e.motion.x)), placement.ImageY(float(e.motion.y))));
            }
            last_x_ = e.motion.x;
            last_y_ = e.motion.y;
            state_.MarkChanged();
            break;
        }
        case SDL_MOUSEWHEEL:
            if (!mouse_free) break;
            state_.editor().Zoom(float(e.wheel.y));
            state_.MarkChanged();
            break;
        default: break;
    }
    return WindowAction::none;
}

}  // namespace caustica
