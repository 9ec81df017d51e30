// The batch KNN launch unit: a CUDA kernel with one warp per tile of queries (knn_tile.h) and the
// histograms in shared memory, and its CPU twin.
#include "kdtree/knn_batch.h"

#include <algorithm>
#include <vector>

#include "core/error.h"
#include "core/memory.h"
#include "core/parallel_for.h"
#include "kdtree/knn_tile.h"

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

    // Algorithm 6's first radius for query i: r0 from the node radii (Appendix A), capped.
    CA_HD float FirstRadius(uint32_t i) const {
        return KnnFirstRadius(tree, queries[i], EstimateRadius(tree, radii, queries[i]), settings);
    }
    // Whether a tile whose queries start from these radii can share lists: not where a radius is
    // infinite (no node radii and an unbounded tree) or nothing is to be found.
    CA_HD bool TileUsable(bool all_radii_finite) const {
        return all_radii_finite && settings.k > 0 && tree.point_count > 0;
    }
    // Query i by Algorithm 6 from its first radius r over a shared list (count points from list).
    template <class Histogram>
    CA_HD void RunShared(uint32_t i, float r, const TreePoint* list, uint32_t count, Histogram& hist) const {
        NoWork work;
        TileCandidates candidates{list, count, r * r};
        Finish(i, HistogramKnn(tree, queries[i], r, settings, hist, candidates, out.Slot(i), work));
    }
    // Query i on its own path, for queries whose ball of r fits no tile's list: there r is loose
    // (the ball holds far more than k points, as near the edge of a caustic, where the node radii
    // come from the dense side), and Algorithm 6 would read all of them niter + 1 times. The
    // priority-queue search bounded by r reads about the leaves that meet the k-th ball, once.
    // Fewer than k points within r (r below the maximum radius only where r0 was not
    // conservative): the search again without that bound, so the outcome keeps KnnSettings'
    // conventions.
    CA_HD void RunAlone(uint32_t i, float r) const {
        KnnSettings bounded = settings;
        bounded.max_radius = fminf(settings.max_radius, r);
        KnnOutcome o = ExactKnn(tree, queries[i], bounded, out.Slot(i));
        if (o.count < uint32_t(settings.k)) o = ExactKnn(tree, queries[i], settings, out.Slot(i));
        Finish(i, o);
    }
    CA_HD void Finish(uint32_t i, const KnnOutcome& o) const {
        out.counts[i] = o.count;
        out.radii[i] = o.radius;
    }
    static constexpr uint32_t kNoList = 0xffffffffu;
};

// The queries of the tile from begin on one thread: ShareTileLists's Lanes for the CPU twin (lane
// l is query begin + l, with first radius r[l]).
template <class Work>
struct SerialTileLanes {
    const KnnQuery* query;
    uint32_t begin;
    const float* r;
    TreePoint* list;
    Work* work;

    CA_HD Aabb BallBox(uint32_t group) const {
        Aabb box;
        for (uint32_t l = 0; l < kKnnTileQueries; ++l)
            if (group >> l & 1u) box.Extend(QueryBallBox(query->queries[begin + l], r[l]));
        return box;
    }
    CA_HD Aabb PointBox(uint32_t group) const {
        Aabb box;
        for (uint32_t l = 0; l < kKnnTileQueries; ++l)
            if (group >> l & 1u) box.Extend(query->queries[begin + l]);
        return box;
    }
    CA_HD uint32_t Below(uint32_t group, int axis, float value) const {
        uint32_t below = 0;
        for (uint32_t l = 0; l < kKnnTileQueries; ++l)
            if ((group >> l & 1u) && query->queries[begin + l][axis] < value) below |= 1u << l;
        return below;
    }
    CA_HD uint32_t Gather(const Aabb& box, uint32_t first, uint32_t limit) const {
        return GatherTile(query->tree, box, list + first, limit, *work);
    }
};

CA_HD inline uint32_t TileEnd(uint32_t tile, uint32_t n) {
    const uint32_t begin = tile * kKnnTileQueries;
    return n - begin < kKnnTileQueries ? n : begin + kKnnTileQueries;
}

// One tile on one thread: the first radii, then the groups' lists (first[l], count[l] of lane l;
// count kNoList for lanes without one).
template <class Work>
CA_HD void PlanTileOnHost(const KnnQuery& query, uint32_t tile, uint32_t n, float* r, TreePoint* list,
                          uint32_t* first, uint32_t* count, Work& work) {
    const uint32_t begin = tile * kKnnTileQueries, end = TileEnd(tile, n);
    bool finite = true;
    for (uint32_t i = begin; i < end; ++i) {
        r[i - begin] = query.FirstRadius(i);
        finite = finite && isfinite(r[i - begin]);
        count[i - begin] = KnnQuery::kNoList;
    }
    const uint32_t members = query.TileUsable(finite) ? uint32_t((uint64_t(1) << (end - begin)) - 1u) : 0u;
    SerialTileLanes<Work> lanes{&query, begin, r, list, &work};
    ShareTileLists(lanes, members, kKnnTileCandidates, [&](uint32_t group, uint32_t list_first, uint32_t list_count) {
        for (uint32_t l = 0; l < kKnnTileQueries; ++l) {
            if (group >> l & 1u) {
                first[l] = list_first;
                count[l] = list_count;
            }
        }
    });
}

// The CPU twin of the GPU's warp per tile: the same radii, lists and per-query runs, one thread.
struct KnnCpuTilePass {
    KnnQuery query;
    uint32_t n;
    CA_HD void operator()(int tile) const {
        float r[kKnnTileQueries];
        uint32_t first[kKnnTileQueries], count[kKnnTileQueries];
        TreePoint list[kKnnTileCandidates];
        NoWork work;
        PlanTileOnHost(query, uint32_t(tile), n, r, list, first, count, work);
        LocalHistogram hist;
        const uint32_t begin = uint32_t(tile) * kKnnTileQueries, end = TileEnd(uint32_t(tile), n);
        for (uint32_t i = begin; i < end; ++i) {
            if (count[i - begin] == KnnQuery::kNoList) query.RunAlone(i, r[i - begin]);
            else query.RunShared(i, r[i - begin], list + first[i - begin], count[i - begin], hist);
        }
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
constexpr int kKnnWarps = kKnnBlock / 32;
constexpr unsigned kFullMask = 0xffffffffu;
static_assert(kKnnTileQueries == 32, "a tile is a warp");

// One thread's bins, strided by the block size so that the threads of a warp hit distinct banks.
struct SharedHistogram {
    uint32_t* base;
    CA_HD void Clear(int n) {
        for (int i = 0; i < n; ++i) base[i * kKnnBlock] = 0;
    }
    CA_HD void Add(int bin) { ++base[bin * kKnnBlock]; }
    CA_HD uint32_t Get(int bin) const { return base[bin * kKnnBlock]; }
};

__device__ float WarpMin(float v) {
    for (int o = 16; o > 0; o /= 2) v = fminf(v, __shfl_xor_sync(kFullMask, v, o));
    return v;
}

__device__ float WarpMax(float v) {
    for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(kFullMask, v, o));
    return v;
}

// GatherTile by a warp: the walk is the same in every lane, and the lanes read a range's points
// side by side, 32 at a time, appending those inside the box in range order (a ballot gives each
// its place), so the list is GatherTile's.
__device__ uint32_t WarpGatherTile(const PointTreeView& tree, const Aabb& box, TreePoint* list, uint32_t limit) {
    const uint32_t lane = threadIdx.x % 32;
    const uint32_t lanes_before = (1u << lane) - 1u;
    uint32_t count = 0;
    NoWork work;
    const bool fits = ForEachRangeInBox(tree, box, [&](uint32_t first, uint32_t n) {
        for (uint32_t base = 0; base < n; base += 32) {
            const uint32_t i = base + lane;
            TreePoint p{};
            const bool inside = i < n && box.Contains((p = LoadPoint(tree.points, first + i)).position);
            const uint32_t mask = __ballot_sync(kFullMask, inside);
            const uint32_t total = count + uint32_t(__popc(mask));
            if (total > limit) return false;
            if (inside) list[count + uint32_t(__popc(mask & lanes_before))] = p;
            count = total;
        }
        return true;
    }, work);
    __syncwarp();
    return fits ? count : limit + 1;
}

// ShareTileLists's Lanes on the GPU: each lane holds its query and first radius, and a group's
// answers come from warp-wide reductions and ballots, the same in every lane.
struct WarpTileLanes {
    const PointTreeView* tree;
    Vec3 q;
    float r;
    TreePoint* list;

    __device__ bool In(uint32_t group) const { return group >> (threadIdx.x % 32) & 1u; }
    __device__ static Aabb WarpBox(const Aabb& own) {
        return Aabb(Vec3(WarpMin(own.lo.x), WarpMin(own.lo.y), WarpMin(own.lo.z)),
                    Vec3(WarpMax(own.hi.x), WarpMax(own.hi.y), WarpMax(own.hi.z)));
    }
    __device__ Aabb BallBox(uint32_t group) const { return WarpBox(In(group) ? QueryBallBox(q, r) : Aabb()); }
    __device__ Aabb PointBox(uint32_t group) const { return WarpBox(In(group) ? Aabb(q, q) : Aabb()); }
    __device__ uint32_t Below(uint32_t group, int axis, float value) const {
        return __ballot_sync(kFullMask, In(group) && q[axis] < value);
    }
    __device__ uint32_t Gather(const Aabb& box, uint32_t first, uint32_t limit) const {
        return WarpGatherTile(*tree, box, list + first, limit);
    }
};

// One warp per tile of 32 consecutive queries, as KnnCpuTilePass, except that queries without a
// shared list are appended to own_path (a count, then indices) for KnnOwnPathKernel: there they fill
// warps of their own instead of holding up a warp of queries that share lists.
__global__ void __launch_bounds__(kKnnBlock) KnnTileKernel(KnnQuery query, uint32_t n, uint32_t* own_path) {
    __shared__ uint32_t bins[kMaxHistogramBins * kKnnBlock];
    // Raw storage: TreePoint's constructor cannot run on shared memory.
    __shared__ float4 lists[kKnnWarps][kKnnTileCandidates];
    const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const uint32_t i = blockIdx.x * kKnnBlock + threadIdx.x;
    if (blockIdx.x * kKnnBlock + warp * 32 >= n) return;  // the whole warp is past the end
    const bool valid = i < n;
    const float r = valid ? query.FirstRadius(i) : 0.0f;
    const bool finite = __all_sync(kFullMask, !valid || isfinite(r));
    const uint32_t members = query.TileUsable(finite) ? __ballot_sync(kFullMask, valid) : 0u;
    TreePoint* list = reinterpret_cast<TreePoint*>(lists[warp]);
    WarpTileLanes lanes{&query.tree, valid ? query.queries[i] : Vec3(0.0f), r, list};
    uint32_t first = 0, count = KnnQuery::kNoList;
    ShareTileLists(lanes, members, kKnnTileCandidates, [&](uint32_t group, uint32_t list_first, uint32_t list_count) {
        if (group >> lane & 1u) {
            first = list_first;
            count = list_count;
        }
    });
    const bool own = valid && count == KnnQuery::kNoList;
    const uint32_t own_lanes = __ballot_sync(kFullMask, own);
    uint32_t at = 0;
    if (lane == 0 && own_lanes != 0) at = atomicAdd(own_path, uint32_t(__popc(own_lanes)));
    at = __shfl_sync(kFullMask, at, 0);
    if (own) own_path[1 + at + uint32_t(__popc(own_lanes & ((1u << lane) - 1u)))] = i;
    if (!valid || own) return;
    SharedHistogram hist{bins + threadIdx.x};
    query.RunShared(i, r, list + first, count, hist);
}

// The queries KnnTileKernel left to the per-query path, one thread each.
__global__ void __launch_bounds__(kKnnBlock) KnnOwnPathKernel(KnnQuery query, const uint32_t* own_path) {
    const uint32_t j = blockIdx.x * kKnnBlock + threadIdx.x;
    if (j >= own_path[0]) return;
    const uint32_t i = own_path[1 + j];
    query.RunAlone(i, query.FirstRadius(i));
}
#endif

}  // namespace

void KnnBatch(const Backend& backend, const PointTreeView& tree, const NodeRadiusView& radii,
              Span<const Vec3> queries, const KnnSettings& settings, KnnResults& out) {
    CheckSettings(settings);
    PrepareResults(uint32_t(queries.size()), settings, out);
    if (queries.empty()) return;
    const KnnQuery query{tree, radii, queries.data(), settings, out.View()};
    const uint32_t n = uint32_t(queries.size());
    if (backend.IsGpu()) {
#if defined(__CUDACC__)
        // Sized for every query; the blocks past the count that KnnTileKernel left return at once.
        const uint32_t blocks = (n + kKnnBlock - 1) / kKnnBlock;
        out.own_path.Resize(size_t(n) + 1, false);
        FillBytes(out.own_path.space(), out.own_path.data(), 0, sizeof(uint32_t));
        KnnTileKernel<<<blocks, kKnnBlock>>>(query, n, out.own_path.data());
        detail::CheckLaunch("knn batch: tiles");
        KnnOwnPathKernel<<<blocks, kKnnBlock>>>(query, out.own_path.data());
        detail::CheckLaunch("knn batch: own path");
        return;
#endif
    }
    ParallelFor(backend, "knn batch", (n + kKnnTileQueries - 1) / kKnnTileQueries, KnnCpuTilePass{query, n});
}

KnnTileWork CountKnnTileWork(const PointTreeView& tree, const NodeRadiusView& radii, Span<const Vec3> queries,
                             const KnnSettings& settings, uint32_t sample) {
    CheckSettings(settings);
    KnnTileWork w;
    const uint32_t n = uint32_t(queries.size());
    const uint32_t tiles = (n + kKnnTileQueries - 1) / kKnnTileQueries;
    w.tiles = std::min(sample, tiles);
    const KnnQuery query{tree, radii, queries.data(), settings, KnnResultsView{}};
    std::vector<TreePoint> list(kKnnTileCandidates);
    for (uint32_t s = 0; s < w.tiles; ++s) {
        const uint32_t tile = uint32_t(uint64_t(s) * tiles / w.tiles);
        float r[kKnnTileQueries];
        uint32_t first[kKnnTileQueries], count[kKnnTileQueries];
        WorkCount work;
        PlanTileOnHost(query, tile, n, r, list.data(), first, count, work);
        w.gather_nodes += double(work.nodes);
        w.gather_points += double(work.points);
        bool all_share = true;
        for (uint32_t l = 0; l < TileEnd(tile, n) - tile * kKnnTileQueries; ++l) {
            ++w.queries;
            all_share = all_share && count[l] != KnnQuery::kNoList;
            if (count[l] == KnnQuery::kNoList) continue;
            ++w.sharing;
            w.list_points += count[l];
        }
        w.all_sharing += all_share;
    }
    if (w.tiles > 0) w.gather_nodes /= w.tiles, w.gather_points /= w.tiles;
    if (w.sharing > 0) w.list_points /= w.sharing;
    return w;
}

void ExactKnnBatch(const Backend& backend, const PointTreeView& tree, Span<const Vec3> queries,
                   const KnnSettings& settings, KnnResults& out) {
    CheckSettings(settings);
    PrepareResults(uint32_t(queries.size()), settings, out);
    ParallelFor(backend, "exact knn batch", queries.size(), ExactKnnPass{tree, queries.data(), settings, out.View()});
}

}  // namespace caustica
