// KNN over a batch of query points on either backend, by the settings' method (Zhou et al. 2008,
// Algorithm 6, or the exact bounded priority queue) from r0 of Appendix A, and the per-query
// function that a render pass calls inside its own functor.
#pragma once

#include <cstdint>

#include "core/backend.h"
#include "core/buffer.h"
#include "core/hd.h"
#include "core/span.h"
#include "kdtree/point/knn_join.h"
#include "kdtree/point/node_radius.h"
#include "kdtree/point/point_queries.h"
#include "kdtree/point/point_tree.h"

namespace caustica {

// Query i's neighbour j is at indices[j * queries + i] (and dist2 alike), so that neighbouring
// GPU threads touch neighbouring words; counts[i] and radii[i] are its KnnOutcome.
struct KnnResultsView {
    uint32_t* indices = nullptr;
    float* dist2 = nullptr;
    uint32_t* counts = nullptr;
    float* radii = nullptr;
    uint32_t queries = 0;
    uint32_t capacity = 0;  // neighbours per query, at least k

    CA_HD KnnSlot Slot(uint32_t i) const { return KnnSlot{indices + i, dist2 + i, queries}; }
    CA_HD uint32_t Index(uint32_t query, uint32_t j) const { return indices[size_t(j) * queries + query]; }
    CA_HD float Dist2(uint32_t query, uint32_t j) const { return dist2[size_t(j) * queries + query]; }
};

// The caller's result buffers, in the backend's memory, grown by doubling and reused.
class KnnResults {
public:
    explicit KnnResults(const Backend& backend) : indices(backend), dist2(backend), counts(backend), radii(backend) {}
    void Resize(uint32_t queries, uint32_t capacity) {
        indices.Resize(size_t(queries) * capacity, false);
        dist2.Resize(size_t(queries) * capacity, false);
        counts.Resize(queries, false);
        radii.Resize(queries, false);
        queries_ = queries;
        capacity_ = capacity;
    }
    KnnResultsView View() {
        return {indices.data(), dist2.data(), counts.data(), radii.data(), queries_, capacity_};
    }
    uint32_t queries() const { return queries_; }
    uint32_t capacity() const { return capacity_; }

    Buffer<uint32_t> indices;
    Buffer<float> dist2;
    Buffer<uint32_t> counts;
    Buffer<float> radii;

private:
    uint32_t queries_ = 0, capacity_ = 0;
};

// Whether a method's batch needs node radii. Algorithm 6 reads every point within r0 at least once,
// so it needs a tight one. The exact search prunes by its own k-th distance once its heap is full;
// on an H100 r0 saved it 0-12% while the node radii cost more than that per frame
// (docs/notes/photon-knn-performance.md §4), so the photon map computes them for Algorithm 6 only.
inline bool KnnNeedsRadii(KnnMethod method) { return method == KnnMethod::Histogram; }

// One query: r0 from the node radii (infinite without them), then the settings' method. For use
// inside a caller's functor with a LocalHistogram (or any histogram type, see point_queries.h),
// which the exact method leaves unused.
template <class Histogram, class Work>
CA_HD KnnOutcome KnnAtPoint(const PointTreeView& tree, const NodeRadiusView& radii, Vec3 q,
                            const KnnSettings& settings, Histogram& hist, KnnSlot slot, Work& work) {
    const float r0 = EstimateRadius(tree, radii, q);
    if (settings.method == KnnMethod::Exact) return ExactKnn(tree, q, r0, settings, slot, work);
    return HistogramKnn(tree, q, r0, settings, hist, slot, work);
}

template <class Histogram>
CA_HD KnnOutcome KnnAtPoint(const PointTreeView& tree, const NodeRadiusView& radii, Vec3 q,
                            const KnnSettings& settings, Histogram& hist, KnnSlot slot) {
    NoWork work;
    return KnnAtPoint(tree, radii, q, settings, hist, slot, work);
}

// KNN for every query point into out (resized to the queries and capacity = max(k, current)), with
// r0 from radii (pass NodeRadiusView{} for none). On the GPU each thread's histogram or heap lives in
// shared memory; the CPU computes the same results in the thread's own memory and the slot. With a
// join, a launch on another stream can take part of the search (knn_join.h).
void KnnBatch(const Backend& backend, const PointTreeView& tree, const NodeRadiusView& radii,
              Span<const Vec3> queries, const KnnSettings& settings, KnnResults& out, KnnJoin* join = nullptr);

}  // namespace caustica
