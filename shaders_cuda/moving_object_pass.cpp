#include "shaders_cuda/moving_object_pass.h"

#include "core/parallel_for.h"

namespace caustica {
namespace {

struct PlaceTrianglesPass {
    MovingObjectView object;
    Span<const Triangle> base;
    Span<const TriangleShading> base_shading;
    Span<Triangle> triangles;
    Span<TriangleShading> shading;
    CA_HD void operator()(int i) const {
        const Triangle& t = base[object.first_base + uint32_t(i)];
        const TriangleShading& s = base_shading[object.first_base + uint32_t(i)];
        const Vec3 p[3] = {t.v0, t.v1, t.v2}, n[3] = {s.n0, s.n1, s.n2};
        const Vec2 uv[3] = {s.uv0, s.uv1, s.uv2};
        Vec3 wp[3], wn[3];
        Vec2 wuv[3];
        object.placement.Place(p, n, uv, wp, wn, wuv);
        const uint32_t out = object.first_triangle + uint32_t(i);
        triangles[out] = {wp[0], wp[1], wp[2]};
        shading[out] = {wn[0], wn[1], wn[2], wuv[0], wuv[1], wuv[2], s.material};
    }
};

}  // namespace

void RunMovingObjectPasses(const Backend& backend, const std::vector<MovingObjectView>& objects,
                           Span<const Triangle> base, Span<const TriangleShading> base_shading,
                           Span<Triangle> triangles, Span<TriangleShading> shading) {
    for (const MovingObjectView& o : objects)
        ParallelFor(backend, "moving object triangles", o.triangle_count,
                    PlaceTrianglesPass{o, base, base_shading, triangles, shading});
}

}  // namespace caustica
