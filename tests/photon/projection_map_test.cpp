// Projection maps of several lights built by one builder, frame after frame: each light's active
// cells are those a builder given that light alone finds, whichever grids of cell cones (a spot
// light's cone, a point light's sphere, an area light's hemisphere) the others use.
#include "photon/projection_map.h"

#include <gtest/gtest.h>

#include <vector>

namespace caustica {
namespace {

std::vector<uint32_t> CellsOf(const ProjectionMaps& maps, size_t light) {
    const LightEmission& e = maps.lights[light];
    return {maps.cells.begin() + e.first_cell, maps.cells.begin() + e.first_cell + e.cell_count};
}

TEST(ProjectionMap, LightsOfDifferentGridsFindTheCellsTheyFindAlone) {
    LightSource spot;
    spot.kind = LightKind::Spot;
    spot.position = Vec3(-1.0f, 0.5f, 0.0f);
    spot.direction = Normalize(Vec3(1.0f, 0.3f, 0.0f));
    spot.cos_inner = 0.9f;
    spot.cos_outer = 0.8f;
    LightSource wide = spot;  // its cells start where an area light's do (z_min 0), on another grid
    wide.cos_inner = 0.5f;
    wide.cos_outer = 0.0f;
    LightSource point;
    point.position = Vec3(0.5f, 2.5f, 1.5f);
    LightSource rect;
    rect.kind = LightKind::Rect;
    rect.position = Vec3(0.0f, 2.0f, 0.0f);
    rect.half_u = Vec3(0.2f, 0.0f, 0.0f);
    rect.half_v = Vec3(0.0f, 0.0f, 0.2f);
    const std::vector<SpecularBound> specular{{Vec3(0.0f, 0.6f, 0.0f), 0.4f}, {Vec3(1.2f, 0.3f, -0.5f), 0.3f}};
    const Aabb bounds(Vec3(-2.5f, 0.0f, -2.5f), Vec3(2.5f, 2.5f, 2.5f));

    std::vector<std::vector<uint32_t>> alone;
    const std::vector<LightSource> lights{spot, wide, point, rect};
    for (const LightSource& light : lights) {
        ProjectionMapBuilder fresh;
        const ProjectionMaps& maps = fresh.Build(std::vector<LightSource>{light}, specular, bounds);
        ASSERT_EQ(maps.lights.size(), 1u);
        alone.push_back(CellsOf(maps, 0));
        EXPECT_FALSE(alone.back().empty());
    }
    ProjectionMapBuilder kept;
    for (int frame = 0; frame < 3; ++frame) {
        const ProjectionMaps& maps = kept.Build(lights, specular, bounds);
        ASSERT_EQ(maps.lights.size(), lights.size());
        for (size_t l = 0; l < lights.size(); ++l) EXPECT_EQ(CellsOf(maps, l), alone[l]) << "frame " << frame << ", light " << l;
    }
}

}  // namespace
}  // namespace caustica
