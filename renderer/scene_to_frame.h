// From a loaded scene to what the frame renderer uploads: the materials and textures once per
// scene, the geometry, lights and camera once per frame, and the render settings that the
// scene's own settings and the user's options give together.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/backend.h"
#include "photon/surface.h"
#include "renderer/frame_input.h"
#include "renderer/frame_renderer.h"
#include "renderer/scene/scene.h"
#include "renderer/scene/scene_eval.h"

namespace caustica {

// What the user asks of the rendering commands (view, render, bench frame) on top of the scene's
// own settings; the command line fills it (cli/render_options.h).
struct RenderOptions {
    std::string device = "auto";
    int seed = 1;
    int photons = 0;  // 0: the scene's setting (capped on the CPU)
    int k = 0;        // 0: the scene's setting
    int specular_splits = -1;  // -1: the scene's setting
    int shadow_samples = 0;    // 0: the scene's setting
    std::string indirect = "scene";  // indirect light: "on", "off", or the scene's setting
    int global_photons = 0;    // 0: the scene's setting (capped on the CPU)
    int gather_rays = -1;      // final gathering's rays: -1: the scene's setting; 0: off
    // The filter of indirect light: "on", "off", or the scene's setting (the viewer's default).
    std::string denoise = "off";
    std::string progressive = "scene";  // progressive radii: "on", "off", or the scene's setting
    int width = 0, height = 0;  // 0: the scene camera's resolution
    double exposure = 1.0;
    std::string tonemap;  // "": the scene's settings.tonemap; else none, filmic or agx
    std::string filter = "cone";
    std::string knn = "exact";
    int max_samples = 1024;  // the viewer stops accumulating here
    std::string view = "image";
    std::string integrator = "photon";  // "photon" (photon mapping) or "path" (the reference path tracer)
};

// Photons per sample on the CPU backend unless --photons asks for more: two CPU cores trace far
// fewer photons per second than a GPU, and the viewer must stay interactive.
constexpr int kCpuDefaultPhotons = 100000;

// Checks the values (InputError naming the option) and combines them with the scene's settings
// for the backend's kind of device (gpu: a CUDA backend).
RenderSettings MakeRenderSettings(const Scene& scene, const RenderOptions& options, bool gpu);
RenderSettings MakeRenderSettings(const Scene& scene, const RenderOptions& options, const Backend& backend);

// Output size: the scene camera's resolution unless overridden (0 keeps the scene's).
struct ImageSize {
    int width = 0, height = 0;
};
ImageSize MakeImageSize(const RenderOptions& options);
// The size of the image for a camera of camera_width x camera_height pixels: a side that 'asked'
// leaves 0 is the camera's, or, when the other side is given, keeps the camera's aspect ratio.
ImageSize FrameImageSize(ImageSize asked, int camera_width, int camera_height);

SceneMaterials ToSceneMaterials(const Scene& scene);
FrameInput ToFrameInput(const Scene& scene, const SceneFrame& frame, ImageSize size);
// The same into an existing input, reusing its arrays' memory (for a per-frame loop).
void ToFrameInput(const Scene& scene, const SceneFrame& frame, ImageSize size, FrameInput* input);
// Only the camera, lights, ambient light and time; the input's geometry stays (it must be the
// frame's).
void CameraAndLightsToFrameInput(const Scene& scene, const SceneFrame& frame, ImageSize size, FrameInput* input);
// The placements of the input's moving objects and height fields at a time.
void PlaceObjects(const Scene& scene, double time_seconds, FrameInput* input);
// The frame's bounds and the bounds of its mirror and glass objects (for photon emission).
void BoundsToFrameInput(const Scene& scene, const SceneFrame& frame, FrameInput* input);

// A scene's frame inputs one time after another, for the per-frame loops (sequences, benchmarks,
// the viewer): the camera, the lights and the placements of moving objects are evaluated at every
// time, the triangles once (and again when the scene was edited): the frame renderer uploads them
// once and places moving objects and generates moving water on the device.
class SceneFrames {
public:
    SceneFrames(const Scene& scene, ImageSize size);

    const FrameInput& At(double time_seconds);
    // The scene's objects were edited: the next At() evaluates the geometry again.
    void GeometryChanged();
    // The last At()'s frame and input. The frame's triangles of moving objects are those of an
    // earlier time (the renderer places them); its bounds, camera and lights are current.
    const SceneFrame& frame() const { return frame_; }
    const FrameInput& input() const { return input_; }
    // The last At()'s frame with every triangle at its time, evaluated here when needed (picking).
    const SceneFrame& FrameWithTriangles();

private:
    const Scene& scene_;
    ImageSize size_;
    bool geometry_moves_ = false, geometry_ready_ = false;
    bool triangles_current_ = false;  // frame_'s triangles are at its time
    SceneFrame frame_;
    FrameInput input_;
};

// Readies renderer for the scene at one time with these options: materials, the frame's
// geometry, lights and camera, the settings. Samples are then added with AddSample().
void PrepareFrame(FrameRenderer& renderer, const Scene& scene, const RenderOptions& options, const Backend& backend,
                  double time_seconds);

}  // namespace caustica
