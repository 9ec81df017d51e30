// The lanes that share one item's work: one thread (OneLane: the CPU, or a GPU thread alone), a
// group of a warp's threads (GroupLanes), the 32 threads of a GPU warp (WarpLanes) or the threads
// of a GPU block (BlockLanes). Code written once against them takes the parts lane, lane + kCount,
// ... of the item and combines the lanes' answers with Reduce (a group or a warp), ReduceMin or
// Ballot (a warp) or ExclusiveScan (a block), so the CPU and the GPU run the same source. Reduce's
// operation must give the same bits in any order (a total order, integer min/max), or the warp's
// answer would depend on how it paired the lanes. A block is also its warps: Warp() gives the
// lanes of the calling thread's warp, WarpIndex() which of kWarps it is (OneLane is a block of one
// warp of one lane). A block is also cut into parts of whole warps
// (Part<kThreads>(), one of Parts<kThreads>() = kCount / kThreads, PartIndex<kThreads>()), each
// with a barrier of its own; OneLane is one part of itself.
#pragma once

#include <cstdint>
#include <cstring>

#include "core/hd.h"

#if defined(__CUDACC__)
#include <cub/block/block_scan.cuh>
#endif

namespace caustica {

// Addition, for the lanes' Reduce and ExclusiveScan.
struct Plus {
    template <class T>
    CA_HD T operator()(const T& a, const T& b) const {
        return a + b;
    }
};

struct OneLane {
    static constexpr uint32_t kCount = 1;
    static constexpr uint32_t kWarps = 1;
    CA_HD uint32_t Lane() const { return 0; }
    CA_HD uint32_t WarpIndex() const { return 0; }
    CA_HD OneLane Warp() const { return {}; }
    template <uint32_t kThreads>
    CA_HD OneLane Part() const {
        return {};
    }
    template <uint32_t kThreads>
    static constexpr uint32_t Parts() {
        return 1;
    }
    template <uint32_t kThreads>
    CA_HD uint32_t PartIndex() const {
        return 0;
    }
    CA_HD void Sync() const {}
    template <class T, class Op>
    CA_HD T Reduce(const T& value, const Op&) const {
        return value;
    }
    // The values of the lanes before this one combined by op from identity; total gets all of them.
    template <class T, class Op>
    CA_HD T ExclusiveScan(const T& value, const T& identity, const Op&, T& total) const {
        total = value;
        return identity;
    }
    // The least of the lanes' values.
    CA_HD uint32_t ReduceMin(uint32_t value) const { return value; }
    // The bits pred(0) .. pred(31), where a warp's lane i gives pred(i).
    template <class Pred>
    CA_HD uint32_t Ballot(const Pred& pred) const {
        uint32_t bits = 0;
        for (uint32_t i = 0; i < 32; ++i) bits |= pred(i) ? 1u << i : 0u;
        return bits;
    }
};

#if defined(__CUDACC__)
namespace detail {

// value moved a 32-bit word at a time by shuffle(word): a shuffle of a struct.
template <class T, class Shuffle>
__device__ T ShuffleWords(const T& value, const Shuffle& shuffle) {
    static_assert(sizeof(T) % 4 == 0, "shuffles move 32-bit words");
    uint32_t words[sizeof(T) / 4];
    memcpy(words, &value, sizeof(T));
    for (uint32_t& w : words) w = shuffle(w);
    T out;
    memcpy(&out, words, sizeof(T));
    return out;
}

// A butterfly over the lanes of mask, width apart at most: every lane ends with op over all of
// them.
template <class T, class Op>
__device__ T ButterflyReduce(uint32_t mask, int width, T value, const Op& op) {
    for (int offset = width / 2; offset > 0; offset /= 2)
        value = op(value, ShuffleWords(value, [&](uint32_t w) { return __shfl_xor_sync(mask, w, offset, width); }));
    return value;
}

}  // namespace detail

// kWidth neighbouring threads of a warp (a power of two below 32): for items that a warp each would
// leave mostly idle and a thread each would walk too long alone. The groups of a warp may take
// different branches, so each one shuffles among its own lanes only.
template <uint32_t kWidth>
struct GroupLanes {
    static_assert(kWidth >= 2 && kWidth < 32 && (kWidth & (kWidth - 1)) == 0, "a power of two below a warp");
    static constexpr uint32_t kCount = kWidth;
    __device__ uint32_t Lane() const { return threadIdx.x % kWidth; }
    __device__ uint32_t Mask() const { return ((1u << kWidth) - 1u) << (threadIdx.x % 32 / kWidth * kWidth); }
    __device__ void Sync() const { __syncwarp(Mask()); }
    template <class T, class Op>
    __device__ T Reduce(T value, const Op& op) const {
        return detail::ButterflyReduce(Mask(), int(kWidth), value, op);
    }
};

struct WarpLanes {
    static constexpr uint32_t kCount = 32;
    __device__ uint32_t Lane() const { return threadIdx.x % 32; }
    // Makes the lanes' writes to shared memory visible to each other.
    __device__ void Sync() const { __syncwarp(); }
    __device__ uint32_t ReduceMin(uint32_t value) const { return __reduce_min_sync(0xffffffffu, value); }
    template <class Pred>
    __device__ uint32_t Ballot(const Pred& pred) const {
        return __ballot_sync(0xffffffffu, pred(Lane()));
    }
    // The values of the lanes before this one combined by op from identity (Kogge-Stone over
    // shuffles of 32-bit values); total gets all 32 of them.
    template <class Op>
    __device__ uint32_t ExclusiveScan(uint32_t value, uint32_t identity, const Op& op, uint32_t& total) const {
        uint32_t inclusive = value;
        for (uint32_t offset = 1; offset < 32; offset *= 2) {
            const uint32_t before = __shfl_up_sync(0xffffffffu, inclusive, offset);
            if (Lane() >= offset) inclusive = op(before, inclusive);
        }
        total = __shfl_sync(0xffffffffu, inclusive, 31);
        const uint32_t exclusive = __shfl_up_sync(0xffffffffu, inclusive, 1);
        return Lane() == 0 ? identity : exclusive;
    }
    // A butterfly: every lane ends with op over all 32 lanes' values.
    template <class T, class Op>
    __device__ T Reduce(T value, const Op& op) const {
        return detail::ButterflyReduce(0xffffffffu, 32, value, op);
    }
};

// kThreads consecutive threads of a block, whole warps: a part of a BlockLanes. Its barrier is
// bar.sync 1 + the part's index (barrier 0 is the block's __syncthreads), so parts wait for their
// own lanes only.
template <uint32_t kThreads>
struct PartLanes {
    static_assert(kThreads % 32 == 0, "a part of whole warps");
    static constexpr uint32_t kCount = kThreads;
    static constexpr uint32_t kWarps = kThreads / 32;
    __device__ uint32_t Lane() const { return threadIdx.x % kThreads; }
    __device__ uint32_t WarpIndex() const { return Lane() / 32; }
    __device__ WarpLanes Warp() const { return {}; }
    // Makes the part's writes to shared and global memory visible to all of its threads.
    __device__ void Sync() const {
        asm volatile("bar.sync %0, %1;" ::"r"(1 + threadIdx.x / kThreads), "n"(kThreads) : "memory");
    }
};

template <uint32_t kThreads>
struct BlockLanes {
    static_assert(kThreads % 32 == 0, "a block of whole warps");
    static constexpr uint32_t kCount = kThreads;
    static constexpr uint32_t kWarps = kThreads / 32;
    __device__ uint32_t Lane() const { return threadIdx.x; }
    __device__ uint32_t WarpIndex() const { return threadIdx.x / 32; }
    __device__ WarpLanes Warp() const { return {}; }
    template <uint32_t kPartThreads>
    __device__ PartLanes<kPartThreads> Part() const {
        static_assert(kThreads % kPartThreads == 0 && kThreads / kPartThreads <= 15, "whole parts, a barrier each");
        return {};
    }
    template <uint32_t kPartThreads>
    static constexpr uint32_t Parts() {
        return kThreads / kPartThreads;
    }
    template <uint32_t kPartThreads>
    __device__ uint32_t PartIndex() const {
        return threadIdx.x / kPartThreads;
    }
    // Makes the block's writes to shared and global memory visible to all of its threads.
    __device__ void Sync() const { __syncthreads(); }
    template <class T, class Op>
    __device__ T ExclusiveScan(const T& value, const T& identity, const Op& op, T& total) const {
        using Scan = cub::BlockScan<T, kThreads>;
        __shared__ typename Scan::TempStorage storage;
        T before;
        Scan(storage).ExclusiveScan(value, before, identity, op, total);
        __syncthreads();  // the storage serves the next scan
        return before;
    }
};
#endif

// An exclusive scan of in[0, n) into out (which may be in) by a block of lanes (OneLane or
// BlockLanes), kCount items a round, each round carrying the sum of the rounds before. Returns the
// sum of all, in every lane.
template <class T, class Lanes>
CA_HD T ExclusiveScanInRounds(const Lanes& lanes, const T* in, T* out, uint32_t n) {
    T carry = T(0);
    for (uint32_t base = 0; base < n; base += Lanes::kCount) {
        const uint32_t i = base + lanes.Lane();
        T total;
        const T before = lanes.ExclusiveScan(i < n ? in[i] : T(0), T(0), Plus(), total);
        if (i < n) out[i] = carry + before;
        carry += total;
    }
    return carry;
}

}  // namespace caustica
