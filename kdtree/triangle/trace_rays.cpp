// A launch unit: the per-ray functors run on the CPU or, in a CUDA build, on the GPU.
#include "kdtree/triangle/trace_rays.h"

#include "core/error.h"
#include "core/parallel_for.h"
#include "kdtree/triangle/traversal.h"

namespace caustica {
namespace {

struct ClosestHitPass {
    SahTreeView tree;
    const Triangle* triangles;
    const Ray* rays;
    Hit* hits;
    CA_HD void operator()(int i) const { hits[i] = FindClosestHit(tree, triangles, rays[i]); }
};

struct OcclusionPass {
    SahTreeView tree;
    const Triangle* triangles;
    const Ray* rays;
    uint8_t* occluded;
    CA_HD void operator()(int i) const { occluded[i] = IsOccluded(tree, triangles, rays[i]) ? 1 : 0; }
};

struct BruteForceClosestHitPass {
    const Triangle* triangles;
    uint32_t triangle_count;
    const Ray* rays;
    Hit* hits;
    CA_HD void operator()(int i) const { hits[i] = FindClosestHitBruteForce(triangles, triangle_count, rays[i]); }
};

struct BruteForceOcclusionPass {
    const Triangle* triangles;
    uint32_t triangle_count;
    const Ray* rays;
    uint8_t* occluded;
    CA_HD void operator()(int i) const {
        occluded[i] = IsOccludedBruteForce(triangles, triangle_count, rays[i]) ? 1 : 0;
    }
};

void CheckTree(const SahTreeView& tree) {
    CA_CHECK_MSG(IsTraversable(tree), "tree depth ", tree.max_depth, " exceeds the traversal stack (",
                 kMaxTraversalDepth, ")");
}

}  // namespace

void TraceClosestHits(const Backend& backend, const SahTreeView& tree, Span<const Triangle> triangles,
                      Span<const Ray> rays, Span<Hit> hits) {
    CheckTree(tree);
    CA_CHECK_EQ(rays.size(), hits.size());
    ParallelFor(backend, "trace_closest_hits", rays.size(),
                ClosestHitPass{tree, triangles.data(), rays.data(), hits.data()});
}

void TraceOcclusion(const Backend& backend, const SahTreeView& tree, Span<const Triangle> triangles,
                    Span<const Ray> rays, Span<uint8_t> occluded) {
    CheckTree(tree);
    CA_CHECK_EQ(rays.size(), occluded.size());
    ParallelFor(backend, "trace_occlusion", rays.size(),
                OcclusionPass{tree, triangles.data(), rays.data(), occluded.data()});
}

void BruteForceClosestHits(const Backend& backend, Span<const Triangle> triangles, Span<const Ray> rays,
                           Span<Hit> hits) {
    CA_CHECK_EQ(rays.size(), hits.size());
    ParallelFor(backend, "brute_force_closest_hits", rays.size(),
                BruteForceClosestHitPass{triangles.data(), uint32_t(triangles.size()), rays.data(), hits.data()});
}

void BruteForceOcclusion(const Backend& backend, Span<const Triangle> triangles, Span<const Ray> rays,
                         Span<uint8_t> occluded) {
    CA_CHECK_EQ(rays.size(), occluded.size());
    ParallelFor(backend, "brute_force_occlusion", rays.size(),
                BruteForceOcclusionPass{triangles.data(), uint32_t(triangles.size()), rays.data(), occluded.data()});
}

}  // namespace caustica
