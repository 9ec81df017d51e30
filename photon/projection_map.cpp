#include "photon/projection_map.h"

#include <cmath>

namespace caustica {
namespace {

constexpr float kPi = 3.14159265358979f;

// Whether any ray from 'apex' inside the cone (world axis, half-angle by cosine and sine) can reach
// the sphere: the angle to its centre is at most the half-angle plus the sphere's angular radius.
bool ConeSeesSphere(Vec3 apex, Vec3 axis, float cos_half, float sin_half, const SpecularBound& s) {
    const Vec3 to = s.center - apex;
    const float d = Length(to);
    if (d <= s.radius) return true;  // the light is inside the object's bounds
    const float sin_r = s.radius / d, cos_r = std::sqrt(1.0f - sin_r * sin_r);
    const float cos_limit = cos_half * cos_r - sin_half * sin_r;  // cos(half + angular radius)
    return sin_half * cos_r + cos_half * sin_r < 0.0f  // the sum passes pi: every direction
           || Dot(to, axis) >= cos_limit * d;
}

}  // namespace

Rgb ProjectionMaps::EmittedPower() const {
    Rgb total(0.0f);
    for (const LightEmission& e : lights) {
        if (e.light.kind == LightKind::Directional) {
            total += e.light.power * e.active_measure;
        } else {
            // Point and spot: intensity times active solid angle (spot falloff averaged by sampling,
            // so this is the point-light bound; exact for point lights). Area lights: the intensity
            // straight ahead times the active (rect, disc: projected) solid angle.
            total += e.light.power * (e.active_measure / (4.0f * kPi));
        }
    }
    return total;
}

const std::vector<ProjectionMapBuilder::CellCone>& ProjectionMapBuilder::ConesFor(float z_min, bool cosine) {
    for (const ConeGrid& g : grids_)
        if (g.z_min == z_min && g.cosine == cosine) return g.cones;
    if (grids_.size() == kConeGrids) grids_.erase(grids_.begin());
    grids_.push_back({z_min, cosine, {}});
    std::vector<CellCone>& cones = grids_.back().cones;
    // Each cell of the (cos angle, azimuth) grid: the direction at its centre, and the largest angle
    // from there to its corners and edge midpoints, widened a little since edges bulge past them.
    const float dphi = 2.0f * kPi / kCellsAroundAxis;
    auto direction = [](float z, float phi) {
        const float r = std::sqrt(std::fmax(0.0f, 1.0f - z * z));
        return Vec3(r * std::cos(phi), r * std::sin(phi), z);
    };
    for (int iz = 0; iz < kCellsAlongZ; ++iz)
        for (int iphi = 0; iphi < kCellsAroundAxis; ++iphi) {
            auto z = [&](float bands) { return CellZ(z_min, cosine, bands); };
            const Vec3 axis = Normalize(direction(z(iz + 0.5f), (iphi + 0.5f) * dphi));
            float widest = 0.0f;
            for (int cz = 0; cz <= 2; ++cz)
                for (int cp = 0; cp <= 2; ++cp) {
                    const Vec3 corner = direction(z(iz + 0.5f * cz), (iphi + 0.5f * cp) * dphi);
                    widest = std::fmax(widest, std::acos(std::fmin(1.0f, Dot(axis, Normalize(corner)))));
                }
            const float half = widest * 1.05f + 1e-4f;
            cones.push_back({axis, std::cos(half), std::sin(half)});
        }
    return cones;
}

const ProjectionMaps& ProjectionMapBuilder::Build(Span<const LightSource> lights, Span<const SpecularBound> specular,
                                                  const Aabb& scene_bounds, EmissionCoverage coverage) {
    const bool every_cell = coverage == EmissionCoverage::Everywhere;
    ProjectionMaps& maps = maps_;
    maps.lights.clear();
    maps.light_cdf.clear();
    maps.cells.clear();
    std::vector<float> weight;
    for (const LightSource& light : lights) {
        LightEmission e;
        e.light = light;
        const bool all_around = light.kind == LightKind::Point || light.kind == LightKind::Sphere;
        e.w = all_around ? Vec3(0, 0, 1) : Normalize(light.direction);
        OrthonormalBasis(e.w, &e.u, &e.v);
        e.first_cell = uint32_t(maps.cells.size());
        if (light.kind == LightKind::Directional) {
            // A square facing the light, behind the scene, covering the scene's bounding sphere.
            const Vec3 c = scene_bounds.Center();
            const float radius = 0.5f * Length(scene_bounds.Extent()) * 1.01f + 1e-3f;
            e.plane_size = 2.0f * radius;
            e.plane_origin = c - e.w * (2.0f * radius) - e.u * radius - e.v * radius;
            const float cell = e.plane_size / kPlaneCells;
            for (int y = 0; y < kPlaneCells; ++y)
                for (int x = 0; x < kPlaneCells; ++x) {
                    const Vec3 centre = e.plane_origin + e.u * ((x + 0.5f) * cell) + e.v * ((y + 0.5f) * cell);
                    bool active = every_cell;
                    for (size_t i = 0; i < specular.size() && !active; ++i) {
                        // Distance from the sphere's centre to the cell's line of travel.
                        const Vec3 to = specular[i].center - centre;
                        const float off_axis = Length(to - e.w * Dot(to, e.w));
                        active = off_axis <= specular[i].radius + cell * 0.7072f;
                    }
                    if (active) maps.cells.push_back(uint32_t(y * kPlaneCells + x));
                }
            e.cell_count = uint32_t(maps.cells.size()) - e.first_cell;
            e.active_measure = e.cell_count * cell * cell;
        } else {
            e.cosine = light.kind == LightKind::Rect || light.kind == LightKind::Disc;
            e.z_min = light.kind == LightKind::Spot ? std::fmax(-1.0f, light.cos_outer) : (e.cosine ? 0.0f : -1.0f);
            const std::vector<CellCone>& cones = ConesFor(e.z_min, e.cosine);
            // An area light's rays start anywhere within its bounding radius of its centre.
            const float reach = light.BoundingRadius();
            for (uint32_t cell = 0; cell < cones.size(); ++cell) {
                const CellCone& c = cones[cell];
                const Vec3 axis = e.u * c.axis.x + e.v * c.axis.y + e.w * c.axis.z;
                bool active = every_cell;
                for (size_t i = 0; i < specular.size() && !active; ++i)
                    active = ConeSeesSphere(light.position, axis, c.cos_half, c.sin_half,
                                            {specular[i].center, specular[i].radius + reach});
                if (active) maps.cells.push_back(cell);
            }
            e.cell_count = uint32_t(maps.cells.size()) - e.first_cell;
            // A cell's solid angle, or its projected solid angle (the hemisphere's is pi).
            const float cell_measure =
                (e.cosine ? kPi : 2.0f * kPi * (1.0f - e.z_min)) / (kCellsAlongZ * kCellsAroundAxis);
            e.active_measure = e.cell_count * cell_measure;
        }
        if (e.cell_count == 0) continue;  // this light sees no specular object
        const float power = Luminance(light.kind == LightKind::Directional ? light.power * e.active_measure
                                                                           : light.power * (e.active_measure / (4 * kPi)));
        if (!(power > 0.0f)) {
            maps.cells.resize(e.first_cell);
            continue;
        }
        weight.push_back(power);
        maps.lights.push_back(e);
    }
    float total = 0.0f;
    for (float w : weight) total += w;
    float running = 0.0f;
    for (float w : weight) {
        running += w;
        maps.light_cdf.push_back(running / total);
    }
    if (!maps.light_cdf.empty()) maps.light_cdf.back() = 1.0f;
    return maps;
}

}  // namespace caustica
