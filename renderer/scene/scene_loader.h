// Loading scenes from YAML. Paths in a scene are relative to the scene file. Errors are
// InputError "file:line:col: error: what was expected" (a missing environment image too);
// warnings (a missing MTL file or texture, which fall back to a default material) are printed to
// stderr in the same style and kept in the returned list.
//
// The format, with every key (units: metres, degrees, watts, seconds):
//   camera:    {position, look_at, up, fov, resolution: [w, h],
//               animation: [{time, position, look_at}, ...]}
//   settings:  {photons, k, ambient: [r, g, b], indirect, global_photons, global_k, gather_rays,
//               denoise, progressive, alpha, max_bounces, specular_splits, shadow_samples, frame_rate, duration}
//   materials: {NAME: {type: diffuse|mirror|metal|glass, color, texture, checker: {color_a,
//               color_b, scale}, ior, absorption}, ...}
//   lights:    [{name, type: point|spot|directional|rect|disc|sphere, position, direction |
//               look_at, inner_angle, outer_angle, width, height, radius, rotate, color, power,
//               animation: [{time, position}, ...]}, ...]
//   objects:   [{name, shape: {type: plane|box|sphere|cylinder|ring|revolution|heightfield, ...}
//               | mesh: FILE.obj, material, transform: {translate, rotate, scale},
//               animation: [{time, translate, rotate, scale}, ...]}, ...]
//   environment: {type: constant|gradient|image, color, horizon, zenith, image: FILE.hdr|.png|.jpg,
//               rotate, intensity}
// scenes/ring.yaml is a commented example.
#pragma once

#include <string>
#include <vector>

#include "renderer/scene/file_source.h"
#include "renderer/scene/scene.h"

namespace caustica {

// Limits on what a scene may ask for, so that hostile files cannot exhaust memory.
struct SceneLimits {
    static constexpr std::size_t kMaxTriangles = std::size_t(1) << 23;  // about 8.4 million
    static constexpr int kMaxResolution = 16384;                        // pixels per side
    static constexpr int kMaxPhotons = 100000000;
    static constexpr int kMaxK = 1024;
    static constexpr int kMaxBounces = 64;
    static constexpr int kMaxSpecularSplits = 16;  // up to 2^16 paths a pixel before the branch cutoff
    static constexpr int kMaxShadowSamples = 256;
    static constexpr int kMaxGatherRays = 1024;
};

Scene LoadScene(const std::string& path);

// The scene at path, or the built-in default scene (scenes/ring.yaml) when path is empty.
Scene LoadSceneOrDefault(const std::string& path);

// 'virtual_path' is used in messages and to resolve relative paths (its folder).
Scene LoadSceneFromString(const std::string& yaml, const std::string& virtual_path);

struct SceneLoadOptions {
    FileSource files = DiskFileSource();
    bool print_warnings = true;
    std::size_t max_triangles = SceneLimits::kMaxTriangles;
};
Scene LoadSceneFromString(const std::string& yaml, const std::string& virtual_path, const SceneLoadOptions& options);

}  // namespace caustica
