// Internal to the BFS builder: the split of a large node of at most SahParams::binned_sah_max_entries
// entries, chosen by the SAH over its entries' box faces, found through bins (Wald 2007's binning,
// with each bin's extreme faces as the candidates rather than its boundaries).
//
// Zhou et al. 2008 split every large node at the spatial median, which on machined parts cuts
// through a plate instead of between two, and keeps a flat face's triangles on both sides. Each
// axis of the node's cell is cut into kSahBins bins; an entry counts where its box starts and where
// it ends. The candidates are, in each bin, the lowest lower face (triangles lying in that plane go
// right) and the highest upper face (they go left), and the cell's own faces where triangles lie in
// them (those go to a flat child, as in Wald and Havran 2006, with every triangle meeting that face:
// clipped to the cell, one crossing the face seems to touch it from inside). Counts on the far side of a
// candidate are exact; an entry of the same bin that may fall on either side is counted on both.
// The lanes of a warp (or one CPU thread) share a node; the bins live in their scratch, an axis at
// a time. Counts and faces are order-independent and ties go to the lowest candidate, so the CPU
// and the GPU choose the same split.
#pragma once

#include <cstdint>

#include "core/atomic.h"
#include "core/float_key.h"
#include "core/hd.h"
#include "kdtree/triangle/bfs_build_state.h"

namespace caustica::bfs {

constexpr uint32_t kSahBins = 32;
// Per axis: for each bin, the lowest and highest face, then the cell's lower and upper face.
constexpr uint32_t kSahCandidatesPerAxis = 2 * kSahBins + 2;

struct SahBins {
    uint32_t starts[kSahBins];  // entries whose box starts in the bin
    uint32_t ends[kSahBins];    // entries whose box ends in the bin
    uint32_t lowest[kSahBins];  // FloatKey of the lowest lower face in the bin
    uint32_t highest[kSahBins];
    uint32_t flat_lo, flat_hi;    // entries lying in the cell's lower / upper face
    uint32_t touch_lo, touch_hi;  // entries meeting it (ClassifyEntry)
};

// A candidate split with its SAH cost; the lesser of two is the cheaper, ties going to the lower
// candidate (a total order, so that any pairing of the lanes gives the same answer).
struct SahCandidate {
    float cost;
    uint32_t id;  // axis * kSahCandidatesPerAxis + candidate; ~0u: none
    float pos;
    int32_t planar_side;
    CA_HD bool operator<(const SahCandidate& o) const { return cost < o.cost || (cost == o.cost && id < o.id); }
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

CA_HD inline uint32_t SahBin(float x, float lo, float scale) {
    const int k = int((x - lo) * scale);
    return k < 0 ? 0u : (k >= int(kSahBins) ? kSahBins - 1 : uint32_t(k));
}

CA_HD inline SahPlane SahCandidatePlane(const SahBins& bins, const Aabb& cell, int axis, uint32_t c, uint32_t count) {
    SahPlane plane{0.0f, 0, 0, 0, false};
    if (c >= 2 * kSahBins) {  // the cell's face, with the triangles meeting it in a flat child
        const bool upper = c == 2 * kSahBins + 1;
        const uint32_t flat = upper ? bins.flat_hi : bins.flat_lo, touch = upper ? bins.touch_hi : bins.touch_lo;
        plane.pos = upper ? cell.hi[axis] : cell.lo[axis];
        plane.planar_side = upper ? 1 : 0;
        plane.left = upper ? count - flat : touch;
        plane.right = upper ? touch : count - flat;
        plane.valid = flat > 0 && flat < count;
        return plane;
    }
    const uint32_t b = c / 2;
    uint32_t starts_before = 0, ends_before = 0;
    for (uint32_t k = 0; k < b; ++k) {
        starts_before += bins.starts[k];
        ends_before += bins.ends[k];
    }
    if (c % 2 == 0) {  // the bin's lowest lower face: every entry starting in the bin is right of it
        plane.pos = KeyFloat(bins.lowest[b]);
        plane.planar_side = 1;
        plane.left = starts_before;
        plane.right = count - ends_before;
        plane.valid = bins.starts[b] > 0;
    } else {  // the bin's highest upper face: every entry ending in the bin is left of it
        plane.pos = KeyFloat(bins.highest[b]);
        plane.planar_side = 0;
        plane.left = starts_before + bins.starts[b];
        plane.right = count - ends_before - bins.ends[b];
        plane.valid = bins.ends[b] > 0;
    }
    // Inside the cell: its faces are the flat candidates above.
    plane.valid = plane.valid && plane.pos > cell.lo[axis] && plane.pos < cell.hi[axis];
    return plane;
}

// The cheapest candidate split of the entries [begin, begin + count) of a node with this cell, or
// false when there is none (every face on the cell's boundary). Every lane returns the same answer.
template <class Lanes>
CA_HD bool ChooseBinnedSahSplit(const Lanes& lanes, SahBins& bins, const EntriesView& entries, uint32_t begin,
                                uint32_t count, const Aabb& cell, float cost_traversal, float cost_intersection,
                                int* axis_out, float* pos_out, int* planar_side_out) {
    SahCandidate best{3.4e38f, ~0u, 0.0f, 0};
    for (int a = 0; a < 3; ++a) {
        const float lo = cell.lo[a], hi = cell.hi[a];
        if (!(hi > lo)) continue;
        const float scale = float(kSahBins) / (hi - lo);
        for (uint32_t k = lanes.Lane(); k < kSahBins; k += Lanes::kCount) {
            bins.starts[k] = bins.ends[k] = 0;
            bins.lowest[k] = kKeyMinIdentity;
            bins.highest[k] = kKeyMaxIdentity;
        }
        if (lanes.Lane() == 0) bins.flat_lo = bins.flat_hi = bins.touch_lo = bins.touch_hi = 0;
        lanes.Sync();
        for (uint32_t j = lanes.Lane(); j < count; j += Lanes::kCount) {
            const float e_lo = entries.box[a][begin + j], e_hi = entries.box[3 + a][begin + j];
            const uint32_t s = SahBin(e_lo, lo, scale), t = SahBin(e_hi, lo, scale);
            AtomicAdd(&bins.starts[s], 1u);
            AtomicAdd(&bins.ends[t], 1u);
            AtomicMin(&bins.lowest[s], FloatKey(e_lo));
            AtomicMax(&bins.highest[t], FloatKey(e_hi));
            if (e_lo == lo) AtomicAdd(&bins.touch_lo, 1u);
            if (e_hi == hi) AtomicAdd(&bins.touch_hi, 1u);
            if (e_lo == e_hi && e_lo == lo) AtomicAdd(&bins.flat_lo, 1u);
            if (e_lo == e_hi && e_hi == hi) AtomicAdd(&bins.flat_hi, 1u);
        }
        lanes.Sync();
        const float area = cell.SurfaceArea();
        for (uint32_t c = lanes.Lane(); c < kSahCandidatesPerAxis; c += Lanes::kCount) {
            const SahPlane p = SahCandidatePlane(bins, cell, a, c, count);
            if (!p.valid) continue;
            const float cost = cost_traversal * area +
                               cost_intersection * (ChildCell(cell, a, p.pos, 0).SurfaceArea() * float(p.left) +
                                                    ChildCell(cell, a, p.pos, 1).SurfaceArea() * float(p.right));
            const SahCandidate candidate{cost, uint32_t(a) * kSahCandidatesPerAxis + c, p.pos, p.planar_side};
            if (candidate < best) best = candidate;
        }
        lanes.Sync();  // the bins serve the next axis
    }
    best = lanes.Reduce(best, CheaperSahCandidate());
    if (best.id == ~0u) return false;
    *axis_out = int(best.id / kSahCandidatesPerAxis);
    *pos_out = best.pos;
    *planar_side_out = best.planar_side;
    return true;
}

}  // namespace caustica::bfs
