// What `caustica info` prints about a scene.
#pragma once

#include <cstddef>
#include <iosfwd>

#include "core/vec.h"
#include "renderer/scene/scene.h"

namespace caustica {

struct SceneStats {
    std::size_t triangles = 0;  // at time 0
    int objects = 0, mesh_objects = 0, shape_objects = 0, animated_objects = 0;
    int point_lights = 0, spot_lights = 0, directional_lights = 0, area_lights = 0;
    int diffuse_materials = 0, mirror_materials = 0, glass_materials = 0;
    int textures = 0;
    int warnings = 0;
    double animation_length = 0;  // seconds
    Aabb bounds;                  // world space at time 0
};

SceneStats ComputeSceneStats(const Scene& scene);

// A readable block of "name: value" lines.
void PrintSceneStats(const Scene& scene, const SceneStats& stats, std::ostream& out);

}  // namespace caustica
