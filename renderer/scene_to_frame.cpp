#include "renderer/scene_to_frame.h"

#include <algorithm>
#include <atomic>
#include <cmath>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "core/error.h"
#include "core/number_text.h"
#include "renderer/scene/scene_loader.h"
#include "renderer/scene/shapes.h"
#include "renderer/scene/transform.h"

namespace caustica {
namespace {

constexpr int kMaxImageSide = 16384;

SurfaceType ToSurfaceType(MaterialType type) {
    switch (type) {
        case MaterialType::mirror: return SurfaceType::Mirror;
        case MaterialType::glass: return SurfaceType::Glass;
        case MaterialType::diffuse: break;
    }
    return SurfaceType::Diffuse;
}

LightKind ToLightKind(LightType type) {
    switch (type) {
        case LightType::spot: return LightKind::Spot;
        case LightType::directional: return LightKind::Directional;
        case LightType::rect: return LightKind::Rect;
        case LightType::disc: return LightKind::Disc;
        case LightType::sphere: return LightKind::Sphere;
        case LightType::point: break;
    }
    return LightKind::Point;
}

// Values and limits as exactly as the user wrote them (100000001, not 1e+08).
template <class T>
void CheckRange(const char* option, T value, T lo, T hi) {
    if (!(value >= lo && value <= hi))
        throw InputError(Concat(option, " ", ShortestText(value), ": expected a value from ", ShortestText(lo), " to ",
                                ShortestText(hi)));
}

}  // namespace

RenderSettings MakeRenderSettings(const Scene& scene, const RenderOptions& o, const Backend& backend) {
    return MakeRenderSettings(scene, o, backend.IsGpu());
}

RenderSettings MakeRenderSettings(const Scene& scene, const RenderOptions& o, bool gpu) {
    CheckRange("--seed", o.seed, 0, 2147483647);
    CheckRange("--photons", o.photons, 0, 100000000);
    CheckRange("--global-photons", o.global_photons, 0, 100000000);
    CheckRange("--k", o.k, 0, 1024);
    CheckRange("--specular-splits", o.specular_splits, -1, SceneLimits::kMaxSpecularSplits);
    CheckRange("--shadow-samples", o.shadow_samples, 0, SceneLimits::kMaxShadowSamples);
    CheckRange("--gather-rays", o.gather_rays, -1, SceneLimits::kMaxGatherRays);
    CheckRange("--width", o.width, 0, kMaxImageSide);
    CheckRange("--height", o.height, 0, kMaxImageSide);
    // One side alone keeps the camera's aspect ratio; the other side must fit too.
    const ImageSize size = FrameImageSize(MakeImageSize(o), scene.camera.width, scene.camera.height);
    if ((o.width > 0) != (o.height > 0) && std::max(size.width, size.height) > kMaxImageSide)
        throw InputError(Concat(o.width > 0 ? "--width " : "--height ", std::max(o.width, o.height), ": the camera's ",
                                scene.camera.width, "x", scene.camera.height, " aspect ratio makes the image ",
                                size.width, "x", size.height, "; at most ", kMaxImageSide,
                                " a side (give --width and --height)"));
    CheckRange("--exposure", o.exposure, 1e-6, 1e6);
    RenderSettings s;
    s.photons = uint32_t(o.photons > 0 ? o.photons
                                       : (gpu ? scene.settings.photons
                                              : std::min(scene.settings.photons, kCpuDefaultPhotons)));
    s.k = o.k > 0 ? o.k : scene.settings.k;
    s.indirect = o.indirect == "scene" ? scene.settings.indirect : o.indirect == "on";
    s.global_photons =
        uint32_t(o.global_photons > 0 ? o.global_photons
                                      : (gpu ? scene.settings.global_photons
                                             : std::min(scene.settings.global_photons, kCpuDefaultPhotons)));
    s.global_k = scene.settings.global_k;
    s.gather_rays = uint32_t(o.gather_rays >= 0 ? o.gather_rays : scene.settings.gather_rays);
    s.denoise = o.denoise == "scene" ? scene.settings.denoise : o.denoise == "on";
    s.progressive = o.progressive == "scene" ? scene.settings.progressive : o.progressive == "on";
    s.alpha = scene.settings.alpha;
    s.max_bounces = scene.settings.max_bounces;
    s.specular_splits = o.specular_splits >= 0 ? o.specular_splits : scene.settings.specular_splits;
    s.shadow_samples = o.shadow_samples > 0 ? o.shadow_samples : scene.settings.shadow_samples;
    s.seed = uint64_t(o.seed);
    s.exposure = float(o.exposure);
    s.tone_map = scene.settings.tone_map;
    if (!o.tonemap.empty()) {
        const auto* name = std::find(std::begin(kToneMapNames), std::end(kToneMapNames), o.tonemap);
        if (name == std::end(kToneMapNames))
            throw InputError(Concat("--tonemap ", o.tonemap, ": expected none, filmic or agx"));
        s.tone_map = ToneMap(name - std::begin(kToneMapNames));
    }
    s.filter = o.filter == "epanechnikov" ? PhotonFilter::Epanechnikov : PhotonFilter::Cone;
    s.knn = o.knn == KnnMethodName(KnnMethod::Histogram) ? KnnMethod::Histogram : KnnMethod::Exact;
    s.view = o.view == "photons"          ? ShadeView::Photons
             : o.view == "caustics"       ? ShadeView::CausticOnly
             : o.view == "knn-radius"     ? ShadeView::KnnRadius
             : o.view == "traversal-cost" ? ShadeView::TraversalCost
                                          : ShadeView::Full;
    s.integrator = o.integrator == "path" ? Integrator::Path : Integrator::PhotonMapping;
    if (s.integrator == Integrator::Path && s.view != ShadeView::Full)
        throw InputError(Concat("--view ", o.view, ": the path tracer shows the image alone (--view image)"));
    return s;
}

ImageSize MakeImageSize(const RenderOptions& o) { return {o.width, o.height}; }

ImageSize FrameImageSize(ImageSize asked, int camera_width, int camera_height) {
    const auto scaled = [](int side, int to, int from) { return std::max(1, int(std::lround(double(side) * to / from))); };
    if (asked.width > 0 && asked.height > 0) return asked;
    if (asked.width > 0) return {asked.width, scaled(asked.width, camera_height, camera_width)};
    if (asked.height > 0) return {scaled(asked.height, camera_width, camera_height), asked.height};
    return {camera_width, camera_height};
}

SceneMaterials ToSceneMaterials(const Scene& scene) {
    SceneMaterials out;
    for (const Texture& t : scene.textures) {
        TextureView view;
        view.first_texel = uint32_t(out.texels.size());
        view.width = t.width;
        view.height = t.height;
        for (size_t i = 0; i + 3 < t.rgba.size(); i += 4)
            out.texels.push_back(uint32_t(t.rgba[i]) | uint32_t(t.rgba[i + 1]) << 8 | uint32_t(t.rgba[i + 2]) << 16 |
                                 uint32_t(t.rgba[i + 3]) << 24);
        out.textures.push_back(view);
    }
    for (const Material& m : scene.materials) {
        SurfaceMaterial s;
        s.type = ToSurfaceType(m.type);
        s.color = m.color;
        s.texture = m.texture;
        s.checker = m.checker.enabled;
        s.checker_a = m.checker.color_a;
        s.checker_b = m.checker.color_b;
        s.checker_scale = m.checker.scale;
        s.ior = m.ior;
        s.dispersion = m.dispersion.kind == Dispersion::Kind::abbe     ? CauchyBFromAbbe(m.ior, m.dispersion.abbe)
                       : m.dispersion.kind == Dispersion::Kind::cauchy ? m.dispersion.cauchy_b
                                                                       : 0.0f;
        s.absorption = m.absorption;
        out.materials.push_back(s);
    }
    const Environment& e = scene.environment;
    EnvironmentView& view = out.environment;
    view.kind = e.kind == Environment::Kind::gradient ? EnvironmentKind::Gradient
                : e.kind == Environment::Kind::image  ? EnvironmentKind::Image
                                                      : EnvironmentKind::Constant;
    view.color = e.kind == Environment::Kind::gradient ? e.horizon : e.color;
    view.zenith = e.zenith;
    view.intensity = e.intensity;
    const double turn = double(e.rotate_degrees) * 3.14159265358979323846 / 180.0;
    view.cos_turn = float(std::cos(turn));
    view.sin_turn = float(std::sin(turn));
    if (e.kind == Environment::Kind::image && e.image) {
        view.width = e.image->width;
        view.height = e.image->height;
        out.environment_texels = e.image->texels;
    }
    return out;
}

FrameInput ToFrameInput(const Scene& scene, const SceneFrame& frame, ImageSize size) {
    FrameInput in;
    ToFrameInput(scene, frame, size, &in);
    return in;
}

void ToFrameInput(const Scene& scene, const SceneFrame& frame, ImageSize size, FrameInput* input) {
    static std::atomic<uint64_t> last_geometry_id{0};
    FrameInput& in = *input;
    in.geometry_id = ++last_geometry_id;
    in.triangles = frame.triangles;
    in.shading.resize(frame.triangles.size());
    tbb::parallel_for(tbb::blocked_range<size_t>(0, frame.triangles.size(), 4096), [&](const tbb::blocked_range<size_t>& r) {
        for (size_t t = r.begin(); t != r.end(); ++t) {
            TriangleShading& s = in.shading[t];
            s.n0 = frame.corner_normals[3 * t];
            s.n1 = frame.corner_normals[3 * t + 1];
            s.n2 = frame.corner_normals[3 * t + 2];
            s.uv0 = frame.corner_uvs[3 * t];
            s.uv1 = frame.corner_uvs[3 * t + 1];
            s.uv2 = frame.corner_uvs[3 * t + 2];
            s.material = uint32_t(frame.triangle_material[t]);
        }
    });
    BoundsToFrameInput(scene, frame, input);
    in.heightfields.clear();
    in.heightfield_base.clear();
    in.waves.clear();
    for (std::size_t oi = 0; oi < scene.objects.size(); ++oi) {
        const Object& object = scene.objects[oi];
        if (!object.animated_shape) continue;
        const Shape& shape = object.shape;
        HeightfieldView f;
        f.grid = HeightfieldGrid(shape);
        f.first_base_height = uint32_t(in.heightfield_base.size());
        const std::vector<float> base = HeightfieldBaseHeights(shape);
        in.heightfield_base.insert(in.heightfield_base.end(), base.begin(), base.end());
        f.first_wave = uint32_t(in.waves.size());
        f.wave_count = uint32_t(shape.waves.size());
        in.waves.insert(in.waves.end(), shape.waves.begin(), shape.waves.end());
        f.object = uint32_t(oi);
        f.first_triangle = uint32_t(frame.object_first[oi]);
        f.material = uint32_t(object.material >= 0 ? object.material : scene.default_material);
        in.heightfields.push_back(f);
    }
    in.moving_objects.clear();
    in.moving_base.clear();
    in.moving_base_shading.clear();
    for (std::size_t oi = 0; oi < scene.objects.size(); ++oi) {
        const Object& object = scene.objects[oi];
        if (!Moves(object) || object.animated_shape) continue;
        const Mesh& mesh = *object.mesh;
        MovingObjectView v;
        v.object = uint32_t(oi);
        v.first_base = uint32_t(in.moving_base.size());
        v.first_triangle = uint32_t(frame.object_first[oi]);
        v.triangle_count = uint32_t(mesh.TriangleCount());
        for (std::size_t t = 0; t < mesh.TriangleCount(); ++t) {
            const std::uint32_t* i = &mesh.indices[3 * t];
            in.moving_base.push_back({mesh.positions[i[0]], mesh.positions[i[1]], mesh.positions[i[2]]});
            const Vec3* n = &mesh.corner_normals[3 * t];
            const Vec2* uv = &mesh.corner_uvs[3 * t];
            in.moving_base_shading.push_back(
                {n[0], n[1], n[2], uv[0], uv[1], uv[2], in.shading[v.first_triangle + t].material});
        }
        in.moving_objects.push_back(v);
    }
    PlaceObjects(scene, frame.time, input);
    CameraAndLightsToFrameInput(scene, frame, size, input);
}

void PlaceObjects(const Scene& scene, double time_seconds, FrameInput* input) {
    const auto place = [&](uint32_t object) {
        return ToPlacement(ToAffine(ObjectTransformAt(scene.objects[object], time_seconds)));
    };
    for (HeightfieldView& f : input->heightfields) f.placement = place(f.object);
    for (MovingObjectView& v : input->moving_objects) v.placement = place(v.object);
}

void BoundsToFrameInput(const Scene& scene, const SceneFrame& frame, FrameInput* input) {
    FrameInput& in = *input;
    in.specular.clear();
    for (const SpecularObject& o : SpecularObjects(scene, frame)) {
        const Object& object = scene.objects[std::size_t(o.object)];
        if (Moves(object)) {
            // The sphere about its object-space box, placed: as tight as the one about a still
            // object's world box (a rotation leaves it the same), where the moved box grows.
            const Transform t = ObjectTransformAt(object, frame.time);
            const Aabb& reach = frame.object_reach[std::size_t(o.object)];
            const float scale = std::max({std::fabs(t.scale.x), std::fabs(t.scale.y), std::fabs(t.scale.z)});
            in.specular.push_back({ToAffine(t).Point(reach.Center()), 0.5f * Length(reach.Extent()) * scale});
        } else {
            in.specular.push_back({o.bounds.Center(), 0.5f * Length(o.bounds.Extent())});
        }
    }
    in.bounds = frame.bounds;
}

void CameraAndLightsToFrameInput(const Scene& scene, const SceneFrame& frame, ImageSize size, FrameInput* input) {
    FrameInput& in = *input;
    in.time = frame.time;
    // A directional light's power passes through the disc of the scene's bounding sphere that
    // faces it (docs/scenes.md): its irradiance is that power over the disc's area.
    const float scene_radius = 0.5f * Length(frame.bounds.Extent());
    const float disc_area = 3.14159265f * scene_radius * scene_radius;
    in.lights.clear();
    for (const SceneLight& l : frame.lights) {
        LightSource s;
        s.kind = ToLightKind(l.type);
        s.position = l.position;
        s.direction = l.direction;
        s.power = l.color * l.power;
        if (l.type == LightType::directional) s.power = disc_area > 0.0f ? s.power / disc_area : Rgb(0.0f);
        if (l.type == LightType::spot) {
            s.cos_inner = l.cos_inner;
            s.cos_outer = l.cos_outer;
        }
        if (l.type == LightType::rect) {
            s.half_u = l.u_axis * (0.5f * l.width);
            s.half_v = l.v_axis * (0.5f * l.height);
        }
        if (l.type == LightType::disc) {
            s.half_u = l.u_axis * l.radius;
            s.half_v = l.v_axis * l.radius;
        }
        s.radius = l.radius;
        in.lights.push_back(s);
    }
    const ImageSize image = FrameImageSize(size, frame.camera.width, frame.camera.height);
    in.camera = CameraView::LookAt(frame.camera.position, frame.camera.look_at, frame.camera.up,
                                   frame.camera.fov_degrees, image.width, image.height);
    in.camera.SetLens(frame.camera.aperture, frame.camera.focus_distance);
    in.ambient = scene.settings.ambient;
}

SceneFrames::SceneFrames(const Scene& scene, ImageSize size) : scene_(scene), size_(size) {}

const FrameInput& SceneFrames::At(double time_seconds) {
    if (!geometry_ready_) {
        EvaluateScene(scene_, time_seconds, &frame_);
        ToFrameInput(scene_, frame_, size_, &input_);
        geometry_moves_ = GeometryMoves(scene_);
        geometry_ready_ = triangles_current_ = true;
        return input_;
    }
    EvaluateCameraAndLights(scene_, time_seconds, &frame_);
    if (geometry_moves_) {
        // The moving objects' bounds as EvaluateScene makes them; their triangles are placed on
        // the device (FrameWithTriangles evaluates them here when asked).
        frame_.bounds = Aabb();
        for (std::size_t oi = 0; oi < scene_.objects.size(); ++oi) {
            const Object& o = scene_.objects[oi];
            if (Moves(o))
                frame_.object_bounds[oi] =
                    TransformedBox(frame_.object_reach[oi], ToAffine(ObjectTransformAt(o, time_seconds)));
            frame_.bounds.Extend(frame_.object_bounds[oi]);
        }
        BoundsToFrameInput(scene_, frame_, &input_);
        triangles_current_ = false;
    }
    PlaceObjects(scene_, time_seconds, &input_);
    CameraAndLightsToFrameInput(scene_, frame_, size_, &input_);
    return input_;
}

const SceneFrame& SceneFrames::FrameWithTriangles() {
    if (!triangles_current_) {
        EvaluateScene(scene_, frame_.time, &frame_);
        triangles_current_ = true;
    }
    return frame_;
}

void SceneFrames::GeometryChanged() { geometry_ready_ = false; }

void PrepareFrame(FrameRenderer& renderer, const Scene& scene, const RenderOptions& options, const Backend& backend,
                  double time_seconds) {
    renderer.SetMaterials(ToSceneMaterials(scene));
    renderer.Prepare(ToFrameInput(scene, EvaluateScene(scene, time_seconds), MakeImageSize(options)),
                     MakeRenderSettings(scene, options, backend));
}

}  // namespace caustica
