#include "shaders_cuda/heightfield_pass.h"

#include "core/parallel_for.h"

namespace caustica {
namespace {

// The height of each grid vertex: its static height plus the waves'.
struct HeightsPass {
    HeightfieldView field;
    Span<const float> base_heights;
    Span<const SineWave> waves;
    double time;
    Span<float> heights;
    CA_HD void operator()(int v) const {
        const HeightGrid& g = field.grid;
        const uint32_t i = uint32_t(v) % (g.quads_x + 1), j = uint32_t(v) / (g.quads_x + 1);
        heights[v] = SineWavesHeight(waves.data() + field.first_wave, int(field.wave_count), g.X(i), g.Z(j), time) +
                     base_heights[field.first_base_height + uint32_t(v)];
    }
};

// The two triangles of each quad, in world space.
struct QuadTrianglesPass {
    HeightfieldView field;
    Span<const float> heights;
    Span<Triangle> triangles;
    Span<TriangleShading> shading;

    CA_HD void operator()(int q) const {
        const HeightGrid& g = field.grid;
        const uint32_t i = uint32_t(q) % g.quads_x, j = uint32_t(q) / g.quads_x;
        // Triangles (0, 1, 2) and (0, 2, 3) of the quad's corners.
        const int quad_corner[2][3] = {{0, 1, 2}, {0, 2, 3}};
        for (int half = 0; half < 2; ++half) {
            Vec3 p[3], n[3], wp[3], wn[3];
            Vec2 uv[3], wuv[3];
            for (int c = 0; c < 3; ++c) {
                const int k = quad_corner[half][c];
                const uint32_t ci = i + QuadCornerI(k), cj = j + QuadCornerJ(k);
                p[c] = Vec3(g.X(ci), heights[g.Vertex(ci, cj)], g.Z(cj));
                n[c] = g.Normal(heights.data(), ci, cj);
                uv[c] = g.Uv(ci, cj);
            }
            field.placement.Place(p, n, uv, wp, wn, wuv);
            const uint32_t t = field.first_triangle + 2 * uint32_t(q) + uint32_t(half);
            triangles[t] = {wp[0], wp[1], wp[2]};
            shading[t] = {wn[0], wn[1], wn[2], wuv[0], wuv[1], wuv[2], field.material};
        }
    }
};

}  // namespace

void RunHeightfieldPasses(const Backend& backend, const std::vector<HeightfieldView>& views,
                          Span<const float> base_heights, Span<const SineWave> waves, double time_seconds,
                          Span<float> heights, Span<Triangle> triangles, Span<TriangleShading> shading) {
    for (const HeightfieldView& f : views) {
        ParallelFor(backend, "heightfield heights", size_t(f.grid.quads_x + 1) * (f.grid.quads_z + 1),
                    HeightsPass{f, base_heights, waves, time_seconds, heights});
        ParallelFor(backend, "heightfield triangles", size_t(f.grid.quads_x) * f.grid.quads_z,
                    QuadTrianglesPass{f, heights, triangles, shading});
    }
}

}  // namespace caustica
