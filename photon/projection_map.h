// Photon emission toward the specular objects only, through a projection map (Jensen 2001,
// "Realistic Image Synthesis Using Photon Mapping", section 5.1.5; Zhou et al. 2008, section 5.3).
//
// Each light's directions (point and spot lights: cells of equal solid angle over the sphere or the
// spot's cone; directional lights: square cells of a plane facing the light) are split into cells,
// and a cell is active when its bundle of rays may reach the bounding sphere of a mirror or glass
// object. Photons leave only through active cells, and each carries the power that leaves through
// the active cells divided by the photon count, so the total caustic power does not depend on how
// many photons are traced.
//
// Area lights emit from their surface: a photon leaves a point chosen by area (a sphere light: by
// area of its cross-section facing the photon's direction) in a direction from the active cells.
// The cells are those of a point light at the light's centre (a sphere: over the whole sphere; a
// rect or disc: over the hemisphere it faces, in bands of equal projected solid angle, so that
// directions follow the cosine law and all photons carry the same power), and a cell is active
// when its bundle may pass within the light's bounding radius of a specular object's bounds: every
// ray from any point of the light that can reach the object leaves through an active cell, so the
// emission stays unbiased while the maps stay one per light.
//
// The global photons (global_photon_tracer.h) leave through every cell (EmissionCoverage::Everywhere):
// the same emission, with the whole sphere, cone, hemisphere or square active.
#pragma once

#include <cstdint>
#include <vector>

#include "core/hd.h"
#include "core/rng.h"
#include "core/span.h"
#include "core/vec.h"
#include "photon/light.h"

namespace caustica {

// A mirror or glass object's bounding sphere, in world space.
struct SpecularBound {
    Vec3 center;
    float radius = 0;
};
inline bool operator==(const SpecularBound& a, const SpecularBound& b) {
    return a.center == b.center && a.radius == b.radius;
}

// The emission of one light: its frame, cell grid and active cells.
struct LightEmission {
    LightSource light;
    Vec3 u, v, w;             // frame: w is the spot axis, the directional light's travel direction,
                              // or +z for a point light
    float z_min = -1.0f;      // point/spot/area: the cells cover cos(angle to w) in [z_min, 1]
    bool cosine = false;      // rect, disc: the bands are of equal projected solid angle (z^2 uniform)
    Vec3 plane_origin;        // directional: the corner of the emitting square (u, v span it)
    float plane_size = 0;     // directional: the square's side
    uint32_t first_cell = 0;  // active cells: cells[first_cell, first_cell + cell_count)
    uint32_t cell_count = 0;
    float active_measure = 0; // solid angle (sr; rect and disc: projected solid angle) or area (m^2) of the
                              // active cells
};

// What the photon tracer reads: the lights' emission, the cumulative probability of choosing each
// light, and the active cell indices.
struct EmissionView {
    Span<const LightEmission> lights;
    Span<const float> light_cdf;  // light_cdf[i]: probability of choosing a light <= i
    Span<const uint32_t> cells;
};

// Host side: the projection maps of all lights for this frame. scene_bounds sizes the emitting
// squares of directional lights.
struct ProjectionMaps {
    std::vector<LightEmission> lights;
    std::vector<float> light_cdf;
    std::vector<uint32_t> cells;

    // Total power (W) leaving all lights through active cells: the caustic photons' total power.
    Rgb EmittedPower() const;
};

constexpr int kCellsAlongZ = 64;     // point/spot cells: bands of equal solid angle in cos(angle)
constexpr int kCellsAroundAxis = 128;
constexpr int kPlaneCells = 128;     // directional cells: kPlaneCells x kPlaneCells squares

// The cosine to the light's axis 'bands' of the kCellsAlongZ bands of cells away from z_min: the
// bands are even in the cosine (equal solid angles), or in its square (equal projected solid
// angles, from z_min = 0).
CA_HD CA_INLINE float CellZ(float z_min, bool cosine, float bands) {
    return cosine ? sqrtf(bands * (1.0f / kCellsAlongZ)) : z_min + bands * ((1.0f - z_min) / kCellsAlongZ);
}

// Which of a light's cells are active: those whose bundle may reach a specular object (the caustic
// photons'), or all of them (the global photons', which light every surface).
enum class EmissionCoverage : uint8_t { TowardSpecular, Everywhere };

// Builds the projection maps of a frame's lights. The cones of the point and spot lights' cells
// depend only on how far the cells reach from the light's axis, not on where it points, so the
// builder keeps them in the light's own frame and a frame computes none of them again.
class ProjectionMapBuilder {
public:
    const ProjectionMaps& Build(Span<const LightSource> lights, Span<const SpecularBound> specular,
                                const Aabb& scene_bounds,
                                EmissionCoverage coverage = EmissionCoverage::TowardSpecular);

private:
    // A cell's bundle of directions as a cone: its axis in the light's frame (u, v, w) and the
    // cosine and sine of its half-angle.
    struct CellCone {
        Vec3 axis;
        float cos_half, sin_half;
    };
    // The cones of the grid that starts at z_min (cosine: the bands of equal projected solid angle),
    // made once and kept for up to kConeGrids grids, so that the lights of one scene with grids of
    // their own (a spot light's cone, a point light's sphere, an area light's hemisphere) do not
    // make each other's cones again every frame.
    const std::vector<CellCone>& ConesFor(float z_min, bool cosine);
    struct ConeGrid {
        float z_min;
        bool cosine;
        std::vector<CellCone> cones;
    };
    static constexpr size_t kConeGrids = 8;  // past that the oldest grid goes
    std::vector<ConeGrid> grids_;
    ProjectionMaps maps_;
};

// One emitted photon: where it starts, where it goes, and the power it carries when count photons
// are emitted in all.
struct EmittedPhoton {
    Vec3 origin, direction;
    Rgb power;
};

CA_HD CA_INLINE int ChooseLight(Span<const float> cdf, float xi) {
    int i = 0;
    while (i + 1 < int(cdf.size()) && xi >= cdf[i]) ++i;
    return i;
}

// Photon 'index' of count: its light and active cell come from u in [index, index + 1) / count, a
// stratified sample of the lights' CDF and then of the light's cells (unbiased as a uniform one).
// The photons thus sweep the cells in index order: a warp's photons leave through one or two cells
// and follow nearly the same path, where independent picks sent them all over the scene.
CA_HD CA_INLINE EmittedPhoton EmitPhoton(const EmissionView& emission, Rng& rng, uint32_t index, uint32_t count) {
    const double u = (double(index) + double(rng.NextFloat())) / double(count);
    const int l = ChooseLight(emission.light_cdf, float(u));
    const LightEmission& e = emission.lights[l];
    const float cdf_below = l > 0 ? emission.light_cdf[l - 1] : 0.0f;
    const float p_light = emission.light_cdf[l] - cdf_below;
    const double within = p_light > 0.0f ? (u - double(cdf_below)) / double(p_light) : 0.0;
    const uint32_t pick = within > 0.0 ? uint32_t(within * double(e.cell_count)) : 0u;
    const uint32_t cell = emission.cells[e.first_cell + (pick < e.cell_count ? pick : e.cell_count - 1)];
    const float a = rng.NextFloat(), b = rng.NextFloat();
    // Each photon is a sample of the light's output over its active cells: (power density at the
    // sample) * (active measure) / (probability of this light) / count.
    const float scale = e.active_measure / (p_light * float(count));
    EmittedPhoton photon;
    if (e.light.kind == LightKind::Directional) {
        const float x = (float(cell % kPlaneCells) + a) / kPlaneCells, y = (float(cell / kPlaneCells) + b) / kPlaneCells;
        photon.origin = e.plane_origin + e.u * (x * e.plane_size) + e.v * (y * e.plane_size);
        photon.direction = e.w;
        photon.power = e.light.power * scale;
        return photon;
    }
    const float z = CellZ(e.z_min, e.cosine, float(cell / kCellsAroundAxis) + a);
    const float phi = (float(cell % kCellsAroundAxis) + b) * (2.0f * 3.14159265358979f / kCellsAroundAxis);
    const float r = sqrtf(Max(0.0f, 1.0f - z * z));
    photon.origin = e.light.position;
    photon.direction = Normalize(e.u * (r * cosf(phi)) + e.v * (r * sinf(phi)) + e.w * z);
    // Cosine cells sample the cosine law itself: every photon carries the intensity straight ahead.
    photon.power =
        (e.cosine ? e.light.power * (1.0f / (4.0f * kLightPi)) : e.light.Intensity(photon.direction)) * scale;
    if (e.light.kind == LightKind::Rect || e.light.kind == LightKind::Disc) {
        const float c = rng.NextFloat(), d = rng.NextFloat();
        photon.origin = PointOnFlatLight(e.light, c, d);
    } else if (e.light.kind == LightKind::Sphere) {
        // A point of the cross-section facing the direction, lifted onto the near side.
        const Vec2 p = ConcentricDisc(rng.NextFloat(), rng.NextFloat()) ;
        Vec3 t, s;
        OrthonormalBasis(photon.direction, &t, &s);
        const float lift = sqrtf(Max(0.0f, 1.0f - p.x * p.x - p.y * p.y));
        photon.origin = e.light.position + (t * p.x + s * p.y + photon.direction * lift) * e.light.radius;
    }
    return photon;
}

}  // namespace caustica
