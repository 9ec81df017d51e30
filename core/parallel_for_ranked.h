// ParallelFor for items that need their rank: the sum of the counts of the items before them in
// their segment. The pass gives each item's count and whether a new segment starts at it, and is
// called with the item, its rank and its count, and with what it carried over from reading the
// item (so that the visit need not read it again):
//
//   struct Pass {
//       struct Carry { ... };  // small: a GPU thread keeps the carries of its items in registers
//       CA_HD RankedItem Item(uint32_t i, Carry& carry) const;  // counts < 2^31, and so is a segment's sum
//       CA_HD void operator()(uint32_t i, uint32_t rank, uint32_t count, const Carry& carry) const;
//   };
//
// A stable split of many ranges at once is one such pass: count 1 for the items going left, a
// segment per range, and each item's place follows from its rank. Where a scan would write the
// ranks out and a second pass read them back, this is one pass on either backend: on the CPU a
// oneTBB scan whose final sweep calls the pass; on the GPU one launch, in which each block scans
// a tile in shared memory and takes the tile's prefix from its predecessors' published sums (a
// decoupled look-back, Merrill and Garland 2016, "Single-pass Parallel Prefix Scan with Decoupled
// Look-back"). A launch unit only, as ParallelFor.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>

#include <tbb/blocked_range.h>
#include <tbb/parallel_scan.h>

#include "core/backend.h"
#include "core/error.h"
#include "core/hd.h"
#include "core/parallel_for.h"

#if defined(__CUDACC__)
#include <cub/block/block_scan.cuh>
#endif

namespace caustica {

struct RankedItem {
    uint32_t count;
    bool starts_segment;  // item 0 starts one whether or not it says so
};

namespace detail {

// A segmented sum as one word: bit 31 marks "a segment starts within", the low bits are the sum
// since the last start. Combining a (before) with b: b's sum alone when a segment starts in b.
constexpr uint32_t kSegmentStart = 1u << 31;
struct SegmentedSum {
    CA_HD uint32_t operator()(uint32_t a, uint32_t b) const { return (b & kSegmentStart) ? b : a + b; }
};

template <class Pass>
CA_HD uint32_t RankedEntry(const Pass& pass, uint32_t i, typename Pass::Carry& carry) {
    const RankedItem item = pass.Item(i, carry);
    return item.count | (i == 0 || item.starts_segment ? kSegmentStart : 0u);
}

// Calls the pass for an item given the segmented sum of the items before it; returns the sum
// including it.
template <class Pass>
CA_HD uint32_t RankedVisit(const Pass& pass, uint32_t i, uint32_t entry, uint32_t before,
                           const typename Pass::Carry& carry) {
    pass(i, (entry & kSegmentStart) ? 0u : before & ~kSegmentStart, entry & ~kSegmentStart, carry);
    return SegmentedSum()(before, entry);
}

#if defined(__CUDACC__)
constexpr uint32_t kRankedThreads = 256;
constexpr uint32_t kRankedItemsPerThread = 8;
constexpr uint32_t kRankedTile = kRankedThreads * kRankedItemsPerThread;

// A tile's status word: the use's tag (30 bits), the state, and the tile's sum.
enum : uint32_t { kTileAggregate = 1, kTileInclusive = 2 };
__device__ inline void PublishTile(unsigned long long* word, uint32_t tag, uint32_t state, uint32_t sum) {
    *reinterpret_cast<volatile unsigned long long*>(word) =
        (static_cast<unsigned long long>(tag) << 34) | (static_cast<unsigned long long>(state) << 32) | sum;
}

// The block scan's prefix callback, run by the first warp: publishes the tile's own sum, then
// walks back over its predecessors 32 at a time, adding their sums until one that already holds
// everything before it (inclusive) is found.
struct LookbackPrefix {
    unsigned long long* tiles;  // the status words, tile t at tiles[t]
    uint32_t tile, tag;
    __device__ uint32_t operator()(uint32_t aggregate) const {
        const SegmentedSum op;
        const uint32_t lane = threadIdx.x % 32;
        if (tile == 0) {
            if (lane == 0) PublishTile(&tiles[0], tag, kTileInclusive, aggregate);
            return 0;
        }
        if (lane == 0) PublishTile(&tiles[tile], tag, kTileAggregate, aggregate);
        uint32_t exclusive = 0;
        for (int last = int(tile) - 1;; last -= 32) {
            const int t = last - int(lane);  // lane 0 looks at the nearest predecessor
            uint32_t state = kTileInclusive, sum = 0;  // before tile 0: nothing
            if (t >= 0) {
                unsigned long long word;
                do {
                    word = *reinterpret_cast<volatile unsigned long long*>(&tiles[t]);
                } while (uint32_t(word >> 34) != tag);
                state = uint32_t(word >> 32) & 3u;
                sum = uint32_t(word);
            }
            const uint32_t inclusive = __ballot_sync(0xffffffffu, state == kTileInclusive);
            const uint32_t nearest = inclusive ? uint32_t(__ffs(inclusive) - 1) : 31u;
            // The window's sum, in tile order: higher lanes hold earlier tiles.
            uint32_t window = lane <= nearest ? sum : 0u;
            for (uint32_t offset = 1; offset < 32; offset *= 2) {
                const uint32_t earlier = __shfl_down_sync(0xffffffffu, window, offset);
                if (lane + offset < 32) window = op(earlier, window);
            }
            exclusive = op(__shfl_sync(0xffffffffu, window, 0), exclusive);
            if (inclusive) break;
        }
        if (lane == 0) PublishTile(&tiles[tile], tag, kTileInclusive, op(exclusive, aggregate));
        return exclusive;
    }
};

// A tile's items are read and visited striped (item k * threads + thread: neighbouring threads,
// neighbouring items, so the pass's reads coalesce) and scanned blocked (each thread a run of
// items), through shared memory padded a word per 32 so that neither order conflicts on banks.
// A thread reads all its items before it stores any: the reads of different items then overlap,
// where a store between them (to memory the compiler cannot tell apart) would order them.
template <class Pass>
__global__ void __launch_bounds__(kRankedThreads) RankedKernel(Pass pass, uint32_t n, Backend::LookbackStatus status) {
    detail::AfterPreviousKernel();
    using Scan = cub::BlockScan<uint32_t, kRankedThreads>;
    constexpr uint32_t kPadded = kRankedTile + kRankedTile / 32;
    __shared__ typename Scan::TempStorage scan;
    __shared__ uint32_t entries[kPadded], before[kPadded];
    __shared__ uint32_t claimed;
    const auto at = [](uint32_t local) { return local + local / 32; };
    // Tiles are numbered in the order blocks start, so a tile's predecessors are all running or
    // done, and its wait for them ends.
    if (threadIdx.x == 0) claimed = uint32_t(atomicAdd(&status.words[0], 1ull) - status.first_tile);
    __syncthreads();
    const uint32_t first = claimed * kRankedTile;
    typename Pass::Carry carries[kRankedItemsPerThread];
    uint32_t mine[kRankedItemsPerThread];
#pragma unroll
    for (uint32_t k = 0; k < kRankedItemsPerThread; ++k) {
        const uint32_t item = first + k * kRankedThreads + threadIdx.x;
        mine[k] = item < n ? RankedEntry(pass, item, carries[k]) : 0u;
    }
#pragma unroll
    for (uint32_t k = 0; k < kRankedItemsPerThread; ++k) entries[at(k * kRankedThreads + threadIdx.x)] = mine[k];
    __syncthreads();
    const uint32_t run = threadIdx.x * kRankedItemsPerThread;
    uint32_t sum = 0;
    for (uint32_t k = 0; k < kRankedItemsPerThread; ++k) sum = SegmentedSum()(sum, entries[at(run + k)]);
    uint32_t running;
    LookbackPrefix prefix{status.words + 1, claimed, status.tag};
    Scan(scan).ExclusiveScan(sum, running, SegmentedSum(), prefix);
    for (uint32_t k = 0; k < kRankedItemsPerThread; ++k) {
        before[at(run + k)] = running;
        running = SegmentedSum()(running, entries[at(run + k)]);
    }
    __syncthreads();
#pragma unroll
    for (uint32_t k = 0; k < kRankedItemsPerThread; ++k) {
        const uint32_t local = k * kRankedThreads + threadIdx.x;
        if (first + local < n) RankedVisit(pass, first + local, mine[k], before[at(local)], carries[k]);
    }
}
#endif

}  // namespace detail

template <class Pass>
void ParallelForRanked(const Backend& backend, const char* name, size_t n, const Pass& pass) {
    if (n == 0) return;
    CA_CHECK_MSG(n <= size_t(INT_MAX), name, ": ", n, " items");
    if (backend.IsGpu()) {
#if defined(__CUDACC__)
        const size_t tiles = (n + detail::kRankedTile - 1) / detail::kRankedTile;
        detail::Launch(backend, name, detail::RankedKernel<Pass>, unsigned(tiles), detail::kRankedThreads, 0, pass,
                       uint32_t(n), backend.Lookback(tiles));
#else
        detail::FailHostOnlyLaunch(name);
#endif
        return;
    }
    tbb::parallel_scan(
        tbb::blocked_range<uint32_t>(0, uint32_t(n), 4096), 0u,
        [&pass](const tbb::blocked_range<uint32_t>& r, uint32_t before, bool final_sweep) {
            for (uint32_t i = r.begin(); i != r.end(); ++i) {
                typename Pass::Carry carry;
                const uint32_t entry = detail::RankedEntry(pass, i, carry);
                before = final_sweep ? detail::RankedVisit(pass, i, entry, before, carry)
                                     : detail::SegmentedSum()(before, entry);
            }
            return before;
        },
        detail::SegmentedSum());
}

}  // namespace caustica
