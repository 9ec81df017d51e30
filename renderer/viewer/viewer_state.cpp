#include "renderer/viewer/viewer_state.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "core/error.h"
#include "renderer/output/output_file.h"
#include "renderer/scene/scene_loader.h"
#include "renderer/scene/scene_save.h"

namespace caustica {
namespace {

constexpr std::size_t kMaxUndoSteps = 200;
constexpr uint32_t kMinPhotons = 1000;

bool SameMaterials(const std::vector<Material>& a, const std::vector<Material>& b) {
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [](const Material& x, const Material& y) { return x == y; });
}

}  // namespace

std::string EditedScenePath(const std::string& scene_path) {
    if (scene_path.empty()) return "ring.edited.yaml";
    std::filesystem::path p(scene_path);
    // NAME.edited.yaml stays NAME.edited.yaml when saved again.
    std::string stem = p.stem().string();
    const std::string suffix = ".edited";
    if (stem.size() > suffix.size() && stem.compare(stem.size() - suffix.size(), suffix.size(), suffix) == 0)
        stem.resize(stem.size() - suffix.size());
    return (p.parent_path() / (stem + ".edited.yaml")).string();
}

ViewerState::ViewerState(Scene& scene, std::string scene_path, const RenderOptions& options, const Backend& backend)
    : scene_(scene),
      scene_path_(std::move(scene_path)),
      editor_(scene),
      settings_(MakeRenderSettings(scene, options, backend)),
      budget_(backend.IsGpu() ? kInteractivePhotonsGpu : kInteractivePhotonsCpu),
      frames_(scene, MakeImageSize(options)),
      start_(std::chrono::steady_clock::now()) {
    UpdateCap(settings_.photons);
    length_ = AnimationLength(scene_);
    frame_step_ = 1.0 / scene_.settings.frame_rate;
    playing_ = length_ > 0;
    // The frame, for input before the first loop; the first Refresh() still reports it as new.
    Refresh();
    reported_ = false;
}

void ViewerState::UpdateCap(uint32_t asked) {
    cap_note_.clear();
    settings_.photons = std::min(asked, budget_);
    if (asked > budget_)
        cap_note_ = Concat(asked, " photons asked for; ", budget_,
                           " per sample here, so that input can interrupt a frame (caustica render traces them all)");
}

bool ViewerState::Refresh() {
    if (changed_) {
        if (edited_) frames_.GeometryChanged();
        frames_.At(time_);
        changed_ = edited_ = false;
        reported_ = false;
    }
    const bool fresh = !reported_;
    reported_ = true;
    return fresh;
}

bool ViewerState::TakeMaterialChange() {
    const bool changed = materials_changed_;
    materials_changed_ = false;
    return changed;
}

ViewerState::Snapshot ViewerState::Take() const {
    return {scene_.lights,   scene_.objects,    scene_.materials, scene_.settings,
            settings_.photons, settings_.k, settings_.tone_map};
}

bool ViewerState::Same(const Snapshot& a, const Snapshot& b) {
    auto same_list = [](const auto& x, const auto& y) {
        return x.size() == y.size() &&
               std::equal(x.begin(), x.end(), y.begin(), [](const auto& p, const auto& q) { return p == q; });
    };
    return same_list(a.lights, b.lights) && same_list(a.objects, b.objects) &&
           SameMaterials(a.materials, b.materials) && a.scene_settings == b.scene_settings && a.photons == b.photons &&
           a.k == b.k && a.tone_map == b.tone_map;
}

void ViewerState::Restore(const Snapshot& s) {
    scene_.lights = s.lights;
    scene_.objects = s.objects;
    materials_changed_ |= !SameMaterials(s.materials, scene_.materials);
    scene_.materials = s.materials;
    scene_.settings = s.scene_settings;
    settings_.k = s.k;
    settings_.tone_map = s.tone_map;
    UpdateCap(s.photons);
    changed_ = edited_ = true;
    length_ = AnimationLength(scene_);
}

void ViewerState::BeginEdit() {
    if (editing_) return;
    pending_ = Take();
    editing_ = true;
}

void ViewerState::EndEdit() {
    if (!editing_) return;
    editing_ = false;
    Snapshot now = Take();
    if (Same(now, pending_)) return;
    materials_changed_ |= !SameMaterials(now.materials, pending_.materials);
    undo_.push_back(std::move(pending_));
    if (undo_.size() > kMaxUndoSteps) undo_.erase(undo_.begin());
    redo_.clear();
    changed_ = edited_ = true;
    length_ = AnimationLength(scene_);
}

bool ViewerState::Undo() { return Step(undo_, redo_); }
bool ViewerState::Redo() { return Step(redo_, undo_); }

bool ViewerState::Step(std::vector<Snapshot>& from, std::vector<Snapshot>& to) {
    EndEdit();
    if (from.empty()) return false;
    to.push_back(Take());
    Restore(from.back());
    from.pop_back();
    return true;
}

void ViewerState::ScalePhotons(bool more) {
    BeginEdit();
    const uint64_t asked = more ? uint64_t(settings_.photons) * 2 : settings_.photons / 2;
    const uint32_t photons = uint32_t(std::clamp<uint64_t>(asked, kMinPhotons, budget_));
    if (more && asked > budget_) Inform(Concat("photons: at most ", budget_, " per sample in the viewer"));
    UpdateCap(photons);
    scene_.settings.photons = int(settings_.photons);
    EndEdit();
}

void ViewerState::StepK(bool more) {
    BeginEdit();
    settings_.k = std::clamp(settings_.k + (more ? 10 : -10), 1, SceneLimits::kMaxK);
    scene_.settings.k = settings_.k;
    EndEdit();
}

void ViewerState::SetToneMap(ToneMap tone_map) {
    BeginEdit();
    settings_.tone_map = tone_map;
    scene_.settings.tone_map = tone_map;
    EndEdit();
}

void ViewerState::TogglePlay() { playing_ = !playing_ && length_ > 0; }

void ViewerState::StepFrames(int frames) { SetTime(time_ + frames * frame_step_); }

void ViewerState::SetTime(double seconds) {
    time_ = std::clamp(seconds, 0.0, length_);
    playing_ = false;
    changed_ = true;
}

void ViewerState::Advance() {
    if (!playing_) return;
    time_ += frame_step_;
    if (time_ > length_) time_ = 0;
    changed_ = true;
}

bool ViewerState::Save() {
    const std::string path = save_path();
    try {
        const OutputFile file = CheckOutputFile("", path);
        WriteOutputFile(file, SavedSceneText(scene_, file.path));
    } catch (const std::exception& e) {
        ReportError(Concat("not saved: ", e.what()));
        return false;
    }
    Inform(Concat("saved the scene to ", path));
    return true;
}

double ViewerState::Seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ViewerState::Inform(const std::string& text) {
    std::printf("%s\n", text.c_str());
    std::fflush(stdout);
    messages_.push_back({text, false, Seconds()});
}

void ViewerState::ReportError(const std::string& text) {
    std::fprintf(stderr, "caustica view: %s\n", text.c_str());
    messages_.push_back({text, true, Seconds()});
}

}  // namespace caustica
