// Closed triangle meshes generated in code, for tests and benchmarks: vertices shared by
// neighbouring triangles are bit-identical, so the meshes are watertight for ray tracing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/vec.h"
#include "kdtree/triangle/triangle.h"

namespace caustica {

// A UV sphere: rings >= 2 latitude bands, segments >= 3 longitude slices; 2 * segments *
// (rings - 1) triangles.
std::vector<Triangle> TessellatedSphere(Vec3 center, float radius, int rings, int segments);

// A torus around the z axis: 2 * major * minor triangles.
std::vector<Triangle> TessellatedTorus(Vec3 center, float major_radius, float minor_radius, int major_segments,
                                       int minor_segments);

// The surface of a box, each face cut into divisions x divisions squares: 12 * divisions^2
// triangles. Vertices on shared box edges are computed by the same formula on both faces.
std::vector<Triangle> TessellatedBox(const Aabb& box, int divisions);

// A flat square grid in the plane z = z, [lo, hi]^2, n x n squares: 2 * n^2 triangles.
std::vector<Triangle> FlatGrid(float lo, float hi, float z, int n);

// About target_triangles triangles (at least one mesh): copies of a closed tessellated sphere or
// torus, each randomly scaled, rotated and placed in a cube of side ~ (number of copies)^(1/3).
// The same (target_triangles, seed) always gives the same scene.
std::vector<Triangle> InstancedMeshScene(size_t target_triangles, uint64_t seed);

// Machined, CAD-like parts with large flat faces parallel to the axes, about 1 unit in size. Each
// is a union of axis-aligned boxes on an irregular grid whose boundary faces are split into two
// triangles per grid cell, so that flat faces hold long thin triangles, as tessellated CAD parts
// do; the gear's caps are fans of large triangles.
// An L-shaped bracket: a base plate and an upright, each with a row of square holes.
std::vector<Triangle> FlatBracket();
// A closed box with square windows through its walls.
std::vector<Triangle> FlatBoxWithHoles();
// Thin square plates stacked with gaps between them, each with a hole in the middle.
std::vector<Triangle> FlatStackedPlates();
// A spur gear: an extruded outline of teeth around a bore, its caps fans of triangles.
std::vector<Triangle> FlatGear();

// Exactly n triangles that share their bounds: copies of one unit box's 12 triangles, all in the
// same place (a mesh instanced many times without moving it). Every split plane between two
// copies' faces separates nothing, so it stresses the builders' stopping rules.
std::vector<Triangle> CoincidentBoxes(size_t n);

}  // namespace caustica
