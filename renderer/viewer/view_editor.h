// The viewer's edits of a scene, kept apart from the window so they can be tested without one:
// orbiting, panning and zooming the camera, picking and moving lights and objects, and changing
// a light's power and colour. Edits change the Scene itself, so saving it keeps them.
#pragma once

#include <string>

#include "core/vec.h"
#include "renderer/scene/scene.h"
#include "renderer/scene/scene_eval.h"
#include "shaders_cuda/camera_view.h"

namespace caustica {

class ViewEditor {
public:
    enum class Kind { None, Light, Object };

    explicit ViewEditor(Scene& scene);

    // Camera: orbit around the look-at point, pan both, zoom toward it. Amounts are in pixels
    // (mouse motion) or wheel steps. An animated camera stops following its keys once moved.
    void Orbit(float dx, float dy);
    void Pan(float dx, float dy, const CameraView& camera);
    void Zoom(float steps);

    // Selection: cycle through lights or objects, or pick what is under image point (x, y):
    // a light within 12 pixels of its projection first, else the object of the closest triangle.
    void SelectNextLight();
    void SelectNextObject();
    bool Pick(float x, float y, const CameraView& camera, const SceneFrame& frame);
    Kind selected_kind() const { return kind_; }
    int selected_index() const { return index_; }
    std::string Describe() const;

    // Moves the selection by a world-space offset (all its keyframes, or its orbit, with it).
    void Move(Vec3 delta);
    // Where the selection is now (for drags), at the given time.
    Vec3 SelectedPosition(const SceneFrame& frame) const;
    // The offset that carries a point on the plane through 'anchor' (with normal 'normal') from
    // under image point (x0, y0) to under (x1, y1); zero when the plane is edge-on.
    static Vec3 DragOnPlane(const CameraView& camera, Vec3 anchor, Vec3 normal, float x0, float y0, float x1,
                            float y1);

    void ScaleLightPower(float factor);
    // Gives the selected light the next of a few named colours; returns the name ("" when no
    // light is selected).
    std::string CycleLightColour();

private:
    Scene& scene_;
    Kind kind_ = Kind::None;
    int index_ = -1;
    int colour_ = 0;
};

}  // namespace caustica
