// The live SDL2 viewer: renders the scene every frame (both trees rebuilt whenever anything moves,
// samples accumulated while nothing does) and lets the user move the camera, lights and objects.
#include "renderer/viewer/viewer.h"

#include <SDL.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "core/error.h"
#include "renderer/frame_renderer.h"
#include "renderer/output/image.h"
#include "renderer/scene/scene_eval.h"
#include "renderer/scene/scene_save.h"
#include "renderer/viewer/view_editor.h"

namespace caustica {
namespace {

const char* kKeys =
    "Caustica viewer keys\n"
    "\n"
    "  left drag            orbit the camera\n"
    "  right drag           pan the camera\n"
    "  wheel                zoom\n"
    "  click                select the light or object under the mouse\n"
    "  shift + left drag    move the selection in the plane facing the view\n"
    "  ctrl + left drag     move the selection along the floor\n"
    "  arrows, PgUp, PgDn   nudge the selection (floor plane, up, down)\n"
    "  tab / o              select the next light / object\n"
    "  + / -                selected light: more / less power\n"
    "  c                    selected light: next colour\n"
    "  p / shift+p          twice / half the photons\n"
    "  k / shift+k          k + 10 / k - 10 photons per estimate\n"
    "  space                pause or play the animation\n"
    "  . / ,                step the animation one frame forward / back\n"
    "  1 2 3 4 5            view: image, photons, caustics only, KNN radius heat map,\n"
    "                       traversal cost heat map (ray-triangle tests of the eye rays)\n"
    "  s                    save the edited scene as YAML\n"
    "  x or F12             save a screenshot (PNG)\n"
    "  h                    this list\n"
    "  q or Esc             quit\n";

std::string EditedScenePath(const std::string& scene_path) {
    if (scene_path.empty()) return "ring.edited.yaml";
    std::filesystem::path p(scene_path);
    return (p.parent_path() / (p.stem().string() + ".edited.yaml")).string();
}

std::string NextScreenshotPath() {
    for (int i = 0;; ++i) {
        char name[64];
        std::snprintf(name, sizeof(name), "caustica-screenshot-%04d.png", i);
        if (!std::filesystem::exists(name)) return name;
    }
}

// A file the user asked for that cannot be written is reported, and the session goes on.
template <class Save>
void SaveOrSay(const Save& save) {
    try {
        save();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "caustica view: not saved: %s\n", e.what());
    }
}

struct SdlWindow {
    SDL_Window* window = nullptr;
    SDL_Renderer* renderer = nullptr;
    SDL_Texture* texture = nullptr;
    ~SdlWindow() {
        if (texture) SDL_DestroyTexture(texture);
        if (renderer) SDL_DestroyRenderer(renderer);
        if (window) SDL_DestroyWindow(window);
        SDL_Quit();
    }
};

}  // namespace

bool WindowAvailable(std::string* why_not) {
    if (std::getenv("DISPLAY") == nullptr && std::getenv("WAYLAND_DISPLAY") == nullptr) {
        *why_not = "no display: DISPLAY and WAYLAND_DISPLAY are not set";
        return false;
    }
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        *why_not = Concat("SDL could not start video: ", SDL_GetError());
        return false;
    }
    // When it cannot reach the display server, SDL falls back to drivers that show nothing.
    const std::string driver = SDL_GetCurrentVideoDriver() ? SDL_GetCurrentVideoDriver() : "";
    SDL_Quit();
    if (std::getenv("SDL_VIDEODRIVER") == nullptr && (driver == "offscreen" || driver == "dummy")) {
        *why_not = Concat("no display server answered at DISPLAY or WAYLAND_DISPLAY (SDL could only start its '",
                          driver, "' video driver, which shows no window)");
        return false;
    }
    return true;
}

int RunViewer(Scene& scene, const std::string& scene_path, const RenderOptions& options, const Backend& backend) {
    RenderSettings settings = MakeRenderSettings(scene, options, backend);
    const ImageSize size = MakeImageSize(options);
    ViewEditor editor(scene);
    FrameRenderer renderer(backend);
    renderer.SetMaterials(ToSceneMaterials(scene));

    SceneFrame frame = EvaluateScene(scene, 0.0);
    FrameInput input = ToFrameInput(scene, frame, size);
    const int width = input.camera.width, height = input.camera.height;

    if (SDL_Init(SDL_INIT_VIDEO) != 0) throw RuntimeError(Concat("SDL_Init: ", SDL_GetError()));
    SdlWindow w;
    w.window = SDL_CreateWindow("caustica", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, width, height, 0);
    if (!w.window) throw RuntimeError(Concat("SDL_CreateWindow: ", SDL_GetError()));
    w.renderer = SDL_CreateRenderer(w.window, -1, 0);
    if (!w.renderer) throw RuntimeError(Concat("SDL_CreateRenderer: ", SDL_GetError()));
    w.texture = SDL_CreateTexture(w.renderer, SDL_PIXELFORMAT_RGBA32, SDL_TEXTUREACCESS_STREAMING, width, height);
    if (!w.texture) throw RuntimeError(Concat("SDL_CreateTexture: ", SDL_GetError()));
    std::printf("caustica view: %s on %s; press h for the keys\n", scene.path.c_str(), backend.Describe().c_str());

    const double length = AnimationLength(scene);
    const double frame_step = 1.0 / scene.settings.frame_rate;
    double time = 0.0;
    bool playing = length > 0.0, changed = true, quit = false;
    bool dragging = false, drag_moved = false;
    int drag_button = 0, last_x = 0, last_y = 0;
    auto last_frame = std::chrono::steady_clock::now();
    double fps = 0.0;

    while (!quit) {
        SDL_Event e;
        while (SDL_PollEvent(&e)) {
            const SDL_Keymod mods = SDL_GetModState();
            const bool shift = mods & KMOD_SHIFT, ctrl = mods & KMOD_CTRL;
            switch (e.type) {
                case SDL_QUIT: quit = true; break;
                case SDL_MOUSEBUTTONDOWN:
                    dragging = true;
                    drag_moved = false;
                    drag_button = e.button.button;
                    last_x = e.button.x;
                    last_y = e.button.y;
                    break;
                case SDL_MOUSEBUTTONUP:
                    if (dragging && !drag_moved && drag_button == SDL_BUTTON_LEFT)
                        editor.Pick(float(e.button.x) + 0.5f, float(e.button.y) + 0.5f, input.camera, frame);
                    dragging = false;
                    break;
                case SDL_MOUSEMOTION: {
                    if (!dragging) break;
                    const int dx = e.motion.x - last_x, dy = e.motion.y - last_y;
                    if (dx == 0 && dy == 0) break;
                    drag_moved = true;
                    if (drag_button == SDL_BUTTON_RIGHT) {
                        editor.Pan(float(dx), float(dy), input.camera);
                    } else if ((shift || ctrl) && editor.selected_kind() != ViewEditor::Kind::None) {
                        const Vec3 normal = ctrl ? Vec3(0, 1, 0) : input.camera.forward;
                        editor.Move(ViewEditor::DragOnPlane(input.camera, editor.SelectedPosition(frame), normal,
                                                            float(last_x), float(last_y), float(e.motion.x),
                                                            float(e.motion.y)));
                    } else {
                        editor.Orbit(float(dx), float(dy));
                    }
                    last_x = e.motion.x;
                    last_y = e.motion.y;
                    changed = true;
                    break;
                }
                case SDL_MOUSEWHEEL:
                    editor.Zoom(float(e.wheel.y));
                    changed = true;
                    break;
                case SDL_KEYDOWN: {
                    const float nudge = 0.02f * Length(frame.bounds.Extent());
                    const Vec3 forward = Normalize(Vec3(input.camera.forward.x, 0.0f, input.camera.forward.z));
                    const Vec3 right = Normalize(Vec3(input.camera.right.x, 0.0f, input.camera.right.z));
                    bool edit = true;
                    switch (e.key.keysym.sym) {
                        case SDLK_ESCAPE: case SDLK_q: quit = true; edit = false; break;
                        case SDLK_h:
                            std::fputs(kKeys, stdout);
                            SDL_ShowSimpleMessageBox(SDL_MESSAGEBOX_INFORMATION, "caustica keys", kKeys, w.window);
                            edit = false;
                            break;
                        case SDLK_TAB: editor.SelectNextLight(); edit = false; break;
                        case SDLK_o: editor.SelectNextObject(); edit = false; break;
                        case SDLK_UP: editor.Move(forward * nudge); break;
                        case SDLK_DOWN: editor.Move(forward * -nudge); break;
                        case SDLK_RIGHT: editor.Move(right * nudge); break;
                        case SDLK_LEFT: editor.Move(right * -nudge); break;
                        case SDLK_PAGEUP: editor.Move(Vec3(0, nudge, 0)); break;
                        case SDLK_PAGEDOWN: editor.Move(Vec3(0, -nudge, 0)); break;
                        case SDLK_PLUS: case SDLK_EQUALS: case SDLK_KP_PLUS: editor.ScaleLightPower(1.25f); break;
                        case SDLK_MINUS: case SDLK_KP_MINUS: editor.ScaleLightPower(0.8f); break;
                        case SDLK_c: editor.CycleLightColour(); break;
                        case SDLK_p:
                            settings.photons = shift ? std::max(1000u, settings.photons / 2)
                                                     : std::min(100000000u, settings.photons * 2);
                            break;
                        case SDLK_k: settings.k = shift ? std::max(1, settings.k - 10) : std::min(1024, settings.k + 10); break;
                        case SDLK_SPACE: playing = !playing && length > 0.0; break;
                        case SDLK_PERIOD: time = std::min(length, time + frame_step); playing = false; break;
                        case SDLK_COMMA: time = std::max(0.0, time - frame_step); playing = false; break;
                        case SDLK_1: settings.view = ShadeView::Full; break;
                        case SDLK_2: settings.view = ShadeView::Photons; break;
                        case SDLK_3: settings.view = ShadeView::CausticOnly; break;
                        case SDLK_4: settings.view = ShadeView::KnnRadius; break;
                        case SDLK_5: settings.view = ShadeView::TraversalCost; break;
                        case SDLK_s:
                            SaveOrSay([&] {
                                const OutputFile file = CheckOutputFile("", EditedScenePath(scene_path));
                                WriteOutputFile(file, SavedSceneText(scene, file.path));
                                std::printf("saved the edited scene to %s\n", file.given.c_str());
                            });
                            edit = false;
                            break;
                        case SDLK_x: case SDLK_F12:
                            SaveOrSay([&] {
                                const OutputFile file = CheckOutputFile("", NextScreenshotPath());
                                WriteImage(renderer.CurrentImage(), file);
                                std::printf("saved a screenshot to %s (%u samples)\n", file.given.c_str(),
                                            renderer.samples());
                            });
                            edit = false;
                            break;
                        default: edit = false; break;
                    }
                    changed = changed || edit;
                    break;
                }
                default: break;
            }
        }
        if (quit) break;

        if (playing) {
            time += frame_step;
            if (time > length) time = 0.0;
            changed = true;
        }
        if (changed) {
            EvaluateScene(scene, time, &frame);
            ToFrameInput(scene, frame, size, &input);
            renderer.Prepare(input, settings);
            changed = false;
        }
        const bool render = renderer.samples() < uint32_t(options.max_samples);
        if (render) {
            renderer.AddSample();
            const std::vector<uint32_t> pixels = renderer.DisplayPixels();
            SDL_UpdateTexture(w.texture, nullptr, pixels.data(), width * 4);
        } else {
            SDL_Delay(10);  // converged: nothing to do until the next edit
        }
        SDL_RenderClear(w.renderer);
        SDL_RenderCopy(w.renderer, w.texture, nullptr, nullptr);
        SDL_RenderPresent(w.renderer);

        // The frame rate of rendered frames (a converged view renders nothing).
        const auto now = std::chrono::steady_clock::now();
        const double seconds = std::chrono::duration<double>(now - last_frame).count();
        last_frame = now;
        if (render) fps = fps == 0.0 ? 1.0 / seconds : 0.9 * fps + 0.1 / seconds;
        const PassTimes& t = renderer.times();
        const std::string title =
            Concat("caustica - ", std::filesystem::path(scene.path).filename().string(), " - ", int(fps * 10) / 10.0,
                   " fps - tree ", int(t.geometry_tree * 10) / 10.0, " ms, photons ", int(t.photon_trace * 10) / 10.0,
                   ", photon tree ", int(t.photon_tree * 10) / 10.0, ", eye ", int(t.eye * 10) / 10.0, ", bounces ",
                   int(t.bounces * 10) / 10.0, ", shadow ", int(t.shadow * 10) / 10.0, ", shade ",
                   int(t.shade * 10) / 10.0, " - ", renderer.samples(), " samples, ", settings.photons,
                   " photons, k ", settings.k, " - ", editor.Describe());
        SDL_SetWindowTitle(w.window, title.c_str());
    }
    return 0;
}

}  // namespace caustica
