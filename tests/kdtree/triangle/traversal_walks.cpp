// A launch unit: the short stacks that kdtree/triangle/trace_rays.cpp does not instantiate run
// here, on the CPU or, in a CUDA build, on the GPU.
#include "tests/kdtree/triangle/traversal_walks.h"

#include <type_traits>

#include "core/error.h"
#include "core/parallel_for.h"
#include "kdtree/triangle/trace_passes.h"
#include "kdtree/triangle/trace_rays.h"

namespace caustica::testing {
namespace {

// Whether trace_rays runs the walk itself.
bool IsLibraryWalk(const TraversalWalk& walk) {
    return walk.variant != TraversalVariant::ShortStack || walk.short_stack_entries == kShortStackEntries;
}

// Calls f with std::integral_constant<int, entries> for the short stacks that only the tests run.
template <class F>
void WithTestShortStack(int entries, F&& f) {
    switch (entries) {
        case 1: return f(std::integral_constant<int, 1>{});
        case 2: return f(std::integral_constant<int, 2>{});
    }
    CA_CHECK_MSG(false, "no short stack of ", entries, " entries in the tests");
}

}  // namespace

std::vector<TraversalWalk> TraversalWalks() {
    std::vector<TraversalWalk> walks;
    for (const TraversalVariant v : kTraversalVariants) {
        const std::string name = TraversalVariantName(v);
        walks.push_back({v == TraversalVariant::ShortStack ? Concat(name, " (", kShortStackEntries, ")") : name, v,
                         kShortStackEntries});
    }
    static_assert(kShortStackEntries > 2, "the tests add short stacks of 1 and 2 entries");
    for (const int entries : {1, 2})
        walks.push_back({Concat("short-stack (", entries, ")"), TraversalVariant::ShortStack, entries});
    return walks;
}

void TraceClosestHits(const Backend& backend, const TraversalWalk& walk, const SahTreeView& tree,
                      Span<const Triangle> triangles, Span<const Ray> rays, Span<Hit> hits) {
    if (IsLibraryWalk(walk)) return caustica::TraceClosestHits(backend, tree, triangles, rays, hits, walk.variant);
    CA_CHECK_EQ(rays.size(), hits.size());
    WithTestShortStack(walk.short_stack_entries, [&](auto entries) {
        using Pass = ClosestHitPass<TraversalVariant::ShortStack, decltype(entries)::value>;
        ParallelFor(backend, "test_trace_closest_hits", rays.size(),
                    Pass{tree, triangles.data(), rays.data(), hits.data()});
    });
}

void TraceOcclusion(const Backend& backend, const TraversalWalk& walk, const SahTreeView& tree,
                    Span<const Triangle> triangles, Span<const Ray> rays, Span<uint8_t> occluded) {
    if (IsLibraryWalk(walk)) return caustica::TraceOcclusion(backend, tree, triangles, rays, occluded, walk.variant);
    CA_CHECK_EQ(rays.size(), occluded.size());
    WithTestShortStack(walk.short_stack_entries, [&](auto entries) {
        using Pass = OcclusionPass<TraversalVariant::ShortStack, decltype(entries)::value>;
        ParallelFor(backend, "test_trace_occlusion", rays.size(),
                    Pass{tree, triangles.data(), rays.data(), occluded.data()});
    });
}

std::vector<TraversalCost> MeasureClosestHits(const TraversalWalk& walk, const SahTreeView& tree,
                                              const Triangle* triangles, const std::vector<Ray>& rays) {
    std::vector<TraversalCost> costs(rays.size());
    const auto measure = [&](auto variant, auto entries) {
        for (size_t i = 0; i < rays.size(); ++i)
            costs[i] = MeasureClosestHit<decltype(variant)::value, decltype(entries)::value>(tree, triangles, rays[i]);
    };
    if (IsLibraryWalk(walk))
        WithTraversalVariant(walk.variant, [&](auto variant) {
            measure(variant, std::integral_constant<int, kShortStackEntries>{});
        });
    else
        WithTestShortStack(walk.short_stack_entries, [&](auto entries) {
            measure(std::integral_constant<TraversalVariant, TraversalVariant::ShortStack>{}, entries);
        });
    return costs;
}

}  // namespace caustica::testing
