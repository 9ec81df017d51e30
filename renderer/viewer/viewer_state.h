// The viewer's state apart from any window: the scene being edited (through ViewEditor), the
// render settings, the animation clock, undo and redo, saving, and the messages shown to the
// user. The window (viewer.cpp) draws it and feeds it input (viewer_input.h); tests drive it
// without a display.
#pragma once

#include <chrono>
#include <iterator>
#include <string>
#include <vector>

#include "core/backend.h"
#include "renderer/frame_input.h"
#include "renderer/frame_renderer.h"
#include "renderer/scene/scene.h"
#include "renderer/scene/scene_eval.h"
#include "renderer/scene_to_frame.h"
#include "renderer/viewer/view_editor.h"

namespace caustica {

// Photons per sample the viewer traces at most, so that a frame stays short enough for input to
// interrupt it between samples: keys cannot ask for more, and a scene or --photons asking for
// more is capped (and the panel says so). caustica render has no such cap.
constexpr uint32_t kInteractivePhotonsCpu = 400000;
constexpr uint32_t kInteractivePhotonsGpu = 4000000;

// Where NAME.yaml's edits are saved: NAME.edited.yaml beside it (the built-in scene: in the
// current folder).
std::string EditedScenePath(const std::string& scene_path);

struct ViewerMessage {
    std::string text;
    bool error = false;
    double time = 0;  // seconds since the viewer started
};

class ViewerState {
public:
    ViewerState(Scene& scene, std::string scene_path, const RenderOptions& options, const Backend& backend);

    Scene& scene() { return scene_; }
    ViewEditor& editor() { return editor_; }
    const RenderSettings& settings() const { return settings_; }
    uint32_t photon_budget() const { return budget_; }
    // Why fewer photons are traced than asked for, or "" when none are held back.
    const std::string& photon_cap_note() const { return cap_note_; }

    // The scene at the current time and the camera's view of it (valid after Refresh()).
    const SceneFrame& frame() const { return frames_.frame(); }
    // The same with every triangle at the current time (moving objects' are otherwise placed on
    // the device only), for picking.
    const SceneFrame& FrameWithTriangles() { return frames_.FrameWithTriangles(); }
    const FrameInput& input() const { return frames_.input(); }
    // Re-evaluates the frame when anything changed since the last call; returns whether the frame
    // is new since the last call (the first call's is: the renderer must then Prepare it).
    bool Refresh();
    // Whether materials changed since the last call (the renderer must take them again).
    bool TakeMaterialChange();
    // Something changed the frame outside BeginEdit/EndEdit (the camera; a widget mid-drag).
    void MarkChanged() { changed_ = edited_ = true; }
    void MarkMaterialsChanged() { materials_changed_ = changed_ = edited_ = true; }

    // Undo and redo of edits to lights, objects, materials and settings (not of the camera,
    // which moves too often to be worth a step). An edit is BeginEdit(), changes, EndEdit(): a
    // step is recorded only if something changed.
    void BeginEdit();
    void EndEdit();
    bool editing() const { return editing_; }
    bool Undo();
    bool Redo();
    std::size_t undo_steps() const { return undo_.size(); }
    std::size_t redo_steps() const { return redo_.size(); }

    // Settings edits (undoable): twice / half the photons per sample (within the interactive
    // budget), k up or down by 10, the view.
    void ScalePhotons(bool more);
    void StepK(bool more);
    void SetView(ShadeView view) {
        settings_.view = view;
        changed_ = true;
    }
    // The tone map of the window and screenshots, kept in the scene's settings (saved with it).
    void SetToneMap(ToneMap tone_map);
    void CycleToneMap() { SetToneMap(ToneMap((int(settings_.tone_map) + 1) % int(std::size(kToneMapNames)))); }

    // The animation clock.
    double time() const { return time_; }
    double length() const { return length_; }
    bool playing() const { return playing_; }
    void TogglePlay();
    void StepFrames(int frames);  // stops playing
    void SetTime(double seconds); // stops playing
    void Advance();               // one frame forward while playing, looping at the end

    // Saves the scene as EditedScenePath(); a failure is a message, never the end of the viewer.
    bool Save();
    std::string save_path() const { return EditedScenePath(scene_path_); }

    // Messages for the window, also printed (errors to stderr).
    void Inform(const std::string& text);
    void ReportError(const std::string& text);
    const std::vector<ViewerMessage>& messages() const { return messages_; }
    double Seconds() const;

    bool show_help = false;
    bool show_panel = true;

private:
    struct Snapshot {
        std::vector<Light> lights;
        std::vector<Object> objects;
        std::vector<Material> materials;
        Settings scene_settings;
        uint32_t photons = 0;
        int k = 0;
        ToneMap tone_map = ToneMap::None;
    };
    Snapshot Take() const;
    void Restore(const Snapshot& s);
    static bool Same(const Snapshot& a, const Snapshot& b);
    // Undo (from undo_ to redo_) or redo (the other way).
    bool Step(std::vector<Snapshot>& from, std::vector<Snapshot>& to);
    void UpdateCap(uint32_t asked);

    Scene& scene_;
    std::string scene_path_;
    ViewEditor editor_;
    RenderSettings settings_;
    uint32_t budget_ = 0;
    std::string cap_note_;
    SceneFrames frames_;
    // changed_: the frame must be evaluated again; edited_: the scene too (not only the clock or
    // the view), so its geometry may have moved.
    bool changed_ = true, edited_ = true, materials_changed_ = false;
    bool reported_ = false;  // Refresh() has returned the current frame as new
    Snapshot pending_;
    bool editing_ = false;
    std::vector<Snapshot> undo_, redo_;
    double time_ = 0, length_ = 0, frame_step_ = 0;
    bool playing_ = false;
    std::vector<ViewerMessage> messages_;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace caustica
