// Internal to the BFS builder: the split of a large node of at most SahParams::binned_sah_max_entries
// entries, chosen by the SAH over its entries' box faces, found through bins (Wald 2007's binning,
// with each bin's extreme faces as the candidates rather than its boundaries); for a node of up to
// median_or_sah_max_entries, the same choice with the spatial median as a weighted candidate, from
// bins that the level's chunks gather on the whole GPU.
//
// Zhou et al. 2008 split every large node at the spatial median, which on machined parts cuts
// through a plate instead of between two, and keeps a flat face's triangles on both sides. Each
// axis of the node's cell is cut into kSahBins bins; an entry counts where its box starts and where
// it ends. The candidates are, in each bin, the lowest lower face (triangles lying in that plane go
// right) and the highest upper face (they go left). Counts on the far side of a candidate are
// exact; an entry of the same bin that may fall on either side is counted on both. The lanes of a
// warp, a block or a part of one (or one CPU thread) share a node; the bins live in their scratch,
// an axis at a time, or, gathered by chunks, in the level's bins (NodeSahBins). Counts and faces do
// not depend on the order of the lanes' updates and ties go to the lowest candidate, so the CPU and
// the GPU choose the same split. Splits on the cell's own faces (a flat child for the triangles
// lying in one) were tried and left out: on a gear they raised the SAH cost from 1.07 to 1.10
// times the exact builder's and helped none of the flat-faced meshes.
#pragma once

#include <cstdint>

#include "core/atomic.h"
#include "core/float_key.h"
#include "core/hd.h"
#include "core/lanes.h"
#include "kdtree/triangle/bfs_build_state.h"

namespace caustica::bfs {

constexpr uint32_t kSahBins = 32;
static_assert(kSahBins % 32 == 0, "a warp takes a bin a lane (ChooseBinnedSahSplit)");
// Per axis: for each bin, the lowest and the highest face.
constexpr uint32_t kSahCandidatesPerAxis = 2 * kSahBins;

// A candidate split with its SAH cost; the lesser of two is the cheaper, ties going to the lower
// candidate (a total order, so that any pairing of the lanes gives the same answer).
struct SahCandidate {
    float cost;
    uint32_t id;  // axis * kSahCandidatesPerAxis + candidate; ~0u: none
    float pos;
    int32_t planar_side;
    CA_HD bool operator<(const SahCandidate& o) const { return cost < o.cost || (cost == o.cost && id < o.id); }
};

struct SahBins {
    uint32_t starts[kSahBins];  // entries whose box starts in the bin
    uint32_t ends[kSahBins];    // entries whose box ends in the bin
    uint32_t lowest[kSahBins];  // FloatKey of the lowest lower face in the bin
    uint32_t highest[kSahBins];
    SahCandidate best;          // a block's choice, which its first warp passes to the others
};

struct CheaperSahCandidate {
    CA_HD SahCandidate operator()(const SahCandidate& a, const SahCandidate& b) const { return b < a ? b : a; }
};

// The candidate's plane, its counts and which side triangles lying in the plane go to.
struct SahPlane {
    float pos;
    uint32_t left, right;
    int planar_side;
    bool valid;
};

// An entry's update of a bin: one more entry, and its face kept where it is the lowest (kLowest)
// or the highest; atomic where lanes share the bins, plain for one lane (a CPU thread). Lanes of a
// warp that fall in one bin were tried combining their updates first (__match_any_sync and
// __reduce_min_sync) and made every build slower (the bunny's 1.51 -> 1.76 ms, H200).
template <class Lanes, bool kLowest>
CA_HD void BinUpdate(uint32_t* counts, uint32_t* faces, uint32_t bin, uint32_t key) {
    if constexpr (Lanes::kCount == 1) {
        ++counts[bin];
        faces[bin] = (kLowest ? key < faces[bin] : key > faces[bin]) ? key : faces[bin];
    } else {
        AtomicAdd(&counts[bin], 1u);
        if (kLowest) AtomicMin(&faces[bin], key);
        else AtomicMax(&faces[bin], key);
    }
}

CA_HD inline uint32_t SahBin(float x, float lo, float scale) {
    const int k = int((x - lo) * scale);
    return k < 0 ? 0u : (k >= int(kSahBins) ? kSahBins - 1 : uint32_t(k));
}

// The two candidates of bin b (side 0: its lowest lower face, 1: its highest upper face), given
// the entries that start and end in the bins before it.
CA_HD inline SahPlane SahCandidatePlane(const SahBins& bins, const Aabb& cell, int axis, uint32_t b, int side,
                                        uint32_t starts_before, uint32_t ends_before, uint32_t count) {
    SahPlane plane;
    if (side == 0) {  // every entry starting in the bin is right of it
        plane.pos = KeyFloat(bins.lowest[b]);
        plane.planar_side = 1;
        plane.left = starts_before;
        plane.right = count - ends_before;
        plane.valid = bins.starts[b] > 0;
    } else {  // every entry ending in the bin is left of it
        plane.pos = KeyFloat(bins.highest[b]);
        plane.planar_side = 0;
        plane.left = starts_before + bins.starts[b];
        plane.right = count - ends_before - bins.ends[b];
        plane.valid = bins.ends[b] > 0;
    }
    plane.valid = plane.valid && plane.pos > cell.lo[axis] && plane.pos < cell.hi[axis];
    return plane;
}

// The spatial median as a candidate beside the box faces (SplitLargeNodes): its cost, estimated
// from the bins (an entry counts left when it starts in the cell's lower half, right when it ends
// in the upper), is scaled by 'weight', so that a face is taken only where it costs less than
// weight times the median's. axis -1: no such candidate.
struct MedianCandidate {
    int axis = -1;
    float weight = 1.0f;
};
constexpr uint32_t kMedianCandidateId = 3 * kSahCandidatesPerAxis;

// The SAH cost of splitting a cell of surface area 'area' at pos on axis a with left and right
// entries.
CA_HD inline float SplitCost(const Aabb& cell, float area, int a, float pos, uint32_t left, uint32_t right,
                             float cost_traversal, float cost_intersection) {
    return cost_traversal * area + cost_intersection * (cell.Half(a, pos, 0).SurfaceArea() * float(left) +
                                                        cell.Half(a, pos, 1).SurfaceArea() * float(right));
}

// The cheaper of best and the candidates of axis a's bins, a bin a lane (all of them in turn for one
// lane), for each lane: the lanes' answers are still to be combined.
template <class Lanes>
CA_HD SahCandidate CheapestInBins(const Lanes& lanes, const SahBins& bins, const Aabb& cell, int a, uint32_t count,
                                  float cost_traversal, float cost_intersection, MedianCandidate median,
                                  SahCandidate best) {
    const float area = cell.SurfaceArea();
    uint32_t starts_carry = 0, ends_carry = 0;
    for (uint32_t base = 0; base < kSahBins; base += Lanes::kCount) {
        const uint32_t b = base + lanes.Lane();
        uint32_t starts_total, ends_total;
        const uint32_t starts_before = starts_carry + lanes.ExclusiveScan(bins.starts[b], 0u, Plus(), starts_total);
        const uint32_t ends_before = ends_carry + lanes.ExclusiveScan(bins.ends[b], 0u, Plus(), ends_total);
        starts_carry += starts_total;
        ends_carry += ends_total;
        for (int side = 0; side < 2; ++side) {
            const SahPlane p = SahCandidatePlane(bins, cell, a, b, side, starts_before, ends_before, count);
            if (!p.valid) continue;
            const float cost = SplitCost(cell, area, a, p.pos, p.left, p.right, cost_traversal, cost_intersection);
            const uint32_t id = uint32_t(a) * kSahCandidatesPerAxis + 2 * b + uint32_t(side);
            const SahCandidate candidate{cost, id, p.pos, p.planar_side};
            if (candidate < best) best = candidate;
        }
        if (a == median.axis && b == kSahBins / 2) {  // the bins' middle boundary is the median's plane
            const float pos = 0.5f * (cell.lo[a] + cell.hi[a]);
            const float cost = median.weight * SplitCost(cell, area, a, pos, starts_before, count - ends_before,
                                                         cost_traversal, cost_intersection);
            const SahCandidate candidate{cost, kMedianCandidateId, pos, -1};
            if (candidate < best) best = candidate;
        }
    }
    return best;
}

// Bin k in its empty state.
CA_HD inline void ClearSahBin(SahBins& bins, uint32_t k) {
    bins.starts[k] = bins.ends[k] = 0;
    bins.lowest[k] = kKeyMinIdentity;
    bins.highest[k] = kKeyMaxIdentity;
}

// The bins in their empty state.
template <class Lanes>
CA_HD void ClearSahBins(const Lanes& lanes, SahBins& bins) {
    for (uint32_t k = lanes.Lane(); k < kSahBins; k += Lanes::kCount) ClearSahBin(bins, k);
}

// Adds the entries [begin, begin + count) to axis a's bins of a node with this cell, the lanes
// sharing the entries.
template <class Lanes>
CA_HD void BinEntries(const Lanes& lanes, SahBins& bins, const EntriesView& entries, uint32_t begin, uint32_t count,
                      const Aabb& cell, int a) {
    const float lo = cell.lo[a], scale = float(kSahBins) / (cell.hi[a] - lo);
    for (uint32_t j = lanes.Lane(); j < count; j += Lanes::kCount) {
        const float e_lo = entries.Bound(a, begin + j), e_hi = entries.Bound(3 + a, begin + j);
        const uint32_t s = SahBin(e_lo, lo, scale), t = SahBin(e_hi, lo, scale);
        BinUpdate<Lanes, true>(bins.starts, bins.lowest, s, FloatKey(e_lo));
        BinUpdate<Lanes, false>(bins.ends, bins.highest, t, FloatKey(e_hi));
    }
}

// Adds one set of bins to another that other lanes (other GPU blocks, other CPU threads) add to
// at the same time: the counts, the lowest and the highest faces do not depend on their order.
template <class Lanes>
CA_HD void MergeSahBins(const Lanes& lanes, const SahBins& from, SahBins& to) {
    for (uint32_t k = lanes.Lane(); k < kSahBins; k += Lanes::kCount) {
        if (from.starts[k]) {
            AtomicAdd(&to.starts[k], from.starts[k]);
            AtomicMin(&to.lowest[k], from.lowest[k]);
        }
        if (from.ends[k]) {
            AtomicAdd(&to.ends[k], from.ends[k]);
            AtomicMax(&to.highest[k], from.highest[k]);
        }
    }
}

// The bins of a node's three axes, where a large level's chunks gathered them
// (bfs_large_passes.h, BinMedianOrSahChunks).
struct NodeSahBins {
    SahBins axis[3];
};

// The cheapest candidate split of the entries [begin, begin + count) of a node with this cell, or
// false when there is none (every face on the cell's boundary, and no median candidate). Every
// lane returns the same answer. The lanes (one, a warp, or a block's, which has more than there
// are bins: its first warp then weighs the candidates) share the entries, which they bin in
// 'bins', an axis at a time; or, where 'gathered' holds the node's bins, they read those and leave
// them empty.
template <class Lanes>
CA_HD bool ChooseBinnedSahSplit(const Lanes& lanes, SahBins& bins, NodeSahBins* gathered, const EntriesView& entries,
                                uint32_t begin, uint32_t count, const Aabb& cell, float cost_traversal,
                                float cost_intersection, MedianCandidate median, int* axis_out, float* pos_out,
                                int* planar_side_out) {
    SahCandidate best{3.4e38f, ~0u, 0.0f, 0};
    for (int a = 0; a < 3; ++a) {
        if (!(cell.hi[a] > cell.lo[a])) continue;
        SahBins& axis_bins = gathered ? gathered->axis[a] : bins;
        if (!gathered) {
            ClearSahBins(lanes, bins);
            lanes.Sync();
            BinEntries(lanes, bins, entries, begin, count, cell, a);
            lanes.Sync();
        }
        if constexpr (Lanes::kCount <= kSahBins) {
            best = CheapestInBins(lanes, axis_bins, cell, a, count, cost_traversal, cost_intersection, median, best);
        } else if (lanes.WarpIndex() == 0) {
            best = CheapestInBins(lanes.Warp(), axis_bins, cell, a, count, cost_traversal, cost_intersection, median,
                                  best);
        }
        lanes.Sync();  // the bins serve the next axis, or the next level's node
        if (gathered) ClearSahBins(lanes, axis_bins);
    }
    if constexpr (Lanes::kCount <= kSahBins) {
        best = lanes.Reduce(best, CheaperSahCandidate());
    } else {
        if (lanes.WarpIndex() == 0) {
            best = lanes.Warp().Reduce(best, CheaperSahCandidate());
            if (lanes.Lane() == 0) bins.best = best;
        }
        lanes.Sync();
        best = bins.best;
    }
    if (best.id == ~0u) return false;
    *axis_out = best.id == kMedianCandidateId ? median.axis : int(best.id / kSahCandidatesPerAxis);
    *pos_out = best.pos;
    *planar_side_out = best.planar_side;
    return true;
}

}  // namespace caustica::bfs
