#include "renderer/render_options.h"

#include <algorithm>

#include "core/error.h"
#include "renderer/builtin_scene.h"
#include "renderer/scene_eval.h"
#include "renderer/scene_loader.h"

namespace caustica {

void AddRenderOptions(ArgParser& parser, RenderOptions* o) {
    parser.Choice("--device", {"auto", "cpu", "cuda"}, "where to render: auto picks cuda when a GPU is present",
                  &o->device);
    parser.Option("--seed", "S", "seed of all random numbers (the same seed gives the same images)", &o->seed);
    parser.Option("--photons", "N",
                  "photons emitted per sample (0: the scene's setting; on the CPU at most 100000 unless given)",
                  &o->photons);
    parser.Option("--k", "K", "photons per caustic radiance estimate (0: the scene's setting)", &o->k);
    parser.Option("--width", "W", "image width in pixels (0: the scene camera's)", &o->width);
    parser.Option("--height", "H", "image height in pixels (0: the scene camera's)", &o->height);
    parser.Option("--exposure", "E", "scale of the image's brightness", &o->exposure);
    parser.Choice("--filter", {"cone", "epanechnikov"}, "kernel of the caustic radiance estimate", &o->filter);
    parser.Choice("--knn", {KnnMethodName(KnnMethod::Exact), KnnMethodName(KnnMethod::Histogram)},
                  "how the caustic gather finds its k photons: a bounded priority queue (exact), or Zhou et al. "
                  "2008's histograms from node-radius estimates (histogram); both give the same photons",
                  &o->knn);
    parser.Choice("--view", {"image", "photons", "caustics", "knn-radius", "traversal-cost"},
                  "what to show: the image, or a debug view (the photons, the caustic radiance alone, the KNN "
                  "radius or the eye rays' traversal cost as heat maps)",
                  &o->view);
}

static void CheckRange(const char* option, double value, double lo, double hi) {
    if (!(value >= lo && value <= hi))
        throw InputError(Concat(option, " ", value, ": expected a value from ", lo, " to ", hi));
}

RenderSettings MakeRenderSettings(const Scene& scene, const RenderOptions& o, const Backend& backend) {
    CheckRange("--seed", o.seed, 0, 2147483647);
    CheckRange("--photons", o.photons, 0, 100000000);
    CheckRange("--k", o.k, 0, 1024);
    CheckRange("--width", o.width, 0, 16384);
    CheckRange("--height", o.height, 0, 16384);
    CheckRange("--exposure", o.exposure, 1e-6, 1e6);
    RenderSettings s;
    s.photons = uint32_t(o.photons > 0 ? o.photons
                                       : (backend.IsGpu() ? scene.settings.photons
                                                          : std::min(scene.settings.photons, kCpuDefaultPhotons)));
    s.k = o.k > 0 ? o.k : scene.settings.k;
    s.max_bounces = scene.settings.max_bounces;
    s.seed = uint64_t(o.seed);
    s.exposure = float(o.exposure);
    s.filter = o.filter == "epanechnikov" ? PhotonFilter::Epanechnikov : PhotonFilter::Cone;
    s.knn = o.knn == KnnMethodName(KnnMethod::Histogram) ? KnnMethod::Histogram : KnnMethod::Exact;
    s.view = o.view == "photons"          ? ShadeView::Photons
             : o.view == "caustics"       ? ShadeView::CausticOnly
             : o.view == "knn-radius"     ? ShadeView::KnnRadius
             : o.view == "traversal-cost" ? ShadeView::TraversalCost
                                          : ShadeView::Full;
    return s;
}

ImageSize MakeImageSize(const RenderOptions& o) { return {o.width, o.height}; }

Scene LoadSceneOrDefault(const std::string& path) {
    if (path.empty()) return LoadSceneFromString(BuiltinDefaultSceneYaml(), "<built-in>/ring.yaml");
    return LoadScene(path);
}

void PrepareFrame(FrameRenderer& renderer, const Scene& scene, const RenderOptions& options, const Backend& backend,
                  double time_seconds) {
    renderer.SetMaterials(ToSceneMaterials(scene));
    renderer.Prepare(ToFrameInput(scene, EvaluateScene(scene, time_seconds), MakeImageSize(options)),
                     MakeRenderSettings(scene, options, backend));
}

}  // namespace caustica
