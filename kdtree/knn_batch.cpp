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
    template <class Histogram>
    CA_HD void Run(uint32_t i, Histogram& hist) const {
        const KnnOutcome o = KnnAtPoint(tree, radii, queries[i], settings, hist, out.Slot(i));
        out.counts[i] = o.count;
        out.radii[i] = o.radius;
    }
};

// The CPU twin: the same query with the histogram in the thread's own memory.
struct KnnCpuPass {
    KnnQuery query;
    CA_HD void operator()(int i) const {
        LocalHistogram hist;
        query.Run(uint32_t(i), hist);
    }
};

struct ExactKnnPass {
    PointTreeView tree;
    const Vec3* queries;
    KnnSettings settings;
    KnnResultsView out;
    CA_HD void operator()(int i) const {
        const KnnOutcome o = ExactKnn(tree, queries[i], settings, out.Slot(uint32_t(i)));
        out.counts[i] = o.count;
        out.radii[i] = o.radius;
    }
};

#if defined(__CUDACC__)
constexpr int kKnnBlock = 128;

// One thread's bins, strided by the block size so that the threads of a warp hit distinct banks.
struct SharedHistogram {
    uint32_t* base;
    CA_HD void Clear(int n) {
        for (int i = 0; i < n; ++i) base[i * kKnnBlock] = 0;
    }
    CA_HD void Add(int bin) { ++base[bin * kKnnBlock]; }
    CA_HD uint32_t Get(int bin) const { return base[bin * kKnnBlock]; }
};

__global__ void __launch_bounds__(kKnnBlock) KnnKernel(KnnQuery query, uint32_t n) {
    __shared__ uint32_t bins[kMaxHistogramBins * kKnnBlock];
    const uint32_t i = blockIdx.x * kKnnBlock + threadIdx.x;
    if (i >= n) return;
    SharedHistogram hist{bins + threadIdx.x};
    query.Run(i, hist);
}
#endif

}  // namespace

void KnnBatch(const Backend& backend, const PointTreeView& tree, const NodeRadiusView& radii,
              Span<const Vec3> queries, const KnnSettings& settings, KnnResults& out) {
    CheckSettings(settings);
    PrepareResults(uint32_t(queries.size()), settings, out);
    if (queries.empty()) return;
    const KnnQuery query{tree, radii, queries.data(), settings, out.View()};
    if (backend.IsGpu()) {
#if defined(__CUDACC__)
        const uint32_t n = uint32_t(queries.size());
        KnnKernel<<<(n + kKnnBlock - 1) / kKnnBlock, kKnnBlock>>>(query, n);
        detail::CheckLaunch("knn batch");
        return;
#endif
    }
    ParallelFor(backend, "knn batch", queries.size(), KnnCpuPass{query});
}

void ExactKnnBatch(const Backend& backend, const PointTreeView& tree, Span<const Vec3> queries,
                   const KnnSettings& settings, KnnResults& out) {
    CheckSettings(settings);
    PrepareResults(uint32_t(queries.size()), settings, out);
    ParallelFor(backend, "exact knn batch", queries.size(), ExactKnnPass{tree, queries.data(), settings, out.View()});
}

}  // namespace caustica
