// Exact-as-possible geometry between one triangle and one axis-aligned box, on the host, in
// double precision: the box of the part of a triangle inside a box (for the clipping that keeps
// kd-tree cells tight) and whether a triangle and a box overlap (for the tree validator).
#pragma once

#include "core/vec.h"
#include "kdtree/triangle/triangle.h"

namespace caustica {

// The bounding box of triangle ∩ box: the triangle is clipped to the box's six planes as a
// polygon (Sutherland and Hodgman 1974) and the remaining polygon's box is rounded outward to
// floats, then cut to the box. Empty when they do not meet (a triangle that only touches the box
// gives a flat or point box).
Aabb ClippedTriangleBounds(const Triangle& triangle, const Aabb& box);

// Whether the triangle and the closed box share a point, by the separating axis test of
// Akenine-Moller 2001 ("Fast 3D Triangle-Box Overlap Testing"): the box's three axes, the
// triangle's normal and the nine edge-axis cross products. Touching counts as overlapping.
bool TriangleOverlapsBox(const Triangle& triangle, const Aabb& box);

}  // namespace caustica
