// A launch unit: the per-ray functors run on the CPU or, in a CUDA build, on the GPU.
#include "kdtree/triangle/trace_rays.h"

#include "core/error.h"
#include "core/parallel_for.h"
#include "kdtree/triangle/trace_passes.h"
#include "kdtree/triangle/traversal.h"

namespace caustica {
namespace {

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

// Runs Pass<variant> (ClosestHitPass or OcclusionPass) over the rays: one kernel per variant, named
// names[variant].
template <template <TraversalVariant, int> class Pass, class Out>
void TraceWith(const Backend& backend, TraversalVariant traversal, const char* const (&names)[3],
               const SahTreeView& tree, Span<const Triangle> triangles, Span<const Ray> rays, Out* out) {
    CheckTree(tree);
    WithTraversalVariant(traversal, [&](auto variant) {
        ParallelFor(backend, names[int(traversal)], rays.size(),
                    Pass<decltype(variant)::value, kShortStackEntries>{tree, triangles.data(), rays.data(), out});
    });
}

}  // namespace

void TraceClosestHits(const Backend& backend, const SahTreeView& tree, Span<const Triangle> triangles,
                      Span<const Ray> rays, Span<Hit> hits, TraversalVariant traversal) {
    CA_CHECK_EQ(rays.size(), hits.size());
    static const char* const kNames[3] = {"trace_closest_hits", "trace_closest_hits_push_down",
                                          "trace_closest_hits_short_stack"};
    TraceWith<ClosestHitPass>(backend, traversal, kNames, tree, triangles, rays, hits.data());
}

void TraceOcclusion(const Backend& backend, const SahTreeView& tree, Span<const Triangle> triangles,
                    Span<const Ray> rays, Span<uint8_t> occluded, TraversalVariant traversal) {
    CA_CHECK_EQ(rays.size(), occluded.size());
    static const char* const kNames[3] = {"trace_occlusion", "trace_occlusion_push_down",
                                          "trace_occlusion_short_stack"};
    TraceWith<OcclusionPass>(backend, traversal, kNames, tree, triangles, rays, occluded.data());
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
