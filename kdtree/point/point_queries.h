// Queries on the point kd-tree, per query point, for host and device code: range search, the
// histogram-based iterative KNN of Zhou et al. 2008 (Algorithm 6), an exact KNN with a bounded
// priority queue, and brute force for tests.
//
// A KNN writes its points into a caller's slot (point indices and squared distances, strided so
// that a batch can store slot j of query i at j * queries + i) and returns how many and the radius.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/hd.h"
#include "core/span.h"
#include "core/vec.h"
#include "kdtree/point/point_tree.h"

namespace caustica {

// Where one query's neighbours go: entry j at indices[j * stride] and dist2[j * stride].
// indices may be null when only the radius is wanted.
struct KnnSlot {
    uint32_t* indices = nullptr;
    float* dist2 = nullptr;
    uint32_t stride = 1;
};

// How a KNN finds its points. Both return the exact k-th distance and the same set up to ties;
// docs/notes/photon-knn-performance.md §4 compares their cost.
enum class KnnMethod {
    Histogram,  // Zhou et al. 2008, Algorithm 6, from r0: histograms of distances narrow the shell
    Exact,      // depth-first search with a bounded priority queue, pruned by r0 until it fills
};

// The name --knn takes and benchmarks print.
inline const char* KnnMethodName(KnnMethod m) { return m == KnnMethod::Exact ? "exact" : "histogram"; }

struct KnnSettings {
    KnnMethod method = KnnMethod::Histogram;
    int k = 50;
    // Only points within this distance count; fewer than k are returned when fewer lie within it.
    float max_radius = INFINITY;
    int bins = 32;       // nhist, at most kMaxHistogramBins
    int iterations = 2;  // niter
};

// count: the neighbours written (k, or fewer when fewer lie within max_radius). radius: the exact
// distance of the k-th neighbour; when fewer than k were found, max_radius (or, when that is
// infinite, the farthest point's distance).
struct KnnOutcome {
    uint32_t count = 0;
    float radius = 0.0f;
};

CA_HD CA_INLINE float Distance2(Vec3 a, Vec3 b) { return LengthSquared(a - b); }

// Tree reads through the read-only cache on the GPU: a point is one 16-byte load (a node's: LoadNode).
CA_HD CA_INLINE TreePoint LoadPoint(const TreePoint* points, uint32_t i) {
#if CA_DEVICE_CODE
    const float4 v = __ldg(reinterpret_cast<const float4*>(points) + i);
    TreePoint p;
    p.position = Vec3(v.x, v.y, v.z);
    p.index = __float_as_uint(v.w);
    return p;
#else
    return points[i];
#endif
}

CA_HD CA_INLINE Aabb LoadBox(const Aabb* boxes, uint32_t i) {
#if CA_DEVICE_CODE
    const float* b = reinterpret_cast<const float*>(boxes + i);
    Aabb box;
    box.lo = Vec3(__ldg(b), __ldg(b + 1), __ldg(b + 2));
    box.hi = Vec3(__ldg(b + 3), __ldg(b + 4), __ldg(b + 5));
    return box;
#else
    return boxes[i];
#endif
}

// The squared distance from q to the nearest point of box (infinite for an empty box).
CA_HD CA_INLINE float BoxDistance2(const Aabb& box, Vec3 q) {
    const float dx = Max(Max(box.lo.x - q.x, q.x - box.hi.x), 0.0f);
    const float dy = Max(Max(box.lo.y - q.y, q.y - box.hi.y), 0.0f);
    const float dz = Max(Max(box.lo.z - q.z, q.z - box.hi.z), 0.0f);
    return dx * dx + dy * dy + dz * dz;
}

// Work counters of a query, for benchmarks: nodes and points a traversal reads, and its passes over
// the candidates. NoWork compiles to nothing; WorkCount counts.
struct NoWork {
    CA_HD void Nodes(uint32_t) {}
    CA_HD void Points(uint32_t) {}
    CA_HD void Pass() {}
    CA_HD void ListPass(uint32_t) {}
};

struct WorkCount {
    uint64_t nodes = 0, points = 0, passes = 0;  // tree traversals
    uint64_t list_passes = 0, list_points = 0;   // passes over a gathered candidate list
    CA_HD void Nodes(uint32_t n) { nodes += n; }
    CA_HD void Points(uint32_t n) { points += n; }
    CA_HD void Pass() { ++passes; }
    CA_HD void ListPass(uint32_t n) {
        ++list_passes;
        list_points += n;
    }
};

// Calls visit(const TreePoint&, float dist2) for every point of leaf n, in order. The points are
// loaded kLeafBatch at a time, so that a GPU thread waits for one batch's loads at once, not for
// each point's (the exact KNN's point loop stalled on every load, docs/notes/photon-knn-performance.md §8).
// Eight measured faster than four (docs/notes/frame-performance.md, run 233).
constexpr uint32_t kLeafBatch = 8;

template <class Visit>
CA_HD CA_INLINE void ForEachLeafPoint(const PointTreeView& tree, KdNode n, Vec3 q, Visit&& visit) {
    const uint32_t end = n.first + n.Count();
    for (uint32_t first = n.first; first < end; first += kLeafBatch) {
        // Past the leaf's end the last point is read again (no branch), and not visited.
        TreePoint batch[kLeafBatch];
        for (uint32_t j = 0; j < kLeafBatch; ++j) batch[j] = LoadPoint(tree.points, first + j < end ? first + j : end - 1);
        for (uint32_t j = 0; j < kLeafBatch; ++j) {
            if (first + j < end) visit(batch[j], Distance2(batch[j].position, q));
        }
    }
}

// Calls visit(const TreePoint&, float dist2) for every point with dist2 <= r * r, depth first with
// a stack of far children; a child is skipped when its split plane is farther than r.
template <class Visit, class Work>
CA_HD void RangeSearch(const PointTreeView& tree, Vec3 q, float r, Visit&& visit, Work& work) {
    if (tree.point_count == 0) return;
    work.Pass();
    const float r2 = r * r;
    uint32_t stack[kMaxPointTreeDepth];
    int top = 0;
    uint32_t node = 0;
    while (true) {
        const KdNode n = LoadNode(tree.nodes, node);
        work.Nodes(1);
        // A leaf's cell is often far larger than its points' box (on a caustic curve, a wall): its
        // box (an empty one is infinitely far) skips it when no point can lie within r.
        if (n.IsLeaf() && BoxDistance2(LoadBox(tree.boxes, node), q) <= r2) {
            work.Points(n.Count());
            ForEachLeafPoint(tree, n, q, [&](const TreePoint& p, float d2) {
                if (d2 <= r2) visit(p, d2);
            });
        }
        if (n.IsLeaf()) {
            if (top == 0) return;
            node = stack[--top];
            continue;
        }
        const float d = q[n.Axis()] - n.split;  // points with coordinate < split are on the left
        const uint32_t near_child = d < 0.0f ? node + 1 : n.RightChild();
        const uint32_t far_child = d < 0.0f ? n.RightChild() : node + 1;
        if (d * d <= r2) stack[top++] = far_child;
        node = near_child;
    }
}

template <class Visit>
CA_HD void RangeSearch(const PointTreeView& tree, Vec3 q, float r, Visit&& visit) {
    NoWork work;
    RangeSearch(tree, q, r, visit, work);
}

// The points within a radius of a query, gathered by one tree pass, so that Algorithm 6's later
// passes over smaller radii read them instead of walking the tree again. This many at most (8 bytes
// each, in a GPU thread's local memory); a pass that finds more gathers nothing.
constexpr uint32_t kKnnCandidates = 256;

struct CandidateList {
    float dist2[kKnnCandidates];
    uint32_t index[kKnnCandidates];
    uint32_t count = 0;
    float r2 = -1.0f;  // it holds every point with dist2 <= r2; negative: none
};

// RangeSearch through a candidate list: visit(index, dist2) for every point with dist2 <= r * r, in
// RangeSearch's order (a smaller radius prunes subtrees but never reorders the leaves). Reads the
// list when it covers r; otherwise walks the tree and gathers the list anew.
template <class Visit, class Work>
CA_HD void VisitWithin(const PointTreeView& tree, Vec3 q, float r, CandidateList& list, Visit&& visit, Work& work) {
    const float r2 = r * r;
    if (r2 <= list.r2) {
        work.ListPass(list.count);
        for (uint32_t i = 0; i < list.count; ++i) {
            const float d2 = list.dist2[i];
            if (d2 <= r2) visit(list.index[i], d2);
        }
        return;
    }
    uint32_t n = 0;
    RangeSearch(tree, q, r, [&](const TreePoint& p, float d2) {
        if (n < kKnnCandidates) {
            list.dist2[n] = d2;
            list.index[n] = p.index;
        }
        ++n;
        visit(p.index, d2);
    }, work);
    list.count = n <= kKnnCandidates ? n : 0;
    list.r2 = n <= kKnnCandidates ? r2 : -1.0f;
}

// A distance that covers every point of the tree from q (its box's farthest corner, padded for
// rounding).
CA_HD CA_INLINE float FarthestTreeDistance(const PointTreeView& tree, Vec3 q) {
    if (tree.point_count == 0) return 0.0f;
    const Vec3 lo = q - tree.bounds.lo, hi = tree.bounds.hi - q;
    const Vec3 far(Max(fabsf(lo.x), fabsf(hi.x)), Max(fabsf(lo.y), fabsf(hi.y)), Max(fabsf(lo.z), fabsf(hi.z)));
    return Length(far) * 1.00001f;
}

// One entry of a KNN's max-heap: a squared distance and its point's index. 8 bytes, so that where
// entries lie side by side (the GPU's heap in shared memory) one load or store moves one entry.
struct alignas(8) HeapEntry {
    float d2;
    uint32_t index;
};

// A heap's entries in a KnnSlot, from entry base on (index 0 where the slot has no indices).
struct SlotEntries {
    KnnSlot slot;
    uint32_t base = 0;

    CA_HD HeapEntry Load(uint32_t i) const {
        const uint32_t at = (base + i) * slot.stride;
        return {slot.dist2[at], slot.indices ? slot.indices[at] : 0u};
    }
    CA_HD void Store(uint32_t i, HeapEntry e) const {
        const uint32_t at = (base + i) * slot.stride;
        slot.dist2[at] = e.d2;
        if (slot.indices) slot.indices[at] = e.index;
    }
};

// A heap's entries as whole HeapEntry words, entry i at pairs[i * stride]. 32-bit offsets: with
// 64-bit ones the GPU recomputed its shared-memory window's base at every access.
struct PairEntries {
    HeapEntry* pairs;
    uint32_t stride;

    CA_HD HeapEntry Load(uint32_t i) const { return pairs[i * stride]; }
    CA_HD void Store(uint32_t i, HeapEntry e) const { pairs[i * stride] = e; }
    // The same entries as a KnnSlot (its stride counts 4-byte words).
    CA_HD KnnSlot Slot() const { return {&pairs->index, &pairs->d2, 2 * stride}; }
};

// A max-heap of the capacity nearest offered points, over Entries (SlotEntries or PairEntries),
// for the exact selection of the nearest points. Its largest squared distance stays in a register.
// Four children a node: a sift reads a level's children at once and goes half as deep as in a
// binary heap, so on the GPU it waits for half as many dependent shared-memory reads.
template <class Entries>
struct MaxHeap {
    static constexpr uint32_t kArity = 4;

    Entries entries;
    uint32_t size = 0, capacity = 0;
    float top = 0.0f;  // the root's squared distance, while size > 0

    CA_HD bool Full() const { return size == capacity; }
    CA_HD float Top() const { return top; }
    CA_HD float D(uint32_t i) const { return entries.Load(i).d2; }

    // Keeps the capacity nearest offered points; a point as far as the farthest kept one is not taken.
    CA_HD void Offer(float d2, uint32_t index) {
        if (size < capacity) {
            uint32_t i = size++;
            while (i > 0) {
                const uint32_t parent = (i - 1) / kArity;
                const HeapEntry p = entries.Load(parent);
                if (!(p.d2 < d2)) break;
                entries.Store(i, p);
                i = parent;
            }
            entries.Store(i, {d2, index});
            top = i == 0 ? d2 : top;
            return;
        }
        if (!(d2 < top)) return;
        uint32_t i = 0;
        float new_top = d2;
        while (true) {
            const uint32_t first = kArity * i + 1;
            if (first >= size) break;
            uint32_t c;
            const HeapEntry child = LargestChild(first, c);
            if (!(d2 < child.d2)) break;
            entries.Store(i, child);
            new_top = i == 0 ? child.d2 : new_top;
            i = c;
        }
        entries.Store(i, {d2, index});
        top = new_top;
    }

private:
    // The largest of the children from first on (the earliest of equals), and its position in at.
    // Positions past the end read the first child again (never larger), so that the loads do not
    // wait on a branch. A running maximum measured 3% faster than a tournament of pairs (H100).
    CA_HD HeapEntry LargestChild(uint32_t first, uint32_t& at) const {
        HeapEntry best = entries.Load(first);
        at = first;
        for (uint32_t j = 1; j < kArity; ++j) {
            const uint32_t p = first + j < size ? first + j : first;
            const HeapEntry e = entries.Load(p);
            if (e.d2 > best.d2) {
                best = e;
                at = p;
            }
        }
        return best;
    }
};

// Algorithm 6's histogram in a thread's own memory; the GPU batch keeps it in shared memory
// instead (knn_batch.cpp). Any type with Clear(bins), Add(bin) and Get(bin) will do.
struct LocalHistogram {
    uint32_t bins[kMaxHistogramBins];
    CA_HD void Clear(int n) {
        for (int i = 0; i < n; ++i) bins[i] = 0;
    }
    CA_HD void Add(int bin) { ++bins[bin]; }
    CA_HD uint32_t Get(int bin) const { return bins[bin]; }
};

// The bin of distance d in a histogram of bins bins over [rmin, rmin + bins / scale); nearer
// points fall in bin 0 (Algorithm 6), farther ones in the last.
CA_HD CA_INLINE int HistogramBin(float d, float rmin, float scale, int bins) {
    const float x = Max(d - rmin, 0.0f) * scale;
    return x < float(bins - 1) ? int(x) : bins - 1;
}

// The k nearest points of q by Zhou et al. 2008, Algorithm 6: from r0 (which should be at least
// the k-th distance, see node_radius.h), niter histograms of the distances in the shell
// [rmin, rmax] shrink it to the bin holding the k-th point. Then one more range search returns the
// points in the bins before it and the nearest of that bin (a bounded max-heap over the few points
// of one narrow bin), so the returned radius is the exact k-th distance. An r0 that proves too
// small is doubled (counted as no iteration), so any r0 gives the right answer, only slower.
// The first tree pass gathers the points within r0 (CandidateList); when they are few enough, the
// other passes read that list instead of the tree, with the same points in the same order.
template <class Histogram, class Work>
CA_HD KnnOutcome HistogramKnn(const PointTreeView& tree, Vec3 q, float r0, const KnnSettings& s, Histogram& hist,
                              KnnSlot out, Work& work) {
    KnnOutcome result;
    if (s.k <= 0 || tree.point_count == 0) {
        result.radius = isinf(s.max_radius) ? 0.0f : s.max_radius;
        return result;
    }
    const uint32_t k = uint32_t(s.k);
    const int bins = s.bins;
    const float cap = Min(s.max_radius, FarthestTreeDistance(tree, q));
    float rmin = 0.0f, rmax = Min(r0, cap);
    if (!(rmax >= 0.0f)) rmax = cap;  // NaN r0
    bool take_all = false;
    CandidateList list;
    float bin_rmin = 0.0f, bin_scale = 0.0f, search_r = rmax;
    int bin_k = 0;
    uint32_t before_bin = 0;
    for (int iteration = 0; iteration < s.iterations;) {
        const float width = rmax - rmin;
        const float scale = width > 0.0f ? float(bins) / width : 0.0f;
        hist.Clear(bins);
        uint32_t total = 0;
        VisitWithin(tree, q, rmax, list, [&](uint32_t, float d2) {
            hist.Add(HistogramBin(sqrtf(d2), rmin, scale, bins));
            ++total;
        }, work);
        if (total < k) {
            if (rmax >= cap) {  // fewer than k points within the maximum radius
                take_all = true;
                search_r = rmax;
                break;
            }
            // r0 was too small: the k-th point lies beyond rmax.
            rmin = rmax;
            rmax = rmax > 0.0f ? Min(2.0f * rmax, cap) : cap;
            continue;
        }
        int j = 0;
        uint32_t cumulative = 0;
        while (cumulative + hist.Get(j) < k) cumulative += hist.Get(j++);
        bin_rmin = rmin;
        bin_scale = scale;
        bin_k = j;
        before_bin = cumulative;
        search_r = rmax;
        if (++iteration == s.iterations || !(width > 0.0f)) break;
        const float step = width / float(bins);
        // A hair wider than the bin, so rounding cannot leave one of its points outside.
        rmax = (rmin + float(j + 1) * step) * 1.000001f;
        rmin = rmin + float(j) * step;
    }
    if (take_all) {
        float far2 = 0.0f;
        VisitWithin(tree, q, search_r, list, [&](uint32_t index, float d2) {
            if (out.indices) out.indices[result.count * out.stride] = index;
            out.dist2[result.count * out.stride] = d2;
            ++result.count;
            far2 = Max(far2, d2);
        }, work);
        result.radius = isinf(s.max_radius) ? sqrtf(far2) : s.max_radius;
        return result;
    }
    // The points of the bins before the k-th one, and the nearest k - before_bin of its bin.
    MaxHeap<SlotEntries> heap;
    heap.entries = {out, before_bin};
    heap.capacity = k - before_bin;
    uint32_t written = 0;
    VisitWithin(tree, q, search_r, list, [&](uint32_t index, float d2) {
        const int bin = HistogramBin(sqrtf(d2), bin_rmin, bin_scale, bins);
        if (bin < bin_k) {
            if (written == before_bin) return;  // cannot happen: the same arithmetic as the histogram
            if (out.indices) out.indices[written * out.stride] = index;
            out.dist2[written * out.stride] = d2;
            ++written;
        } else if (bin == bin_k) {
            heap.Offer(d2, index);
        }
    }, work);
    result.count = written + heap.size;  // k
    result.radius = heap.size > 0 ? sqrtf(heap.Top()) : 0.0f;
    return result;
}

template <class Histogram>
CA_HD KnnOutcome HistogramKnn(const PointTreeView& tree, Vec3 q, float r0, const KnnSettings& s, Histogram& hist,
                              KnnSlot out) {
    NoWork work;
    return HistogramKnn(tree, q, r0, s, hist, out, work);
}

// The nearest points of q within the squared distance bound2 into heap, by depth-first search,
// nearer child first, pruning by the current k-th distance once the heap is full.
template <class Heap, class Work>
CA_HD void ExactKnnSearch(const PointTreeView& tree, Vec3 q, float bound2, Heap& heap, Work& work) {
    struct Entry {
        uint32_t node;
        float plane2;
    };
    Entry stack[kMaxPointTreeDepth];
    int top = 0;
    stack[top++] = {0, 0.0f};
    work.Pass();
    float limit = heap.Full() ? heap.Top() : bound2;  // no point farther than this can enter the heap
    while (top > 0) {
        const Entry e = stack[--top];
        if (e.plane2 > limit) continue;
        // Down to the nearest leaf under e, the far children on the stack, unless a node's box (read
        // beside the node, so that its test does not wait for a load of its own) lies beyond the
        // bound: a query far from every point (a diffuse point far from the caustics) then ends near
        // the root, where it walked down to a leaf (the orbit's and the prism's frames 14% faster,
        // docs/notes/photon-knn-performance.md).
        uint32_t node = e.node;
        KdNode n = LoadNode(tree.nodes, node);
        Aabb box = LoadBox(tree.boxes, node);
        work.Nodes(1);
        bool beyond = BoxDistance2(box, q) > limit;
        while (!beyond && !n.IsLeaf()) {
            const float d = q[n.Axis()] - n.split;
            const uint32_t near_child = d < 0.0f ? node + 1 : n.RightChild();
            const uint32_t far_child = d < 0.0f ? n.RightChild() : node + 1;
            if (d * d <= limit) stack[top++] = {far_child, d * d};
            node = near_child;
            n = LoadNode(tree.nodes, node);
            box = LoadBox(tree.boxes, node);
            work.Nodes(1);
            beyond = BoxDistance2(box, q) > limit;
        }
        if (beyond) continue;
        work.Points(n.Count());
        ForEachLeafPoint(tree, n, q, [&](const TreePoint& p, float d2) {
            if (d2 > bound2) return;
            heap.Offer(d2, p.index);
            if (heap.Full()) limit = heap.Top();
        });
    }
}

// The exact k nearest points with a bounded priority queue (a max-heap over out: a KnnSlot, or
// entries of PairEntries or SlotEntries), same outcome conventions as HistogramKnn. A finite r0
// (node_radius.h: at least the k-th distance) prunes the search before the heap fills; should the
// heap not fill within it, the search runs again within max_radius, so any r0 gives the exact answer.
template <class Entries, class Work>
CA_HD KnnOutcome ExactKnn(const PointTreeView& tree, Vec3 q, float r0, const KnnSettings& s, Entries out,
                          Work& work) {
    KnnOutcome result;
    if (s.k <= 0 || tree.point_count == 0) {
        result.radius = isinf(s.max_radius) ? 0.0f : s.max_radius;
        return result;
    }
    MaxHeap<Entries> heap;
    heap.entries = out;
    heap.capacity = uint32_t(s.k);
    const float max2 = s.max_radius * s.max_radius;
    const bool bounded = r0 < s.max_radius;  // false for a NaN r0
    ExactKnnSearch(tree, q, bounded ? r0 * r0 : max2, heap, work);
    if (bounded && !heap.Full()) {
        heap.size = 0;
        ExactKnnSearch(tree, q, max2, heap, work);
    }
    result.count = heap.size;
    if (heap.Full()) {
        result.radius = sqrtf(heap.Top());
    } else if (isinf(s.max_radius)) {
        float far2 = 0.0f;
        for (uint32_t i = 0; i < heap.size; ++i) far2 = Max(far2, heap.D(i));
        result.radius = sqrtf(far2);
    } else {
        result.radius = s.max_radius;
    }
    return result;
}

template <class Work>
CA_HD KnnOutcome ExactKnn(const PointTreeView& tree, Vec3 q, float r0, const KnnSettings& s, KnnSlot out,
                          Work& work) {
    return ExactKnn(tree, q, r0, s, SlotEntries{out}, work);
}

CA_HD inline KnnOutcome ExactKnn(const PointTreeView& tree, Vec3 q, const KnnSettings& s, KnnSlot out) {
    NoWork work;
    return ExactKnn(tree, q, INFINITY, s, out, work);
}

// Brute force, for tests: the (squared distance, index) pairs of the k nearest points within
// max_radius, nearest first (ties by index).
inline std::vector<std::pair<float, uint32_t>> BruteForceKnn(Span<const Vec3> points, Vec3 q, int k,
                                                             float max_radius = INFINITY) {
    std::vector<std::pair<float, uint32_t>> all;
    const float max2 = max_radius * max_radius;
    for (uint32_t i = 0; i < points.size(); ++i) {
        const float d2 = Distance2(points[i], q);
        if (d2 <= max2) all.push_back({d2, i});
    }
    const size_t keep = std::min(all.size(), size_t(std::max(k, 0)));
    std::partial_sort(all.begin(), all.begin() + keep, all.end());
    all.resize(keep);
    return all;
}

}  // namespace caustica
