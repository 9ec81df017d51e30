// The batch KNN launch unit: a CUDA kernel with the histograms in shared memory, and its CPU twin.
#include "kdtree/knn_batch.h"

#include <algorithm>

#include "core/error.h"
#include "core/parallel_for.h"

#if defined(__CUDACC__)
#include "core/cuda_check.h"
#endif

namespace caustica {
namespace {

void CheckSettings(const KnnSettings& s) {
    CA_CHECK_MSG(s.k >= 0 && s.bins >= 1 && s.bins <= kMaxHistogramBins && s.iterations >= 1, "KNN settings: k ",
                 s.k, ", bins ", s.bins, ", iterations ", s.iterations);
    CA_CHECK_MSG(s.max_radius >= 0.0f, "KNN max_radius: ", s.max_radius);
}

void PrepareResults(uint32_t queries, const KnnSettings& s, KnnResults& out) {
    out.Resize(queries, std::max<uint32_t>(std::max(uint32_t(s.k), out.capacity()), 1u));
}

struct KnnQuery {
    PointTreeView tree;
    NodeRadiusView radii;
    const Vec3* queries;
    KnnSettings settings;
    KnnResultsView out;
    CA_HD void Store(uint32_t i, KnnOutcome o) const {
        out.counts[i] = o.count;
        out.radii[i] = o.radius;
    }
    template <class Histogram>
    CA_HD void RunHistogram(uint32_t i, Histogram& hist) const {
        Store(i, HistogramKnn(tree, queries[i], EstimateRadius(tree, radii, queries[i]), settings, hist, out.Slot(i)));
    }
    // The exact method with its heap in slot; returns the outcome (the caller copies a heap kept
    // elsewhere into out).
    CA_HD KnnOutcome RunExact(uint32_t i, KnnSlot heap) const {
        NoWork work;
        const KnnOutcome o = ExactKnn(tree, queries[i], EstimateRadius(tree, radii, queries[i]), settings, heap, work);
        Store(i, o);
        return o;
    }
};

// The CPU twins: the histogram in the thread's own memory, the exact method's heap in the slot.
struct HistogramCpuPass {
    KnnQuery query;
    CA_HD void operator()(int i) const {
        LocalHistogram hist;
        query.RunHistogram(uint32_t(i), hist);
    }
};

struct ExactPass {
    KnnQuery query;
    CA_HD void operator()(int i) const { query.RunExact(uint32_t(i), query.out.Slot(uint32_t(i))); }
};

#if defined(__CUDACC__)
constexpr int kHistogramBlock = 128;

// One thread's bins, strided by the block size so that the threads of a warp hit distinct banks.
struct SharedHistogram {
    uint32_t* base;
    CA_HD void Clear(int n) {
        for (int i = 0; i < n; ++i) base[i * kHistogramBlock] = 0;
    }
    CA_HD void Add(int bin) { ++base[bin * kHistogramBlock]; }
    CA_HD uint32_t Get(int bin) const { return base[bin * kHistogramBlock]; }
};

__global__ void __launch_bounds__(kHistogramBlock) HistogramKnnKernel(KnnQuery query, uint32_t n) {
    __shared__ uint32_t bins[kMaxHistogramBins * kHistogramBlock];
    const uint32_t i = blockIdx.x * kHistogramBlock + threadIdx.x;
    if (i >= n) return;
    SharedHistogram hist{bins + threadIdx.x};
    query.RunHistogram(i, hist);
}

// The exact method's heap in shared memory: every sift step is a dependent read and write, which in
// the result slot goes to L2 and back. k distances then k indices per thread, strided by the block
// so that a warp hits distinct banks; copied to the slot at the end, in heap order as the CPU
// leaves it.
constexpr int kExactBlock = 64;
constexpr size_t kSharedWithoutOptIn = 48 * 1024;  // the most a launch may ask for by default

size_t ExactSharedBytes(int k) { return size_t(k) * 2 * sizeof(uint32_t) * kExactBlock; }

__global__ void __launch_bounds__(kExactBlock) ExactKnnKernel(KnnQuery query, uint32_t n) {
    extern __shared__ uint32_t heap_words[];
    const uint32_t i = blockIdx.x * kExactBlock + threadIdx.x;
    if (i >= n) return;
    const uint32_t k = uint32_t(query.settings.k);
    float* dist2 = reinterpret_cast<float*>(heap_words) + threadIdx.x;
    uint32_t* indices = heap_words + k * kExactBlock + threadIdx.x;
    const KnnOutcome o = query.RunExact(i, KnnSlot{indices, dist2, kExactBlock});
    const KnnSlot out = query.out.Slot(i);
    for (uint32_t j = 0; j < o.count; ++j) {
        out.indices[j * out.stride] = indices[j * kExactBlock];
        out.dist2[j * out.stride] = dist2[j * kExactBlock];
    }
}
#endif

}  // namespace

void KnnBatch(const Backend& backend, const PointTreeView& tree, const NodeRadiusView& radii,
              Span<const Vec3> queries, const KnnSettings& settings, KnnResults& out) {
    CheckSettings(settings);
    PrepareResults(uint32_t(queries.size()), settings, out);
    if (queries.empty()) return;
    const KnnQuery query{tree, radii, queries.data(), settings, out.View()};
    const bool exact = settings.method == KnnMethod::Exact;
    if (backend.IsGpu()) {
#if defined(__CUDACC__)
        const uint32_t n = uint32_t(queries.size());
        if (!exact) {
            HistogramKnnKernel<<<(n + kHistogramBlock - 1) / kHistogramBlock, kHistogramBlock>>>(query, n);
            detail::CheckLaunch("histogram knn batch");
            return;
        }
        const size_t shared = ExactSharedBytes(settings.k);
        if (shared <= kSharedWithoutOptIn) {
            ExactKnnKernel<<<(n + kExactBlock - 1) / kExactBlock, kExactBlock, shared>>>(query, n);
            detail::CheckLaunch("exact knn batch");
            return;
        }
        // A larger k keeps its heap in the result slot (ExactPass below).
#endif
    }
    if (exact) {
        ParallelFor(backend, "exact knn batch", queries.size(), ExactPass{query});
    } else {
        ParallelFor(backend, "histogram knn batch", queries.size(), HistogramCpuPass{query});
    }
}

}  // namespace caustica
