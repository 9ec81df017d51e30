// One frame's scene in the form the passes read, built on the host from a loaded scene at a
// moment of its animation (scene_to_frame.h) and uploaded by the frame renderer.
#pragma once

#include <cstdint>
#include <vector>

#include "core/vec.h"
#include "kdtree/triangle/triangle.h"
#include "photon/environment.h"
#include "photon/light.h"
#include "photon/projection_map.h"
#include "photon/surface.h"
#include "shaders_cuda/camera_view.h"
#include "shaders_cuda/heightfield_pass.h"
#include "shaders_cuda/moving_object_pass.h"

namespace caustica {

// What stays the same from frame to frame: set once per scene.
struct SceneMaterials {
    std::vector<SurfaceMaterial> materials;
    std::vector<TextureView> textures;
    std::vector<uint32_t> texels;  // RGBA8, red in the low byte
    EnvironmentView environment;   // its texels (none but an image's) are environment_texels
    std::vector<Rgb> environment_texels;
};

struct FrameInput {
    // Names the geometry below (triangles, shading, specular bounds, bounds): a new number, unique
    // in the process, whenever it is made anew, so that the frame renderer uploads it only when it
    // changed. 0: not named (always uploaded).
    uint64_t geometry_id = 0;
    std::vector<Triangle> triangles;
    std::vector<TriangleShading> shading;  // per triangle
    std::vector<LightSource> lights;
    std::vector<SpecularBound> specular;  // bounds of mirror and glass objects, for photon emission
    Aabb bounds;
    // Height fields with moving waves: the frame renderer writes their triangles and shading at
    // 'time' over the ones above (shaders_cuda/heightfield_pass.h). Part of the geometry.
    std::vector<HeightfieldView> heightfields;
    std::vector<float> heightfield_base;  // their static heights
    std::vector<SineWave> waves;
    // Objects that move as a whole (keyframes, an orbit): the frame renderer places their
    // object-space triangles and shading at 'time' over the ones above
    // (shaders_cuda/moving_object_pass.h). Part of the geometry but for the placements.
    std::vector<MovingObjectView> moving_objects;
    std::vector<Triangle> moving_base;
    std::vector<TriangleShading> moving_base_shading;
    double time = 0;
    CameraView camera;
    Rgb ambient{0.0f};
};

}  // namespace caustica
