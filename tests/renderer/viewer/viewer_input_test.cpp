// The viewer's state and input without a display: events pushed through SDL's queue (its dummy
// video driver, no window) edit the scene as a user's would. SDL's own idea of the keyboard
// (SDL_GetModState) stays empty here, so modifiers can only come from the events themselves.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "renderer/scene/scene_loader.h"
#include "renderer/scene/scene_save.h"
#include "renderer/viewer/viewer_input.h"
#include "renderer/viewer/viewer_state.h"
#include "tests/renderer/scene/scene_test_util.h"

namespace caustica {
namespace {

class ViewerInputTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        setenv("SDL_VIDEODRIVER", "dummy", 1);
        ASSERT_EQ(SDL_Init(SDL_INIT_VIDEO), 0) << SDL_GetError();
    }
    static void TearDownTestSuite() { SDL_Quit(); }

    void SetUp() override {
        scene_ = LoadScene(testing::SourcePath("scenes/ring.yaml"));
        options_.width = 160;
        options_.height = 120;
        Start(dir_.Path("ring.yaml"));
    }
    void Start(const std::string& scene_path) {
        input_.reset();
        state_ = std::make_unique<ViewerState>(scene_, scene_path, options_, Backend::Cpu());
        input_ = std::make_unique<ViewerInput>(*state_);
    }

    static void Push(SDL_Event e) { ASSERT_EQ(SDL_PushEvent(&e), 1) << SDL_GetError(); }
    static void Key(SDL_Keycode key, Uint16 mod = KMOD_NONE) {
        SDL_Event e{};
        e.type = SDL_KEYDOWN;
        e.key.state = SDL_PRESSED;
        e.key.keysym.sym = key;
        e.key.keysym.mod = mod;
        Push(e);
        e.type = SDL_KEYUP;
        e.key.state = SDL_RELEASED;
        Push(e);
        if (mod != KMOD_NONE) Modifier(SDLK_LCTRL, KMOD_NONE, false);  // the modifiers let go too
    }
    static void Modifier(SDL_Keycode key, Uint16 mod, bool down) {
        SDL_Event e{};
        e.type = down ? SDL_KEYDOWN : SDL_KEYUP;
        e.key.keysym.sym = key;
        e.key.keysym.mod = down ? mod : Uint16(KMOD_NONE);
        Push(e);
    }
    static void Drag(Uint8 button, int x0, int y0, int x1, int y1) {
        SDL_Event e{};
        e.type = SDL_MOUSEBUTTONDOWN;
        e.button.button = button;
        e.button.x = x0;
        e.button.y = y0;
        Push(e);
        for (int step = 1; step <= 4; ++step) {
            SDL_Event m{};
            m.type = SDL_MOUSEMOTION;
            m.motion.x = x0 + (x1 - x0) * step / 4;
            m.motion.y = y0 + (y1 - y0) * step / 4;
            Push(m);
        }
        e.type = SDL_MOUSEBUTTONUP;
        e.button.x = x1;
        e.button.y = y1;
        Push(e);
    }
    // Hands every queued event to the viewer's input, as the window's loop does.
    std::vector<WindowAction> Pump() {
        std::vector<WindowAction> actions;
        SDL_Event e;
        const ImagePlacement placement = ImagePlacement::Fit(160, 120, 160, 120);
        while (SDL_PollEvent(&e)) {
            const WindowAction a = input_->Handle(e, placement);
            if (a != WindowAction::none) actions.push_back(a);
        }
        state_->Refresh();
        return actions;
    }

    testing::TempDir dir_;
    Scene scene_;
    RenderOptions options_;
    std::unique_ptr<ViewerState> state_;
    std::unique_ptr<ViewerInput> input_;
};

// ViewerState is made before the renderer: its first frame must still be reported as new, or the
// renderer would never prepare it.
TEST_F(ViewerInputTest, TheFirstFrameAndEachChangeAreReportedOnce) {
    EXPECT_TRUE(state_->Refresh());
    EXPECT_FALSE(state_->Refresh());
    Key(SDLK_k);
    SDL_Event e;
    while (SDL_PollEvent(&e)) input_->Handle(e, ImagePlacement::Fit(160, 120, 160, 120));
    EXPECT_TRUE(state_->Refresh());
    EXPECT_FALSE(state_->Refresh());
}

TEST_F(ViewerInputTest, ShiftIsReadFromTheKeyEvent) {
    ASSERT_EQ(SDL_GetModState(), KMOD_NONE);
    const uint32_t start = state_->settings().photons;
    for (int i = 0; i < 6; ++i) Key(SDLK_p, KMOD_LSHIFT);
    Pump();
    EXPECT_EQ(state_->settings().photons, std::max(start / 64, 1000u));
    EXPECT_EQ(scene_.settings.photons, int(state_->settings().photons));
    Key(SDLK_k, KMOD_RSHIFT);
    Key(SDLK_k, KMOD_RSHIFT);
    Pump();
    EXPECT_EQ(state_->settings().k, scene_.settings.k);
    EXPECT_EQ(scene_.settings.k, 30);  // ring.yaml's 50 less twice 10
}

TEST_F(ViewerInputTest, KeysCannotAskForMoreThanTheInteractiveBudget) {
    for (int i = 0; i < 12; ++i) Key(SDLK_p);
    Pump();
    EXPECT_EQ(state_->settings().photons, kInteractivePhotonsCpu);
    ASSERT_FALSE(state_->messages().empty());
    EXPECT_NE(state_->messages().back().text.find("at most 400000 per sample"), std::string::npos);
    // --photons beyond the budget is capped too, and the panel says why.
    options_.photons = 50000000;
    Start(dir_.Path("ring.yaml"));
    EXPECT_EQ(state_->settings().photons, kInteractivePhotonsCpu);
    EXPECT_NE(state_->photon_cap_note().find("50000000 photons asked for"), std::string::npos);
}

TEST_F(ViewerInputTest, ShiftDragMovesTheSelectionAndUndoPutsItBack) {
    Key(SDLK_TAB);  // the first light
    Pump();
    ASSERT_EQ(state_->editor().selected_kind(), ViewEditor::Kind::Light);
    const Vec3 before = scene_.lights[0].position;
    const Vec3 camera = scene_.camera.position;
    Modifier(SDLK_LSHIFT, KMOD_LSHIFT, true);
    Drag(SDL_BUTTON_LEFT, 80, 60, 110, 40);
    Modifier(SDLK_LSHIFT, KMOD_LSHIFT, false);
    Pump();
    const Vec3 moved = scene_.lights[0].position;
    EXPECT_GT(Length(moved - before), 0.05f);
    EXPECT_EQ(scene_.camera.position, camera);  // a move, not an orbit
    EXPECT_EQ(state_->undo_steps(), 1u);        // one drag, one step
    Key(SDLK_z, KMOD_LCTRL);
    Pump();
    EXPECT_EQ(scene_.lights[0].position, before);
    Key(SDLK_z, KMOD_LCTRL | KMOD_LSHIFT);
    Pump();
    EXPECT_EQ(scene_.lights[0].position, moved);
    // Without a modifier the same drag orbits the camera and leaves the light.
    Drag(SDL_BUTTON_LEFT, 80, 60, 110, 40);
    Pump();
    EXPECT_EQ(scene_.lights[0].position, moved);
    EXPECT_NE(scene_.camera.position, camera);
    EXPECT_EQ(state_->undo_steps(), 1u);
}

TEST_F(ViewerInputTest, CtrlDragMovesAlongTheFloorAndAClickPicks) {
    // A click on the ring's wall selects the ring.
    const CameraView& camera = state_->input().camera;
    float x = 0, y = 0;
    ASSERT_TRUE(camera.Project(state_->frame().object_bounds[1].Center() + Vec3(0, 0.1f, 0.95f), &x, &y));
    Drag(SDL_BUTTON_LEFT, int(x), int(y), int(x), int(y));
    Pump();
    ASSERT_EQ(state_->editor().selected_kind(), ViewEditor::Kind::Object);
    EXPECT_EQ(scene_.objects[state_->editor().selected_index()].name, "ring");
    const int ring = state_->editor().selected_index();
    const Vec3 before = scene_.objects[ring].transform.translate;
    Modifier(SDLK_LCTRL, KMOD_LCTRL, true);
    Drag(SDL_BUTTON_LEFT, int(x), int(y), int(x) + 20, int(y) + 10);
    Modifier(SDLK_LCTRL, KMOD_LCTRL, false);
    Pump();
    const Vec3 after = scene_.objects[ring].transform.translate;
    EXPECT_GT(Length(after - before), 0.05f);
    EXPECT_NEAR(after.y, before.y, 1e-5f);  // along the floor
}

TEST_F(ViewerInputTest, AFailedSaveIsAMessageAndTheEditsStay) {
    // A folder where the file should go: even root cannot write there.
    std::filesystem::create_directories(dir_.Path("ring.edited.yaml"));
    Key(SDLK_TAB);
    Key(SDLK_UP);
    Key(SDLK_s);
    const std::vector<WindowAction> actions = Pump();
    EXPECT_TRUE(actions.empty());  // no quit
    ASSERT_FALSE(state_->messages().empty());
    const ViewerMessage& failed = state_->messages().back();
    EXPECT_TRUE(failed.error);
    EXPECT_NE(failed.text.find("not saved: " + dir_.Path("ring.edited.yaml") + ": is a folder"), std::string::npos)
        << failed.text;
    EXPECT_EQ(state_->undo_steps(), 1u);
    // A read-only file system (/proc): the same.
    Start("/proc/caustica-no-such-folder/ring.yaml");
    Key(SDLK_s);
    Pump();
    EXPECT_TRUE(state_->messages().back().error);
    EXPECT_NE(state_->messages().back().text.find("/proc/caustica-no-such-folder/ring.edited.yaml"), std::string::npos);
}

TEST_F(ViewerInputTest, SavedEditsLoadBack) {
    Key(SDLK_p);                  // photons
    Key(SDLK_k);                  // k
    Key(SDLK_TAB);                // the lamp
    Key(SDLK_RIGHT);              // moved
    Key(SDLK_c);                  // a named colour
    Key(SDLK_EQUALS);             // more power
    Key(SDLK_s);
    Pump();
    ASSERT_FALSE(state_->messages().back().error) << state_->messages().back().text;
    EXPECT_EQ(state_->messages().back().text, "saved the scene to " + dir_.Path("ring.edited.yaml"));
    const Scene loaded = LoadScene(dir_.Path("ring.edited.yaml"));
    EXPECT_TRUE(loaded == scene_);
    EXPECT_EQ(loaded.settings.photons, int(state_->settings().photons));
    EXPECT_EQ(loaded.settings.k, 60);
    EXPECT_EQ(loaded.lights[0].color, Rgb(1, 0.85f, 0.6f));  // "warm white"
    EXPECT_EQ(loaded.lights[0].position, scene_.lights[0].position);
    const Scene original = LoadScene(testing::SourcePath("scenes/ring.yaml"));
    EXPECT_NE(loaded.lights[0].position, original.lights[0].position);
    EXPECT_FLOAT_EQ(loaded.lights[0].power, original.lights[0].power * 1.25f);
    // The ring's material is still written as metal.
    const Material& gold = loaded.materials[loaded.objects[1].material];
    EXPECT_TRUE(gold.metal);
    EXPECT_EQ(loaded.header_comment, original.header_comment);
}

// t cycles the tone map through none, filmic and agx; it is an edit (undone like one) and the
// saved scene keeps it, with the camera's lens.
TEST_F(ViewerInputTest, TCyclesTheToneMapAndTheSceneKeepsIt) {
    scene_.camera.aperture = 0.05f;
    scene_.camera.focus_distance = 3.5f;
    Start(dir_.Path("ring.yaml"));
    ASSERT_EQ(state_->settings().tone_map, ToneMap::None);
    Key(SDLK_t);
    Pump();
    EXPECT_EQ(state_->settings().tone_map, ToneMap::Filmic);
    EXPECT_EQ(scene_.settings.tone_map, ToneMap::Filmic);
    Key(SDLK_t);
    Pump();
    EXPECT_EQ(state_->settings().tone_map, ToneMap::Agx);
    Key(SDLK_s);
    Pump();
    ASSERT_FALSE(state_->messages().back().error) << state_->messages().back().text;
    const Scene loaded = LoadScene(dir_.Path("ring.edited.yaml"));
    EXPECT_TRUE(loaded == scene_);
    EXPECT_EQ(loaded.settings.tone_map, ToneMap::Agx);
    EXPECT_EQ(loaded.camera.aperture, 0.05f);
    EXPECT_EQ(loaded.camera.focus_distance, 3.5f);
    Key(SDLK_z, KMOD_LCTRL);
    Pump();
    EXPECT_EQ(state_->settings().tone_map, ToneMap::Filmic);
    EXPECT_EQ(scene_.settings.tone_map, ToneMap::Filmic);
    Key(SDLK_t);
    Key(SDLK_t);
    Pump();
    EXPECT_EQ(state_->settings().tone_map, ToneMap::None);  // round again
}

TEST_F(ViewerInputTest, MovingAnOrbitingLightMovesItsOrbit) {
    scene_ = LoadScene(testing::SourcePath("scenes/orbit.yaml"));
    Start(dir_.Path("orbit.yaml"));
    const Orbit before = scene_.lights[0].orbit;
    ASSERT_TRUE(before.enabled);
    Key(SDLK_TAB);
    Key(SDLK_PAGEUP);
    Key(SDLK_s);
    Pump();
    const Vec3 lift = scene_.lights[0].orbit.center - before.center;
    EXPECT_GT(lift.y, 0.01f);
    EXPECT_EQ(lift.x, 0.0f);
    EXPECT_EQ(scene_.lights[0].position.y, 2.0f + lift.y);  // the whole circle rises
    const Scene loaded = LoadScene(dir_.Path("orbit.edited.yaml"));
    EXPECT_TRUE(loaded == scene_);
}

TEST(EditedScenePath, SitsBesideTheScene) {
    EXPECT_EQ(EditedScenePath("scenes/ring.yaml"), "scenes/ring.edited.yaml");
    EXPECT_EQ(EditedScenePath("scenes/ring.edited.yaml"), "scenes/ring.edited.yaml");
    EXPECT_EQ(EditedScenePath("model.glb"), "model.edited.yaml");
    EXPECT_EQ(EditedScenePath(""), "ring.edited.yaml");
}

TEST(ImagePlacement, FitsTheWindowKeepingTheAspect) {
    const ImagePlacement p = ImagePlacement::Fit(800, 400, 160, 120);
    EXPECT_FLOAT_EQ(p.scale, 400.0f / 120.0f);
    EXPECT_FLOAT_EQ(p.ImageX(p.WindowX(10)), 10);
    EXPECT_FLOAT_EQ(p.WindowX(80), 400);  // centred
    EXPECT_FLOAT_EQ(p.y, 0);
}

}  // namespace
}  // namespace caustica
