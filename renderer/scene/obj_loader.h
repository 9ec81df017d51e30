// Wavefront OBJ meshes through tinyobjloader, checked: every index in range, every coordinate
// finite, polygons fan-triangulated. Errors name the OBJ file and line.
#pragma once

#include <string>
#include <vector>

#include "core/error.h"
#include "renderer/scene/file_source.h"
#include "renderer/scene/scene.h"

namespace caustica {

struct ObjMesh {
    Mesh mesh;                        // triangle_materials index 'materials', or -1 (no usemtl)
    std::vector<Material> materials;  // from the MTL files (texture paths absolute)
    std::vector<SourceLocation> texture_lines;  // per material: its map_Kd line in the MTL file
    std::vector<std::string> warnings;  // compiler-style, already located
};

// Parses OBJ text; 'path' names the file in messages and is where its MTL files are looked up
// (through 'files'). A missing MTL file is a warning; malformed content is an InputError.
ObjMesh ParseObj(const std::string& text, const std::string& path, const FileSource& files);

}  // namespace caustica
