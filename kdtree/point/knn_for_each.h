// KNN over a batch of queries that hands each query's neighbours to a consumer where the search
// left them, instead of writing them all out: on the GPU the exact method's heap stays in shared
// memory, so a render pass that only reduces the neighbours (the caustic filter) needs no room for
// k neighbours per query (800 MB at 1080p and k = 50; as fast as a separate filter pass within
// 0.05 ms, docs/benchmarks-history.md run 17). KnnBatch (knn_batch.h) is this with a consumer
// that stores them. A template for launch units (sources that nvcc compiles in a CUDA build).
//
//   struct Consumer { CA_HD void operator()(uint32_t query, KnnSlot neighbours, KnnOutcome o) const; };
//
// neighbours holds o.count entries, in no particular order.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/backend.h"
#include "core/error.h"
#include "core/parallel_for.h"
#include "core/span.h"
#include "kdtree/point/knn_batch.h"
#include "kdtree/point/knn_join.h"

#if defined(__CUDACC__)
#include <algorithm>

#include "core/chunk_queue.h"
#include "core/cuda_check.h"
#include "core/launch.h"
#include "core/sm_share.h"
#endif

namespace caustica {
namespace knn_detail {

void CheckKnnSettings(const KnnSettings& settings);
// Sizes scratch for the queries, with room for max(k, its current capacity) neighbours each.
void SizeKnnScratch(const KnnSettings& settings, size_t queries, KnnResults& scratch);

// The search of query i by the settings' method, from r0 of the node radii, with its neighbours
// in slot (the histogram method writes them there as it goes; the exact method keeps its heap there).
struct KnnQuery {
    PointTreeView tree;
    NodeRadiusView radii;
    const Vec3* queries;
    KnnSettings settings;

    template <class Histogram>
    CA_HD KnnOutcome RunHistogram(uint32_t i, Histogram& hist, KnnSlot slot) const {
        return HistogramKnn(tree, queries[i], EstimateRadius(tree, radii, queries[i]), settings, hist, slot);
    }
    template <class Entries>
    CA_HD KnnOutcome RunExact(uint32_t i, Entries heap) const {
        NoWork work;
        return ExactKnn(tree, queries[i], EstimateRadius(tree, radii, queries[i]), settings, heap, work);
    }
};

// Where the neighbours stay off chip: the histogram in the thread's own memory (CPU) and the
// neighbours, or the exact method's heap, in the scratch slots.
template <class Consumer>
struct HistogramPass {
    KnnQuery query;
    KnnResultsView scratch;
    Consumer consume;
    CA_HD void operator()(int i) const {
        LocalHistogram hist;
        const KnnSlot slot = scratch.Slot(uint32_t(i));
        consume(uint32_t(i), slot, query.RunHistogram(uint32_t(i), hist, slot));
    }
};

template <class Consumer>
struct ExactPass {
    KnnQuery query;
    KnnResultsView scratch;
    Consumer consume;
    CA_HD void operator()(int i) const {
        const KnnSlot slot = scratch.Slot(uint32_t(i));
        consume(uint32_t(i), slot, query.RunExact(uint32_t(i), slot));
    }
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

template <class Consumer>
__global__ void __launch_bounds__(kHistogramBlock)
    HistogramKnnKernel(KnnQuery query, KnnResultsView scratch, Consumer consume, uint32_t n) {
    detail::AfterPreviousKernel();
    __shared__ uint32_t bins[kMaxHistogramBins * kHistogramBlock];
    const uint32_t i = blockIdx.x * kHistogramBlock + threadIdx.x;
    if (i >= n) return;
    SharedHistogram hist{bins + threadIdx.x};
    const KnnSlot slot = scratch.Slot(i);
    consume(i, slot, query.RunHistogram(i, hist, slot));
}

// The exact method's heap in shared memory: every sift step is a dependent read and write, which in
// the result slot goes to L2 and back. One 8-byte entry (distance and index) per load, strided by
// the block so that a warp's entries lie side by side.
constexpr int kExactBlock = 64;
constexpr size_t kSharedWithoutOptIn = 48 * 1024;  // the most a launch may ask for by default

inline size_t ExactSharedBytes(int k) { return size_t(k) * sizeof(HeapEntry) * kExactBlock; }

// Where a second launch may join the search (kJoinable), each warp takes chunks of kJoinableChunk
// queries (core/chunk_queue.h); otherwise block b searches queries b * kExactBlock on.
constexpr uint32_t kJoinableChunk = 32;

template <class Consumer, bool kJoinable>
__global__ void __launch_bounds__(kExactBlock)
    ExactKnnKernel(KnnQuery query, Consumer consume, uint32_t n, ChunkQueueView chunks) {
    detail::AfterPreviousKernel();
    extern __shared__ HeapEntry heap_entries[];
    // The thread's first entry as a shared-memory address in a register, its origin hidden by the
    // empty asm: otherwise the compiler recomputes the shared window's base at every heap access
    // (S2UR, ULEA and UMOV on sm_90: 130M more instructions for 2M queries in Nsight Compute).
    uint32_t mine = uint32_t(__cvta_generic_to_shared(heap_entries + threadIdx.x));
    asm("" : "+r"(mine));
    const PairEntries heap{static_cast<HeapEntry*>(__cvta_shared_to_generic(mine)), kExactBlock};
    const auto search = [&](uint32_t i) {
        if (i >= n) return;
        const KnnOutcome outcome = query.RunExact(i, heap);
        consume(i, heap.Slot(), outcome);
    };
    if constexpr (kJoinable) {
        ForEachChunk(chunks, [&](uint32_t chunk) { search(chunk * kJoinableChunk + threadIdx.x % 32); });
    } else {
        search(blockIdx.x * kExactBlock + threadIdx.x);
    }
}

// The exact search's launch that a launch on another stream may join: as many blocks as the SMs of
// the thread's stream hold at once (ThreadStreamSmCount: a share's where it runs on one), each taking
// chunks until none is left. The kernel asks for the largest share of
// shared memory, which its heaps fill, so that the runtime counts the blocks an SM holds with it.
template <class Consumer>
void LaunchJoinableExact(int priority, bool may_start_early, const char* name, const KnnQuery& query,
                         const Consumer& consume, uint32_t n, const ChunkQueueView& chunks, int device) {
    const auto kernel = ExactKnnKernel<Consumer, true>;
    const size_t shared_bytes = ExactSharedBytes(query.settings.k);
    detail::OncePerDevice([kernel] {
        CA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                           cudaSharedmemCarveoutMaxShared));
        return true;
    });
    int per_sm = 0;
    CA_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kExactBlock, shared_bytes));
    const uint32_t chunk_blocks = (chunks.chunks + kExactBlock / 32 - 1) / (kExactBlock / 32);  // a chunk a warp
    const uint32_t blocks = std::min<uint32_t>(chunk_blocks, uint32_t(std::max(1, per_sm * ThreadStreamSmCount(device))));
    detail::LaunchAt(priority, may_start_early, name, kernel, blocks, kExactBlock, shared_bytes, query, consume, n,
                     chunks);
}
#endif

}  // namespace knn_detail

// KNN for every query point, with r0 from radii (pass NodeRadiusView{} for none); consume(i,
// neighbours, outcome) runs once per query on the backend. scratch holds the neighbours wherever
// they do not stay on chip (resized then to the queries and capacity max(k, current)).
//
// With a join, the GPU's exact search with its heap on chip hands its queries out in chunks, and
// join keeps a launch of it for another stream (kdtree/point/knn_join.h); elsewhere join is left
// without one.
template <class Consumer>
void KnnForEach(const Backend& backend, const PointTreeView& tree, const NodeRadiusView& radii,
                Span<const Vec3> queries, const KnnSettings& settings, KnnResults& scratch,
                const Consumer& consume, KnnJoin* join = nullptr) {
    using namespace knn_detail;
    CheckKnnSettings(settings);
    if (join) join->Clear();
    if (queries.empty()) return;
    const KnnQuery query{tree, radii, queries.data(), settings};
    const bool exact = settings.method == KnnMethod::Exact;
    if (backend.IsGpu()) {
#if defined(__CUDACC__)
        const uint32_t n = uint32_t(queries.size());
        if (exact && ExactSharedBytes(settings.k) <= kSharedWithoutOptIn) {  // no scratch: the heap is on chip
            if (!join) {
                detail::Launch(backend, "exact knn batch", ExactKnnKernel<Consumer, false>,
                               (n + kExactBlock - 1) / kExactBlock, kExactBlock, ExactSharedBytes(settings.k), query,
                               consume, n, ChunkQueueView{});
                return;
            }
            const uint32_t chunks = (n + kJoinableChunk - 1) / kJoinableChunk;
            const int priority = backend.LaunchPriority();
            const bool early = !backend.IsBackground();
            const int device = backend.device();
            join->queue().RunOwner(chunks, [&](const ChunkQueueView& owner) {
                LaunchJoinableExact(priority, early, "exact knn batch", query, consume, n, owner, device);
            });
            join->SetLaunch([=](const ChunkQueueView& joining) {
                LaunchJoinableExact(priority, early, "exact knn batch (joining)", query, consume, n, joining, device);
            });
            return;
        }
        if (!exact) {
            SizeKnnScratch(settings, n, scratch);
            detail::Launch(backend, "histogram knn batch", HistogramKnnKernel<Consumer>,
                           (n + kHistogramBlock - 1) / kHistogramBlock, kHistogramBlock, 0, query, scratch.View(),
                           consume, n);
            return;
        }
        // A larger k keeps its heap in the scratch slot (ExactPass).
#endif
    }
    SizeKnnScratch(settings, queries.size(), scratch);
    const KnnResultsView slots = scratch.View();
    if (exact) {
        ParallelFor(backend, "exact knn batch", queries.size(), ExactPass<Consumer>{query, slots, consume});
    } else {
        ParallelFor(backend, "histogram knn batch", queries.size(), HistogramPass<Consumer>{query, slots, consume});
    }
}

}  // namespace caustica
