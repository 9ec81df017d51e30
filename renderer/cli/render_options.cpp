#include "renderer/cli/render_options.h"

namespace caustica {

void AddRenderOptions(ArgParser& parser, RenderOptions* o) {
    parser.Choice("--device", {"auto", "cpu", "cuda"}, "where to render: auto picks cuda when a GPU is present",
                  &o->device);
    parser.Option("--seed", "S", "seed of all random numbers (the same seed gives the same images)", &o->seed);
    parser.Option("--photons", "N",
                  "photons emitted per sample (0: the scene's setting; on the CPU at most 100000 unless given)",
                  &o->photons);
    parser.Option("--k", "K", "photons per caustic radiance estimate (0: the scene's setting)", &o->k);
    parser.Choice("--indirect", {"scene", "on", "off"},
                  "indirect light from the global photon map: on, off, or the scene's setting (on unless the scene "
                  "gives an ambient term)",
                  &o->indirect);
    parser.Option("--global-photons", "N",
                  "global photons emitted per sample, for indirect light (0: the scene's setting; on the CPU at most "
                  "100000 unless given)",
                  &o->global_photons);
    parser.Option("--gather-rays", "N",
                  "final gathering: gather rays per visible diffuse point and sample, which read the photon maps "
                  "one diffuse bounce away (-1: the scene's setting; 0: the global map's density at the point)",
                  &o->gather_rays);
    parser.Choice("--denoise", {"scene", "on", "off"},
                  "the edge-aware a-trous filter of each sample's indirect light (caustics and direct light stay "
                  "sharp): on, off, or the scene's settings.denoise (view's default; render and bench: off)",
                  &o->denoise);
    parser.Choice("--progressive", {"scene", "on", "off"},
                  "progressive photon mapping (the estimates' radii shrink from sample to sample, so a still "
                  "converges): on, off (every sample gathers k photons afresh), or the scene's setting (on unless "
                  "the scene gives an ambient term)",
                  &o->progressive);
    parser.Option("--specular-splits", "N",
                  "bounces at which eye rays follow both the reflection and the refraction at glass; later ones "
                  "choose one at random (-1: the scene's setting; 0: one random path per pixel)",
                  &o->specular_splits);
    parser.Option("--shadow-samples", "N", "shadow rays per diffuse point and area light in a sample (0: the scene's "
                  "setting)", &o->shadow_samples);
    parser.Option("--width", "W",
                  "image width in pixels (0: the scene camera's; given alone, the height keeps the camera's aspect "
                  "ratio)",
                  &o->width);
    parser.Option("--height", "H",
                  "image height in pixels (0: the scene camera's; given alone, the width keeps the camera's aspect "
                  "ratio)",
                  &o->height);
    parser.Option("--exposure", "E", "scale of the image's brightness", &o->exposure);
    parser.Choice("--tonemap", {std::begin(kToneMapNames), std::end(kToneMapNames)},
                  "tone map of PNG and JPEG images and the window, after the exposure: none clips at white, filmic "
                  "is Hable's curve, agx Sobotka's AgX (default: the scene's settings.tonemap, else none; EXR "
                  "files stay linear)",
                  &o->tonemap);
    parser.Choice("--filter", {"cone", "epanechnikov"}, "kernel of the caustic radiance estimate", &o->filter);
    parser.Choice("--knn", {KnnMethodName(KnnMethod::Exact), KnnMethodName(KnnMethod::Histogram)},
                  "how the caustic gather finds its k photons: a bounded priority queue (exact), or Zhou et al. "
                  "2008's histograms from node-radius estimates (histogram); both give the same photons",
                  &o->knn);
    parser.Choice("--integrator", {"photon", "path"},
                  "photon: photon mapping (caustics and indirect light from photon maps); path: a plain path tracer "
                  "over the same scene, for reference images (slow to converge; it cannot reach the caustics of "
                  "point, spot and directional lights)",
                  &o->integrator);
    parser.Choice("--view", {"image", "photons", "caustics", "knn-radius", "traversal-cost"},
                  "what to show: the image, or a debug view (the photons, the caustic radiance alone, the KNN "
                  "radius or the eye rays' traversal cost as heat maps)",
                  &o->view);
}

}  // namespace caustica
