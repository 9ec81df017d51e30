#include "renderer/scene/scene_stats.h"

#include <ostream>
#include <sstream>

#include "renderer/scene/scene_eval.h"

namespace caustica {

SceneStats ComputeSceneStats(const Scene& scene) {
    SceneStats s;
    const SceneFrame frame = EvaluateScene(scene, 0.0);
    s.triangles = frame.triangles.size();
    s.bounds = frame.bounds;
    s.objects = static_cast<int>(scene.objects.size());
    for (const Object& o : scene.objects) {
        (o.is_mesh ? s.mesh_objects : s.shape_objects) += 1;
        s.animated_objects += (!o.animation.empty() || o.orbit.enabled || o.animated_shape) ? 1 : 0;
    }
    for (const Light& l : scene.lights) {
        switch (l.type) {
        case LightType::point: ++s.point_lights; break;
        case LightType::spot: ++s.spot_lights; break;
        case LightType::directional: ++s.directional_lights; break;
        case LightType::rect:
        case LightType::disc:
        case LightType::sphere: ++s.area_lights; break;
        }
    }
    for (const Material& m : scene.materials) {
        switch (m.type) {
        case MaterialType::diffuse: ++s.diffuse_materials; break;
        case MaterialType::mirror: ++s.mirror_materials; break;
        case MaterialType::glass: ++s.glass_materials; break;
        }
    }
    s.textures = static_cast<int>(scene.textures.size());
    s.warnings = static_cast<int>(scene.warnings.size());
    s.animation_length = AnimationLength(scene);
    return s;
}

void PrintSceneStats(const Scene& scene, const SceneStats& s, std::ostream& out) {
    auto vec = [](Vec3 v) {
        std::ostringstream t;
        t << "(" << v.x << ", " << v.y << ", " << v.z << ")";
        return t.str();
    };
    out << "scene:      " << scene.path << "\n";
    out << "triangles:  " << s.triangles << "\n";
    out << "objects:    " << s.objects << " (" << s.shape_objects << " built-in shapes, " << s.mesh_objects << " meshes, "
        << s.animated_objects << " animated)\n";
    out << "lights:     " << scene.lights.size() << " (" << s.point_lights << " point, " << s.spot_lights << " spot, "
        << s.directional_lights << " directional, " << s.area_lights << " area)\n";
    out << "materials:  " << scene.materials.size() << " (" << s.diffuse_materials << " diffuse, " << s.mirror_materials
        << " mirror, " << s.glass_materials << " glass)\n";
    out << "textures:   " << s.textures << "\n";
    out << "environment: " << ToString(scene.environment.kind);
    if (scene.environment.image) out << " " << scene.environment.image->width << "x" << scene.environment.image->height;
    out << ", intensity " << scene.environment.intensity << "\n";
    if (s.animation_length > 0)
        out << "animation:  " << s.animation_length << " s at " << scene.settings.frame_rate << " frames/s\n";
    else
        out << "animation:  none (a still scene)\n";
    if (s.bounds.Empty()) out << "bounds:     empty\n";
    else out << "bounds:     " << vec(s.bounds.lo) << " to " << vec(s.bounds.hi) << "\n";
    out << "camera:     " << scene.camera.width << "x" << scene.camera.height << ", fov " << scene.camera.fov_degrees << " degrees\n";
    out << "settings:   " << scene.settings.photons << " photons, k = " << scene.settings.k << ", max bounces "
        << scene.settings.max_bounces << ", specular splits " << scene.settings.specular_splits << ", shadow samples "
        << scene.settings.shadow_samples << "\n";
    out << "warnings:   " << s.warnings << "\n";
}

}  // namespace caustica
