// A scene with a height field of moving waves over a floor, for the tests of the height field
// pass on either backend, and the passes that place moving geometry run over a frame's input.
#pragma once

#include <string>
#include <vector>

#include "core/buffer.h"
#include "renderer/scene_to_frame.h"
#include "shaders_cuda/heightfield_pass.h"
#include "shaders_cuda/moving_object_pass.h"
#include "tests/renderer/render_still.h"

namespace caustica::testing {

// 40 x 30 quads of water, two waves, with the object transform given as YAML.
inline Scene HeightfieldScene(const std::string& transform) {
    return SceneFromYaml(
        "materials:\n  water: {type: glass, ior: 1.33}\n"
        "lights:\n  - {type: directional, direction: [0.2, -1, 0.1], power: 20}\n"
        "objects:\n  - {shape: {type: plane, size: [6, 6]}, transform: {translate: [0, -1, 0]}}\n"
        "  - shape:\n      type: heightfield\n      size: [4, 3]\n      resolution: [40, 30]\n"
        "      waves:\n        - {amplitude: 0.05, wavelength: 1.1, direction: 20, speed: 0.5}\n"
        "        - {amplitude: 0.02, wavelength: 0.4, direction: 115, speed: 0.3, phase: 1}\n"
        "    material: water\n    transform: " +
            transform + "\n",
        "water.yaml");
}

struct GeneratedGeometry {
    std::vector<Triangle> triangles;
    std::vector<TriangleShading> shading;
};

// The input's triangles and shading with its moving objects placed and its height fields generated
// over them at its time, as the frame renderer does.
inline GeneratedGeometry PlaceMovingGeometry(const Backend& backend, const FrameInput& input) {
    Buffer<Triangle> triangles(backend), moving_base(backend);
    Buffer<TriangleShading> shading(backend), moving_base_shading(backend);
    Buffer<float> base(backend), heights(backend);
    Buffer<SineWave> waves(backend);
    triangles.Upload(input.triangles);
    shading.Upload(input.shading);
    moving_base.Upload(input.moving_base);
    moving_base_shading.Upload(input.moving_base_shading);
    base.Upload(input.heightfield_base);
    waves.Upload(input.waves);
    heights.Resize(input.heightfield_base.size());
    RunMovingObjectPasses(backend, input.moving_objects, moving_base.span(), moving_base_shading.span(),
                          triangles.span(), shading.span());
    RunHeightfieldPasses(backend, input.heightfields, base.span(), waves.span(), input.time, heights.span(),
                         triangles.span(), shading.span());
    return {triangles.Download(), shading.Download()};
}

}  // namespace caustica::testing
