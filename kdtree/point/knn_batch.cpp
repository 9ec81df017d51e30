// The batch KNN launch unit: KnnForEach with a consumer that stores every query's neighbours.
#include "kdtree/point/knn_batch.h"

#include <algorithm>
#include <cstdint>

#include "kdtree/point/knn_for_each.h"

namespace caustica {
namespace knn_detail {

void CheckKnnSettings(const KnnSettings& s) {
    CA_CHECK_MSG(s.k >= 0 && s.bins >= 1 && s.bins <= kMaxHistogramBins && s.iterations >= 1, "KNN settings: k ",
                 s.k, ", bins ", s.bins, ", iterations ", s.iterations);
    CA_CHECK_MSG(s.max_radius >= 0.0f, "KNN max_radius: ", s.max_radius);
}

void SizeKnnScratch(const KnnSettings& s, size_t queries, KnnResults& scratch) {
    CA_CHECK_MSG(queries <= UINT32_MAX, "KNN queries: ", queries);
    scratch.Resize(uint32_t(queries), std::max<uint32_t>(std::max(uint32_t(s.k), scratch.capacity()), 1u));
}

}  // namespace knn_detail

namespace {

// The outcome, and the neighbours unless the search left them in the result slot already.
struct StoreNeighbours {
    KnnResultsView out;
    CA_HD void operator()(uint32_t i, KnnSlot neighbours, KnnOutcome o) const {
        out.counts[i] = o.count;
        out.radii[i] = o.radius;
        const KnnSlot slot = out.Slot(i);
        if (neighbours.indices == slot.indices) return;
        for (uint32_t j = 0; j < o.count; ++j) {
            slot.indices[j * slot.stride] = neighbours.indices[j * neighbours.stride];
            slot.dist2[j * slot.stride] = neighbours.dist2[j * neighbours.stride];
        }
    }
};

}  // namespace

void KnnBatch(const Backend& backend, const PointTreeView& tree, const NodeRadiusView& radii,
              Span<const Vec3> queries, const KnnSettings& settings, KnnResults& out, KnnJoin* join) {
    knn_detail::CheckKnnSettings(settings);
    knn_detail::SizeKnnScratch(settings, queries.size(), out);  // the results, whatever path the search takes
    KnnForEach(backend, tree, radii, queries, settings, out, StoreNeighbours{out.View()}, join);
}

}  // namespace caustica
