// glTF 2.0 files (.gltf with its buffers and images, or .glb) through tinygltf, checked: every
// accessor inside its buffer, every index in range, every number finite. The nodes of the file's
// scene give one mesh with their transforms applied; its cameras and punctual lights
// (KHR_lights_punctual) and its materials are mapped to Caustica's (docs/scenes.md, "glTF").
// glTF has no lines, so errors name the file and the JSON path of what was wrong:
// "part.gltf: error: meshes[2].primitives[0]: ...".
#pragma once

#include <string>
#include <vector>

#include "renderer/scene/file_source.h"
#include "renderer/scene/scene.h"

namespace caustica {

struct GltfFile {
    Mesh mesh;                          // world space; triangle_materials index 'materials', or -1
    std::vector<Material> materials;    // 'texture' indexes 'textures'
    std::vector<Texture> textures;      // decoded base-colour images
    bool has_camera = false;
    Camera camera;                      // the first perspective camera, looking at the mesh
    std::vector<Light> lights;          // power in watts (converted from candela or lux)
    std::vector<std::string> warnings;  // compiler-style
};

// Whether 'path' names a glTF file (.gltf or .glb, any case).
bool IsGltfPath(const std::string& path);

// Parses the bytes of a .gltf or .glb file; 'path' names it in messages and is where its external
// buffers and images are looked up (through 'files'). A missing image is a warning; anything
// malformed, or more than max_triangles triangles, is an InputError.
GltfFile ParseGltf(const std::string& bytes, const std::string& path, const FileSource& files,
                   std::size_t max_triangles);

}  // namespace caustica
