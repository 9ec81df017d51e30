#include "shaders_cuda/heightfield_pass.h"

#include "core/parallel_for.h"

namespace caustica {
namespace {

CA_HD CA_INLINE float GridX(const HeightfieldView& f, uint32_t i) {
    return (float(i) / float(f.quads_x) - 0.5f) * f.size_x;
}
CA_HD CA_INLINE float GridZ(const HeightfieldView& f, uint32_t j) {
    return (float(j) / float(f.quads_z) - 0.5f) * f.size_z;
}

// The height of each grid vertex: its static height plus the waves'.
struct HeightsPass {
    HeightfieldView field;
    Span<const float> base_heights;
    Span<const SineWave> waves;
    double time;
    Span<float> heights;
    CA_HD void operator()(int v) const {
        const uint32_t row = field.quads_x + 1, i = uint32_t(v) % row, j = uint32_t(v) / row;
        heights[v] = SineWavesHeight(waves.data() + field.first_wave, int(field.wave_count), GridX(field, i),
                                     GridZ(field, j), time) +
                     base_heights[field.first_base_height + uint32_t(v)];
    }
};

// The two triangles of each quad, in world space.
struct QuadTrianglesPass {
    HeightfieldView field;
    Span<const float> heights;
    Span<Triangle> triangles;
    Span<TriangleShading> shading;

    CA_HD float Height(uint32_t i, uint32_t j) const { return heights[j * (field.quads_x + 1) + i]; }

    // Shading normal from central differences of the grid heights (one-sided at the border).
    CA_HD Vec3 GridNormal(uint32_t i, uint32_t j) const {
        const uint32_t i0 = i > 0 ? i - 1 : 0, i1 = i < field.quads_x ? i + 1 : field.quads_x;
        const uint32_t j0 = j > 0 ? j - 1 : 0, j1 = j < field.quads_z ? j + 1 : field.quads_z;
        const float dhdx = (Height(i1, j) - Height(i0, j)) / (GridX(field, i1) - GridX(field, i0));
        const float dhdz = (Height(i, j1) - Height(i, j0)) / (GridZ(field, j1) - GridZ(field, j0));
        return Normalize(Vec3(-dhdx, 1, -dhdz));
    }

    CA_HD Vec3 WorldPoint(Vec3 p) const {
        return Vec3(Dot(field.rows[0], p), Dot(field.rows[1], p), Dot(field.rows[2], p)) + field.translate;
    }
    CA_HD Vec3 WorldNormal(Vec3 n) const {
        Vec3 m = field.normal_rows[0] * n.x + field.normal_rows[1] * n.y + field.normal_rows[2] * n.z;
        if (field.mirrored) m = -m;
        const float length = Length(m);
        return length > 0 ? m / length : n;
    }

    CA_HD void operator()(int q) const {
        const uint32_t i = uint32_t(q) % field.quads_x, j = uint32_t(q) / field.quads_x;
        // Counter-clockwise seen from +y: (i, j), (i, j+1), (i+1, j+1), (i+1, j); triangles (0, 1, 2)
        // and (0, 2, 3), their last two corners swapped under a mirroring transform.
        const uint32_t ci[4] = {i, i, i + 1, i + 1}, cj[4] = {j, j + 1, j + 1, j};
        const int quad_corner[2][3] = {{0, 1, 2}, {0, 2, 3}};
        for (int half = 0; half < 2; ++half) {
            const uint32_t t = field.first_triangle + 2 * uint32_t(q) + uint32_t(half);
            Vec3 p[3], n[3];
            Vec2 uv[3];
            for (int c = 0; c < 3; ++c) {
                const int k = quad_corner[half][c == 0 || !field.mirrored ? c : 3 - c];
                p[c] = WorldPoint(Vec3(GridX(field, ci[k]), Height(ci[k], cj[k]), GridZ(field, cj[k])));
                n[c] = WorldNormal(GridNormal(ci[k], cj[k]));
                uv[c] = Vec2(float(ci[k]) / float(field.quads_x), float(cj[k]) / float(field.quads_z));
            }
            triangles[t] = {p[0], p[1], p[2]};
            shading[t] = {n[0], n[1], n[2], uv[0], uv[1], uv[2], field.material};
        }
    }
};

}  // namespace

void RunHeightfieldPasses(const Backend& backend, const std::vector<HeightfieldView>& views,
                          Span<const float> base_heights, Span<const SineWave> waves, double time_seconds,
                          Span<float> heights, Span<Triangle> triangles, Span<TriangleShading> shading) {
    for (const HeightfieldView& f : views) {
        ParallelFor(backend, "heightfield heights", size_t(f.quads_x + 1) * (f.quads_z + 1),
                    HeightsPass{f, base_heights, waves, time_seconds, heights});
        ParallelFor(backend, "heightfield triangles", size_t(f.quads_x) * f.quads_z,
                    QuadTrianglesPass{f, heights, triangles, shading});
    }
}

}  // namespace caustica
