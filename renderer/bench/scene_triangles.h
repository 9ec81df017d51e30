// All triangles of a scene file in world space, as the kd-tree benchmark needs them.
#pragma once

#include <string>
#include <vector>

#include "kdtree/triangle/triangle.h"

namespace caustica {

// path: a .obj mesh or a .yaml scene. Bad input throws InputError naming the file (and the line,
// where known) and what was expected.
std::vector<Triangle> LoadTrianglesForBench(const std::string& path);

}  // namespace caustica
