// The live viewer's window: SDL2 with an OpenGL 2.1 context, the rendered image as a texture and
// Dear ImGui's interface over it (a panel with timings and the selection's properties, light
// markers, the selected object's box, the help and messages as overlays). It renders one sample
// per loop, so input is read between samples; the state and its edits live in ViewerState.
#include "renderer/viewer/viewer.h"

#include <SDL.h>
#include <SDL_opengl.h>
#include <imgui.h>
#include <imgui_impl_opengl2.h>
#include <imgui_impl_sdl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "core/error.h"
#include "core/srgb.h"
#include "renderer/frame_renderer.h"
#include "renderer/output/image.h"
#include "renderer/output/output_file.h"
#include "renderer/scene/scene_eval.h"
#include "renderer/viewer/viewer_input.h"
#include "renderer/viewer/viewer_state.h"

namespace caustica {
namespace {

const char* kKeys =
    "left drag            orbit the camera\n"
    "right drag           pan the camera\n"
    "wheel                zoom\n"
    "click                select the light or object under the mouse\n"
    "shift + left drag    move the selection in the plane facing the view\n"
    "ctrl + left drag     move the selection along the floor\n"
    "arrows, PgUp, PgDn   nudge the selection (floor plane, up, down)\n"
    "tab / o              select the next light / object\n"
    "+ / -                selected light: more / less power\n"
    "c                    selected light: next named colour\n"
    "p / shift+p          twice / half the photons (at most the interactive budget)\n"
    "k / shift+k          k + 10 / k - 10 photons per estimate\n"
    "ctrl+z / ctrl+shift+z  undo / redo (also ctrl+y)\n"
    "space                pause or play the animation\n"
    ". / ,                step the animation one frame forward / back\n"
    "1 2 3 4 5            view: image, photons, caustics only, KNN radius heat map,\n"
    "                     traversal cost heat map (ray-triangle tests of the eye rays)\n"
    "t                    tone map: none, filmic, agx (saved with the scene)\n"
    "s                    save the edited scene as NAME.edited.yaml\n"
    "x or F12             save the rendered image (PNG); shift+x: the window with the panel\n"
    "F1                   show or hide the panel\n"
    "F11                  full screen\n"
    "h                    this list; Esc closes it\n"
    "q or Esc             quit\n";

const char* kViewNames[] = {"image", "photons", "caustics only", "KNN radius", "traversal cost"};
const ShadeView kViews[] = {ShadeView::Full, ShadeView::Photons, ShadeView::CausticOnly, ShadeView::KnnRadius,
                            ShadeView::TraversalCost};

constexpr double kMessageSeconds = 6;

std::string NextFreePath(const char* prefix) {
    for (int i = 0;; ++i) {
        char name[96];
        std::snprintf(name, sizeof(name), "%s-%04d.png", prefix, i);
        if (!std::filesystem::exists(name)) return name;
    }
}

// Where a world point lies in image pixels (also off the image); false behind the camera.
bool ToImage(const CameraView& c, Vec3 p, float* x, float* y) {
    const Vec3 d = p - c.origin;
    const float z = Dot(d, c.forward);
    if (z <= 1e-6f) return false;
    *x = (Dot(d, c.right) / (LengthSquared(c.right) * z) + 1.0f) * 0.5f * float(c.width);
    *y = (1.0f - Dot(d, c.up) / (LengthSquared(c.up) * z)) * 0.5f * float(c.height);
    return true;
}

ImU32 ToColour(Rgb c, float alpha = 1) {
    auto byte = [](float v) { return int(EncodeSrgb8(std::min(std::max(v, 0.0f), 1.0f))); };
    return IM_COL32(byte(c.x), byte(c.y), byte(c.z), int(alpha * 255));
}

struct Window {
    SDL_Window* window = nullptr;
    SDL_GLContext context = nullptr;
    GLuint texture = 0;
    bool imgui = false;
    ~Window() {
        if (imgui) {
            ImGui_ImplOpenGL2_Shutdown();
            ImGui_ImplSDL2_Shutdown();
            ImGui::DestroyContext();
        }
        if (texture) glDeleteTextures(1, &texture);
        if (context) SDL_GL_DeleteContext(context);
        if (window) SDL_DestroyWindow(window);
        SDL_Quit();
    }
};

// An edit through an ImGui widget: undo records it when the widget lets go.
void TrackEdit(ViewerState& state) {
    if (ImGui::IsItemActivated()) state.BeginEdit();
    if (ImGui::IsItemDeactivated()) state.EndEdit();
}

class Interface {
public:
    Interface(ViewerState& state, FrameRenderer& renderer, const Backend& backend, int max_samples)
        : state_(state), renderer_(renderer), backend_(backend), max_samples_(max_samples) {}

    void Draw(const ImagePlacement& placement, GLuint texture, double fps);

private:
    void Markers(const ImagePlacement& placement);
    void Panel(double fps);
    void LightProperties(int index);
    void ObjectProperties(int index);
    void Help();
    void Messages();

    ViewerState& state_;
    FrameRenderer& renderer_;
    const Backend& backend_;
    int max_samples_;
};

void Interface::Draw(const ImagePlacement& placement, GLuint texture, double fps) {
    const CameraView& camera = state_.input().camera;
    ImGui::GetBackgroundDrawList()->AddImage(
        reinterpret_cast<ImTextureID>(static_cast<intptr_t>(texture)), ImVec2(placement.x, placement.y),
        ImVec2(placement.WindowX(float(camera.width)), placement.WindowY(float(camera.height))));
    Markers(placement);
    if (state_.show_panel) Panel(fps);
    if (state_.show_help) Help();
    Messages();
}

void Interface::Markers(const ImagePlacement& placement) {
    ImDrawList* draw = ImGui::GetBackgroundDrawList();
    const CameraView& camera = state_.input().camera;
    const SceneFrame& frame = state_.frame();
    const ViewEditor& editor = state_.editor();
    const ImU32 highlight = IM_COL32(255, 210, 40, 255);
    auto at = [&](Vec3 p, ImVec2* out) {
        float x, y;
        if (!ToImage(camera, p, &x, &y)) return false;
        *out = ImVec2(placement.WindowX(x), placement.WindowY(y));
        return true;
    };
    // The selected object's bounding box.
    if (editor.selected_kind() == ViewEditor::Kind::Object) {
        const Aabb& box = frame.object_bounds[editor.selected_index()];
        ImVec2 corner[8];
        bool visible = true;
        for (int i = 0; i < 8; ++i)
            visible &= at(Vec3(i & 1 ? box.hi.x : box.lo.x, i & 2 ? box.hi.y : box.lo.y, i & 4 ? box.hi.z : box.lo.z),
                          &corner[i]);
        if (visible)
            for (int i = 0; i < 8; ++i)
                for (int bit = 1; bit < 8; bit <<= 1)
                    if (!(i & bit)) draw->AddLine(corner[i], corner[i | bit], highlight, 2.0f);
    }
    // Lights: a disc in the light's colour; a spot light also shows where it points.
    for (std::size_t l = 0; l < frame.lights.size(); ++l) {
        const SceneLight& light = frame.lights[l];
        if (light.type == LightType::directional) continue;
        ImVec2 p;
        if (!at(light.position, &p)) continue;
        const bool selected = editor.selected_kind() == ViewEditor::Kind::Light && editor.selected_index() == int(l);
        if (light.type == LightType::spot) {
            ImVec2 q;
            if (at(light.position + light.direction * (0.1f * Length(frame.bounds.Extent())), &q))
                draw->AddLine(p, q, selected ? highlight : IM_COL32(255, 255, 255, 200), 2.0f);
        }
        draw->AddCircleFilled(p, 6.0f, ToColour(light.color));
        draw->AddCircle(p, 7.0f, IM_COL32(0, 0, 0, 255), 0, 1.5f);
        if (selected) {
            draw->AddCircle(p, 11.0f, highlight, 0, 2.5f);
            draw->AddText(ImVec2(p.x + 13, p.y - 7), highlight, state_.scene().lights[l].name.c_str());
        }
    }
}

void Interface::Panel(double fps) {
    ImGui::SetNextWindowPos(ImVec2(8, 8), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowBgAlpha(0.8f);
    if (!ImGui::Begin("Caustica", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
        ImGui::End();
        return;
    }
    // Tab belongs to the viewer (the next light), not to ImGui's focus cycling through the fields.
    ImGui::PushAllowKeyboardFocus(false);
    Scene& scene = state_.scene();
    ImGui::Text("%s on %s", std::filesystem::path(scene.path).filename().c_str(), backend_.Name());
    ImGui::Text("%.1f fps, %u / %d samples", fps, renderer_.samples(), max_samples_);
    ImGui::Text("%u photons per sample, k %d", state_.settings().photons, state_.settings().k);
    if (!state_.photon_cap_note().empty()) {
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 24);
        ImGui::TextColored(ImVec4(1, 0.8f, 0.3f, 1), "%s", state_.photon_cap_note().c_str());
        ImGui::PopTextWrapPos();
    }
    if (ImGui::CollapsingHeader("pass times (ms)")) {
        const PassTimes& t = renderer_.times();
        ImGui::Text(
            "geometry tree %6.2f\nphoton trace  %6.2f\nphoton tree   %6.2f\neye           %6.2f\n"
            "bounces       %6.2f\nshadow        %6.2f\nshade         %6.2f\nglobal trace  %6.2f\n"
            "global tree   %6.2f\nindirect      %6.2f",
            t.geometry_tree, t.photon_trace, t.photon_tree, t.eye, t.bounces, t.shadow, t.shade, t.global_trace,
            t.global_tree, t.indirect);
    }
    int view = 0;
    while (kViews[view] != state_.settings().view) ++view;
    if (ImGui::Combo("view", &view, kViewNames, 5)) state_.SetView(kViews[view]);
    int tone_map = int(state_.settings().tone_map);
    if (ImGui::Combo("tone map", &tone_map, kToneMapNames, int(std::size(kToneMapNames))))
        state_.SetToneMap(ToneMap(tone_map));
    if (state_.length() > 0) {
        float time = float(state_.time());
        if (ImGui::Button(state_.playing() ? "pause" : "play")) state_.TogglePlay();
        ImGui::SameLine();
        if (ImGui::SliderFloat("time (s)", &time, 0.0f, float(state_.length()), "%.2f")) state_.SetTime(time);
    }
    ImGui::Separator();
    const ViewEditor& editor = state_.editor();
    if (editor.selected_kind() == ViewEditor::Kind::Light)
        LightProperties(editor.selected_index());
    else if (editor.selected_kind() == ViewEditor::Kind::Object)
        ObjectProperties(editor.selected_index());
    else
        ImGui::TextUnformatted("nothing selected: click a light or an object");
    ImGui::Separator();
    if (ImGui::Button("undo")) state_.Undo();
    ImGui::SameLine();
    if (ImGui::Button("redo")) state_.Redo();
    ImGui::SameLine();
    if (ImGui::Button("save")) state_.Save();
    ImGui::SameLine();
    if (ImGui::Button("help")) state_.show_help = !state_.show_help;
    ImGui::PopAllowKeyboardFocus();
    ImGui::End();
}

// Moves the selection to a typed position (its keys or orbit with it).
void MoveTo(ViewerState& state, Vec3 from, const float to[3]) {
    state.editor().Move(Vec3(to[0], to[1], to[2]) - from);
    state.MarkChanged();
}

void Interface::LightProperties(int index) {
    Light& light = state_.scene().lights[index];
    ImGui::Text("light \"%s\" (%s)", light.name.c_str(), ToString(light.type));
    bool changed = false;
    if (light.type != LightType::directional) {
        const Vec3 now = state_.frame().lights[index].position;
        float p[3] = {now.x, now.y, now.z};
        if (ImGui::DragFloat3("position", p, 0.01f)) MoveTo(state_, now, p);
        TrackEdit(state_);
    }
    // A drag changes the power by 1% a pixel.
    changed |= ImGui::DragFloat("power (W)", &light.power, std::max(light.power * 0.01f, 0.01f), 0.001f, 1e7f, "%.3f",
                                ImGuiSliderFlags_AlwaysClamp);
    TrackEdit(state_);
    changed |= ImGui::ColorEdit3("colour", &light.color.x, ImGuiColorEditFlags_Float);
    TrackEdit(state_);
    if (light.type == LightType::spot) {
        changed |=
            ImGui::SliderFloat("inner angle", &light.inner_angle_degrees, 0, light.outer_angle_degrees, "%.1f deg");
        TrackEdit(state_);
        changed |= ImGui::SliderFloat("outer angle", &light.outer_angle_degrees,
                                      std::max(light.inner_angle_degrees, 0.01f), 90, "%.1f deg");
        TrackEdit(state_);
    }
    if (changed) state_.MarkChanged();
}

void Interface::ObjectProperties(int index) {
    Scene& scene = state_.scene();
    Object& object = scene.objects[index];
    ImGui::Text(
        "object \"%s\" (%s)", object.name.c_str(),
        object.is_mesh ? std::filesystem::path(object.mesh_path).filename().c_str() : ToString(object.shape.kind));
    const Vec3 now = ObjectTransformAt(object, state_.time()).translate;
    float p[3] = {now.x, now.y, now.z};
    if (ImGui::DragFloat3("position", p, 0.01f)) MoveTo(state_, now, p);
    TrackEdit(state_);
    // The material: one of the scene file's (or a mesh's own), and its properties.
    std::string current = object.material >= 0 ? scene.materials[object.material].name : "(the mesh's own)";
    if (ImGui::BeginCombo("material", current.c_str())) {
        for (int m = object.is_mesh ? -1 : 0; m < scene.user_materials; ++m) {
            const char* name = m < 0 ? "(the mesh's own)" : scene.materials[m].name.c_str();
            if (ImGui::Selectable(name, m == object.material) && m != object.material) {
                state_.BeginEdit();
                object.material = m;
                state_.EndEdit();
            }
        }
        ImGui::EndCombo();
    }
    if (object.material < 0) return;
    Material& m = scene.materials[object.material];
    int users = 0;
    for (const Object& o : scene.objects) users += o.material == object.material;
    if (users > 1) ImGui::TextDisabled("shared by %d objects", users);
    static const char* kTypes[] = {"diffuse", "mirror", "metal", "glass"};
    int type = m.type == MaterialType::diffuse ? 0 : m.type == MaterialType::glass ? 3 : m.metal ? 2 : 1;
    bool changed = false;
    if (ImGui::Combo("type", &type, kTypes, 4)) {
        state_.BeginEdit();
        m.type = type == 0 ? MaterialType::diffuse : type == 3 ? MaterialType::glass : MaterialType::mirror;
        m.metal = type == 2;
        state_.EndEdit();
    }
    if (m.type == MaterialType::glass) {
        Dispersion& d = m.dispersion;
        if (d.kind == Dispersion::Kind::cauchy) {
            // Cauchy's A and B give the index (saved as written).
            changed |= ImGui::SliderFloat("cauchy A", &d.cauchy_a, 1.0f, 4.0f, "%.4f");
            TrackEdit(state_);
            changed |= ImGui::SliderFloat("cauchy B (um^2)", &d.cauchy_b, 0.0f, 0.1f, "%.4f");
            TrackEdit(state_);
            m.ior = CauchyIndexD(d.cauchy_a, d.cauchy_b);
        } else {
            changed |= ImGui::SliderFloat("ior", &m.ior, 1.0f, 4.0f, "%.3f");
            TrackEdit(state_);
        }
        if (d.kind == Dispersion::Kind::abbe) {
            changed |= ImGui::SliderFloat("abbe number", &d.abbe, 1.0f, 100.0f, "%.1f");
            TrackEdit(state_);
        }
        changed |= ImGui::DragFloat3("absorption (1/m)", &m.absorption.x, 0.01f, 0.0f, 1e6f);
        TrackEdit(state_);
    } else {
        changed |= ImGui::ColorEdit3("colour", &m.color.x, ImGuiColorEditFlags_Float);
        TrackEdit(state_);
    }
    if (changed) state_.MarkMaterialsChanged();
}

void Interface::Help() {
    const ImGuiViewport* viewport = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(
        ImVec2(viewport->WorkPos.x + 0.5f * viewport->WorkSize.x, viewport->WorkPos.y + 0.5f * viewport->WorkSize.y),
        ImGuiCond_Always, ImVec2(0.5f, 0.5f));
    // Never larger than the window: on a small screen the list scrolls.
    ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(viewport->WorkSize.x - 16, viewport->WorkSize.y - 16));
    ImGui::SetNextWindowBgAlpha(0.85f);
    if (ImGui::Begin("Keys (h or Esc closes)", &state_.show_help,
                     ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse))
        ImGui::TextUnformatted(kKeys);
    ImGui::End();
}

void Interface::Messages() {
    const double now = state_.Seconds();
    std::vector<const ViewerMessage*> recent;
    for (const ViewerMessage& m : state_.messages())
        if (now - m.time < kMessageSeconds) recent.push_back(&m);
    if (recent.empty()) return;
    const ImGuiViewport* viewport = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(ImVec2(viewport->WorkPos.x + 8, viewport->WorkPos.y + viewport->WorkSize.y - 8),
                            ImGuiCond_Always, ImVec2(0, 1));
    ImGui::SetNextWindowBgAlpha(0.75f);
    ImGui::Begin("messages", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoInputs |
                     ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav);
    ImGui::PushTextWrapPos(viewport->WorkSize.x - 32);
    for (const ViewerMessage* m : recent)
        ImGui::TextColored(m->error ? ImVec4(1, 0.4f, 0.35f, 1) : ImVec4(0.8f, 1, 0.8f, 1), "%s", m->text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::End();
}

// The window as drawn (the back buffer before it is shown), interface included, as a PNG.
void WriteWindowPng(SDL_Window* window, const std::string& path) {
    int w = 0, h = 0;
    SDL_GL_GetDrawableSize(window, &w, &h);
    std::vector<unsigned char> rgba(size_t(w) * size_t(h) * 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
    Image image(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const unsigned char* p = &rgba[(size_t(h - 1 - y) * size_t(w) + size_t(x)) * 4];  // GL's rows go up
            image.at(x, y) = Rgb(DecodeSrgb8(p[0]), DecodeSrgb8(p[1]), DecodeSrgb8(p[2]));
        }
    WriteImage(image, CheckOutputFile("", path));
}

// Writes a screenshot through 'write' and says so, or why not.
template <class Write>
void Screenshot(ViewerState& state, Write write, const std::string& path, uint32_t samples) {
    try {
        write(path);
        state.Inform(Concat("saved a screenshot to ", path, " (", samples, " samples)"));
    } catch (const std::exception& error) {
        state.ReportError(Concat("no screenshot: ", error.what()));
    }
}

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
    bool ok = true;
    if (std::getenv("SDL_VIDEODRIVER") == nullptr && (driver == "offscreen" || driver == "dummy")) {
        *why_not = Concat("no display server answered at DISPLAY or WAYLAND_DISPLAY (SDL could only start its '",
                          driver, "' video driver, which shows no window)");
        ok = false;
    } else {
        // The interface draws with OpenGL: without a context there is no window to show.
        SDL_Window* probe = SDL_CreateWindow("caustica", 0, 0, 1, 1, SDL_WINDOW_OPENGL | SDL_WINDOW_HIDDEN);
        SDL_GLContext context = probe ? SDL_GL_CreateContext(probe) : nullptr;
        if (!context) {
            *why_not =
                Concat("no OpenGL context could be made (SDL: ", SDL_GetError(),
                       "); the viewer draws with OpenGL 2.1, which Mesa provides without a GPU (libgl1-mesa-dri)");
            ok = false;
        }
        if (context) SDL_GL_DeleteContext(context);
        if (probe) SDL_DestroyWindow(probe);
    }
    SDL_Quit();
    return ok;
}

int RunViewer(Scene& scene, const std::string& scene_path, const RenderOptions& options, const Backend& backend) {
    ViewerState state(scene, scene_path, options, backend);
    FrameRenderer renderer(backend);
    renderer.SetMaterials(ToSceneMaterials(scene));
    const int width = state.input().camera.width, height = state.input().camera.height;

    if (SDL_Init(SDL_INIT_VIDEO) != 0) throw RuntimeError(Concat("SDL_Init: ", SDL_GetError()));
    Window w;
    SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
    // At least big enough for the panel beside a small image, at most the screen.
    int window_width = std::max(width, 800), window_height = std::max(height, 560);
    SDL_Rect usable;
    if (SDL_GetDisplayUsableBounds(0, &usable) == 0) {
        window_width = std::min(window_width, std::max(usable.w - 40, 320));
        window_height = std::min(window_height, std::max(usable.h - 80, 240));
    }
    w.window = SDL_CreateWindow(Concat("caustica - ", std::filesystem::path(scene.path).filename().string()).c_str(),
                                SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, window_width, window_height,
                                SDL_WINDOW_OPENGL | SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    if (!w.window) throw RuntimeError(Concat("cannot open the viewer's window: ", SDL_GetError()));
    w.context = SDL_GL_CreateContext(w.window);
    if (!w.context)
        throw RuntimeError(Concat("cannot create an OpenGL context for the viewer (", SDL_GetError(),
                                  "); it needs OpenGL 2.1, which Mesa provides without a GPU (libgl1-mesa-dri)"));
    SDL_GL_MakeCurrent(w.window, w.context);
    SDL_GL_SetSwapInterval(0);  // samples, not the display's refresh, pace the loop

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini left in the user's folder
    ImGui::StyleColorsDark();
    ImGui_ImplSDL2_InitForOpenGL(w.window, w.context);
    ImGui_ImplOpenGL2_Init();
    w.imgui = true;

    glGenTextures(1, &w.texture);
    glBindTexture(GL_TEXTURE_2D, w.texture);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    std::printf("caustica view: %s on %s; press h for the keys\n", scene.path.c_str(), backend.Describe().c_str());

    ViewerInput input(state);
    Interface ui(state, renderer, backend, options.max_samples);
    auto last_frame = std::chrono::steady_clock::now();
    double fps = 0.0;
    bool quit = false, fullscreen = false;
    std::string window_shot;  // where to write the window after the next frame, if anywhere
    while (!quit) {
        int window_w = 0, window_h = 0;
        SDL_GetWindowSize(w.window, &window_w, &window_h);
        const ImagePlacement placement = ImagePlacement::Fit(window_w, window_h, width, height);
        const ImGuiIO& io = ImGui::GetIO();
        SDL_Event e;
        while (SDL_PollEvent(&e)) {
            ImGui_ImplSDL2_ProcessEvent(&e);
            switch (input.Handle(e, placement, !io.WantCaptureMouse, !io.WantCaptureKeyboard)) {
                case WindowAction::quit: quit = true; break;
                case WindowAction::toggle_fullscreen:
                    fullscreen = !fullscreen;
                    SDL_SetWindowFullscreen(w.window, fullscreen ? SDL_WINDOW_FULLSCREEN_DESKTOP : 0);
                    break;
                case WindowAction::screenshot:
                    // The window is read after the next frame is drawn, before it is shown.
                    if (e.key.keysym.mod & KMOD_SHIFT) window_shot = NextFreePath("caustica-window");
                    else Screenshot(state, [&](const std::string& path) {
                             WriteImage(renderer.CurrentImage(), CheckOutputFile("", path), renderer.tone_map());
                         },
                                    NextFreePath("caustica-screenshot"), renderer.samples());
                    break;
                case WindowAction::none: break;
            }
        }
        if (quit) break;

        state.Advance();
        if (state.TakeMaterialChange()) renderer.SetMaterials(ToSceneMaterials(scene));
        if (state.Refresh()) renderer.Prepare(state.input(), state.settings());
        const bool render = renderer.samples() < uint32_t(options.max_samples);
        if (render) {
            renderer.AddSample();
            const Span<const uint32_t> pixels = renderer.DisplayPixels();
            glBindTexture(GL_TEXTURE_2D, w.texture);
            glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
        } else {
            SDL_WaitEventTimeout(nullptr, 30);  // converged: nothing to render until the next input
        }
        // The frame rate of rendered frames (a converged view renders nothing).
        const auto now = std::chrono::steady_clock::now();
        const double seconds = std::chrono::duration<double>(now - last_frame).count();
        last_frame = now;
        if (render) fps = fps == 0.0 ? 1.0 / seconds : 0.9 * fps + 0.1 / seconds;

        ImGui_ImplOpenGL2_NewFrame();
        ImGui_ImplSDL2_NewFrame();
        ImGui::NewFrame();
        ui.Draw(placement, w.texture, fps);
        ImGui::Render();
        int drawable_w = 0, drawable_h = 0;
        SDL_GL_GetDrawableSize(w.window, &drawable_w, &drawable_h);
        glViewport(0, 0, drawable_w, drawable_h);
        glClearColor(0.08f, 0.08f, 0.09f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        ImGui_ImplOpenGL2_RenderDrawData(ImGui::GetDrawData());
        if (!window_shot.empty()) {
            Screenshot(state, [&](const std::string& path) { WriteWindowPng(w.window, path); }, window_shot,
                       renderer.samples());
            window_shot.clear();
        }
        SDL_GL_SwapWindow(w.window);
    }
    return 0;
}

}  // namespace caustica
