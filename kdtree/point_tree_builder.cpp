// The point kd-tree build (Zhou et al. 2008, section 5.1) as per-item passes that run on either
// backend. A launch unit: nvcc compiles it in a CUDA build.
#include "kdtree/point_tree_builder.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "core/error.h"
#include "core/float_key.h"
#include "core/lanes.h"
#include "core/morton.h"
#include "core/parallel_for_lanes.h"
#include "core/parallel_for_levels.h"
#include "core/parallel_for_ranked.h"
#include "core/primitives.h"
#include "core/readback.h"

namespace caustica {
namespace {

constexpr uint32_t kNone = 0xffffffffu;

// kHole: the unused pair of child slots of a large node that became a leaf (every active node
// gets two slots, so that a child's index needs no scan).
enum NodeKind : uint32_t { kInterior = 0, kLeaf = 1, kSmallRoot = 2, kLarge = 3, kHole = 4 };

// A node while the tree is built, in breadth-first order (Zhou's nodelist). Nodes are written
// whole; aligned to 16 bytes, a node is four vector stores instead of sixteen scalar ones (a
// block's scattered scalar stores made the children pass take 21 us for 256 nodes on an H100).
struct alignas(16) BuildNode {
    uint32_t begin, count;  // its points in the sorted lists
    Aabb box;               // tight box of its points
    float split;
    uint32_t axis;
    uint32_t kind;
    uint32_t left;          // breadth-first index of the left child; the right child follows it
    uint32_t depth;
    uint32_t size;          // nodes in its preorder subtree
    uint32_t deepest;       // the deepest node in its subtree
    uint32_t address;       // preorder index
};

// A large node being split at the current level. Its points lie at [begin, begin + count) of the
// final lists and at [work, work + count) of the level's working lists, which hold the points of
// active nodes only. Aligned as BuildNode.
struct alignas(16) ActiveNode {
    uint32_t node;
    uint32_t begin, work, count;
    Aabb cell;               // the space it owns (its parent's cell split at the parent's plane)
    uint32_t splits;         // 1 when it is split at this level
    uint32_t axis;
    float split;
    uint32_t left_count;
    uint32_t left_active, right_active;  // the children's indices in the next level, or kNone
    uint32_t left_work, right_work;      // the children's places in the next working lists
};

CA_HD inline uint32_t PopCount(uint32_t x) {
#if CA_DEVICE_CODE
    return uint32_t(__popc(x));
#else
    return uint32_t(__builtin_popcount(x));
#endif
}

// The tight box of count points starting at begin, in O(1): the first and last entries of the
// three sorted lists (Zhou et al. 2008, section 5.1).
CA_HD inline Aabb BoxFromLists(const Vec3* pos, const uint32_t* lists, uint32_t n, uint32_t begin, uint32_t count) {
    if (count == 0) return Aabb();
    Aabb box;
    for (int a = 0; a < 3; ++a) {
        box.lo[a] = pos[lists[a * n + begin]][a];
        box.hi[a] = pos[lists[a * n + begin + count - 1]][a];
    }
    return box;
}

// The volume of a box extended by r on every side: V(d ± R) of the VVH (Zhou et al. 2008, 5.1).
CA_HD inline float ExtendedVolume(Vec3 lo, Vec3 hi, float r) {
    return (hi.x - lo.x + 2.0f * r) * (hi.y - lo.y + 2.0f * r) * (hi.z - lo.z + 2.0f * r);
}

struct SortKeysPass {
    const Vec3* pos;
    uint32_t n;
    uint32_t* keys;
    uint32_t* ids;
    CA_HD void operator()(int i) const {
        for (int a = 0; a < 3; ++a) {
            keys[a * n + i] = FloatKey(pos[i][a]);
            ids[a * n + i] = uint32_t(i);
        }
    }
};

struct RootPass {
    const Vec3* pos;
    const uint32_t* lists;
    uint32_t n;
    uint32_t small_threshold;
    BuildNode* nodes;
    ActiveNode* active;
    CA_HD void operator()(int) const {
        BuildNode root{};
        root.begin = 0;
        root.count = n;
        root.box = BoxFromLists(pos, lists, n, 0, n);
        root.kind = n > small_threshold ? kLarge : kSmallRoot;
        nodes[0] = root;
        ActiveNode a{};
        a.node = 0;
        a.begin = 0;
        a.count = n;
        a.cell = root.box;
        active[0] = a;
    }
};

// The points are numbered anew in Morton order of the root box, so that a node's points have
// nearby numbers: the side bytes a node's list entries gather, and the positions, then share
// cache lines. Sorted by the code, the input indices give each new number's point.
struct MortonKeysPass {
    const Vec3* pos;
    const BuildNode* root;
    uint32_t* keys;
    uint32_t* ids;
    CA_HD void operator()(int i) const {
        keys[i] = MortonCode(pos[i], root->box);
        ids[i] = uint32_t(i);
    }
};

// Each point's new number, and the positions in the new order.
struct RenumberPass {
    const Vec3* pos;
    const uint32_t* original;  // new number -> input index
    uint32_t* renumbered;      // input index -> new number
    Vec3* new_pos;
    CA_HD void operator()(int j) const {
        const uint32_t i = original[j];
        renumbered[i] = uint32_t(j);
        new_pos[j] = pos[i];
    }
};

struct RenumberListsPass {
    const uint32_t* renumbered;
    uint32_t* lists;
    CA_HD void operator()(int k) const { lists[k] = renumbered[lists[k]]; }
};

struct FillPass {
    uint32_t* out;
    uint32_t value;
    CA_HD void operator()(int i) const { out[i] = value; }
};

CA_HD inline uint32_t ChildKind(uint32_t count, uint32_t small_threshold) {
    return count == 0 ? kLeaf : (count <= small_threshold ? kSmallRoot : kLarge);
}

struct Sum {
    CA_HD uint32_t operator()(uint32_t a, uint32_t b) const { return a + b; }
};

// The number of points of a sorted list below x on the axis it is sorted by. The lanes share the
// search: each step probes kCount positions that cut the range into kCount + 1 parts (one lane: a
// binary search). Each probe is two dependent reads, so fewer steps is what makes it faster.
template <class Lanes>
CA_HD uint32_t FirstAtOrAbove(const Lanes& lanes, const Vec3* pos, const uint32_t* sorted, uint32_t count, int axis,
                              float x) {
    constexpr uint64_t parts = Lanes::kCount + 1;
    const auto probe = [](uint32_t lo, uint32_t width, uint64_t j) { return lo + uint32_t(width * j / parts); };
    uint32_t lo = 0, hi = count;  // the answer lies in [lo, hi]
    while (lo < hi) {
        const uint32_t base = lo, width = hi - lo;
        const uint32_t mine = probe(base, width, lanes.Lane() + 1);
        const uint32_t below = lanes.Reduce(pos[sorted[mine]][axis] < x ? 1u : 0u, Sum());
        // The probes are in order, so the first 'below' of them are below x and the rest are not.
        if (below > 0) lo = probe(base, width, below) + 1;
        if (below < Lanes::kCount) hi = probe(base, width, below + 1);
    }
    return lo;
}

// Large-node split choice: an empty-space cut when a side of the cell is more than Ce empty, else
// the spatial median of the tight box's longest axis (Zhou et al. 2008, section 3.1 and 5.1). The
// left child's size comes from the split axis's sorted list. Writes the points of the new large
// nodes (low 32 bits) and their number (high 32 bits) for the offsets scan, and a trailing zero so
// that the scan's last entry is the total.
struct DecideLargePass {
    const Vec3* pos;
    const uint32_t* lists;  // the working lists
    uint32_t m;             // their length
    float empty_space_ratio;
    float min_split_fraction;
    uint32_t max_depth;
    uint32_t small_threshold;
    uint32_t active_count;
    BuildNode* nodes;
    ActiveNode* active;
    uint64_t* counts;

    using Scratch = NoScratch;
    // The lanes share the binary searches; lane 0 writes.
    template <class Lanes>
    CA_HD void Run(const Lanes& lanes, NoScratch&, uint32_t i) const {
        const bool writes = lanes.Lane() == 0;
        if (i == active_count) {
            if (writes) counts[i] = 0;
            return;
        }
        ActiveNode& act = active[i];
        BuildNode& node = nodes[act.node];
        const Aabb box = BoxFromLists(pos, lists, m, act.work, act.count);
        const Vec3 extent = box.Extent();
        if (node.depth >= max_depth || (extent.x <= 0.0f && extent.y <= 0.0f && extent.z <= 0.0f)) {
            if (!writes) return;
            node.box = box;
            node.kind = kLeaf;  // too deep, or all points at one place: nothing to split
            act.splits = 0;
            counts[i] = 0;
            return;
        }
        int axis = -1;
        float split = 0.0f, best_ratio = empty_space_ratio;
        uint32_t left_count = 0;  // points below the split
        for (int a = 0; a < 3; ++a) {
            const float cell_extent = act.cell.hi[a] - act.cell.lo[a];
            if (!(cell_extent > 0.0f)) continue;
            const float low_ratio = (box.lo[a] - act.cell.lo[a]) / cell_extent;
            const float high_ratio = (act.cell.hi[a] - box.hi[a]) / cell_extent;
            if (low_ratio > best_ratio) {
                best_ratio = low_ratio;
                axis = a;
                split = box.lo[a];  // nothing lies below: the left child is empty
                left_count = 0;
            }
            // Everything lies below: the right is empty. Only when the left cell gets smaller: a
            // flat box (points on a wall) in a cell a few ulps wide would be cut again and again,
            // each time by nothing, down to max_depth with all its points in one leaf.
            const float above = nextafterf(box.hi[a], INFINITY);
            if (high_ratio > best_ratio && above < act.cell.hi[a]) {
                best_ratio = high_ratio;
                axis = a;
                split = above;
                left_count = act.count;
            }
        }
        if (axis < 0) {
            axis = box.LongestAxis();
            const float lo = box.lo[axis], hi = box.hi[axis];
            split = lo + 0.5f * (hi - lo);
            // Points below the plane go left; lo < split <= hi keeps both children non-empty.
            if (!(split > lo)) split = hi;
            // In a dense cluster the spatial median may cut off only a few points, and the node
            // needs many more levels; the point median of the same axis, read from its sorted
            // list, halves it instead.
            const uint32_t* sorted = lists + uint32_t(axis) * m + act.work;
            left_count = FirstAtOrAbove(lanes, pos, sorted, act.count, axis, split);
            const uint32_t fewer = left_count < act.count - left_count ? left_count : act.count - left_count;
            if (float(fewer) < min_split_fraction * float(act.count)) {
                split = pos[sorted[act.count / 2]][axis];
                // All points from the lowest up to the median share one coordinate: split above it.
                if (!(split > lo))
                    split = pos[sorted[FirstAtOrAbove(lanes, pos, sorted, act.count, axis, nextafterf(lo, INFINITY))]][axis];
                left_count = FirstAtOrAbove(lanes, pos, sorted, act.count, axis, split);
            }
        }
        if (!writes) return;
        node.box = box;
        node.kind = kInterior;
        node.axis = uint32_t(axis);
        node.split = split;
        act.splits = 1;
        act.axis = uint32_t(axis);
        act.split = split;
        act.left_count = left_count;
        uint64_t large = 0, large_points = 0;
        for (const uint32_t c : {left_count, act.count - left_count}) {
            if (ChildKind(c, small_threshold) != kLarge) continue;
            ++large;
            large_points += c;
        }
        counts[i] = large_points | (large << 32);
    }
};

// Which side each point of a splitting node goes to (by point ID): the first left_count entries
// of the node's range in the split axis's list. The split pass reads a byte per list entry here;
// comparing each entry's coordinate with the split instead (no side pass) made the 4M build 12%
// slower on an H100: the gathered points (48 MB) miss L2, the side bytes (4 MB) do not.
struct SidePass {
    const uint32_t* lists;  // the working lists
    const uint32_t* owner;
    const ActiveNode* active;
    uint32_t m;
    uint8_t* side;
    CA_HD void operator()(int i) const {
        const ActiveNode& act = active[owner[i]];
        if (!act.splits) return;
        side[lists[act.axis * m + uint32_t(i)]] = uint32_t(i) - act.work < act.left_count ? 1 : 0;
    }
};

struct EmitChildrenPass {
    const uint64_t* offsets;
    uint32_t first_new_node;
    uint32_t small_threshold;
    BuildNode* nodes;
    ActiveNode* active;
    ActiveNode* next_active;
    CA_HD void operator()(int i) const {
        ActiveNode& act = active[i];
        const uint32_t left = first_new_node + 2u * uint32_t(i);
        if (!act.splits) {
            BuildNode hole{};
            hole.kind = kHole;
            nodes[left] = hole;
            nodes[left + 1] = hole;
            return;
        }
        uint32_t work = uint32_t(offsets[i] & 0xffffffffu);
        uint32_t next = uint32_t(offsets[i] >> 32);
        BuildNode& parent = nodes[act.node];
        parent.left = left;
        for (int c = 0; c < 2; ++c) {
            BuildNode child{};
            child.begin = c == 0 ? act.begin : act.begin + act.left_count;
            child.count = c == 0 ? act.left_count : act.count - act.left_count;
            child.depth = parent.depth + 1;
            child.kind = ChildKind(child.count, small_threshold);
            nodes[left + c] = child;
            uint32_t child_active = kNone, child_work = kNone;
            if (child.kind == kLarge) {
                ActiveNode a{};
                a.node = left + c;
                a.begin = child.begin;
                a.work = child_work = work;
                a.count = child.count;
                a.cell = act.cell;
                if (c == 0) a.cell.hi[act.axis] = act.split;
                else a.cell.lo[act.axis] = act.split;
                child_active = next++;
                next_active[child_active] = a;
                work += child.count;
            }
            if (c == 0) {
                act.left_active = child_active;
                act.left_work = child_work;
            } else {
                act.right_active = child_active;
                act.right_work = child_work;
            }
        }
    }
};

// Entry j of three concatenated lists of length m: its list and its position there. Two compares,
// where a division by m (a run-time value) is a few dozen instructions, and the split pass needs it
// twice per entry.
struct ListEntry {
    uint32_t list, position;
    CA_HD ListEntry(uint32_t j, uint32_t m) : list(uint32_t(j >= m) + uint32_t(j >= 2 * m)), position(j - list * m) {}
};

// One stable split pass over the three concatenated working lists (Zhou et al. 2008, section 5.1,
// after Sengupta et al. 2007): left points first, each side in its old order. A position's rank is
// the number of left points before it in its node's range of its list
// (core/parallel_for_ranked.h). The points of children that are still large go to the next
// working lists; all others are done and go to their place in the final lists, once. So a level
// passes over the points of its active nodes only: in the last levels of a 4M-point build, a few
// percent of them.
struct SplitListsPass {
    const uint32_t* lists;  // the working lists, m entries each
    const uint32_t* owner;
    const ActiveNode* active;
    const uint8_t* side;
    const uint64_t* next_total;  // the offsets scan's total: the next working lists' length (low 32 bits)
    uint32_t m, n;
    uint32_t* next_lists;
    uint32_t* next_owner;
    uint32_t* final_lists;  // n entries each
    struct Carry {
        uint32_t point, owner;
    };
    CA_HD RankedItem Item(uint32_t j, Carry& carry) const {
        const ListEntry e(j, m);
        const uint32_t a = e.list, i = e.position;
        carry = {lists[j], owner[i]};
        const ActiveNode& act = active[carry.owner];
        if (!act.splits) return {0, false};
        // The split axis's own list needs no side: its first left_count entries go left.
        const uint32_t left = a == act.axis ? uint32_t(i - act.work < act.left_count) : side[carry.point];
        return {left, i == act.work};
    }
    CA_HD void operator()(uint32_t j, uint32_t left_before, uint32_t left, const Carry& carry) const {
        const ListEntry e(j, m);
        const uint32_t a = e.list, i = e.position;
        const ActiveNode& act = active[carry.owner];
        if (!act.splits) {  // a leaf now
            final_lists[a * n + act.begin + (i - act.work)] = carry.point;
            return;
        }
        const uint32_t rank = left ? left_before : i - act.work - left_before;
        const uint32_t child_work = left ? act.left_work : act.right_work;
        if (child_work == kNone) {
            final_lists[a * n + act.begin + (left ? 0u : act.left_count) + rank] = carry.point;
            return;
        }
        next_lists[a * uint32_t(*next_total) + child_work + rank] = carry.point;
        if (a == 0) next_owner[child_work + rank] = left ? act.left_active : act.right_active;
    }
};

struct LeafBoxPass {
    const Vec3* pos;
    const uint32_t* lists;
    uint32_t n;
    BuildNode* nodes;
    CA_HD void operator()(int i) const {
        BuildNode& node = nodes[i];
        if (node.kind == kInterior || node.kind == kHole) return;
        node.box = BoxFromLists(pos, lists, n, node.begin, node.count);
    }
};

struct SmallRootFlagPass {
    const BuildNode* nodes;
    uint8_t* flags;
    uint32_t* ids;
    CA_HD void operator()(int i) const {
        flags[i] = nodes[i].kind == kSmallRoot ? 1 : 0;
        ids[i] = uint32_t(i);
    }
};

// Each point's place in its small root's x-sorted range: the bit it owns in the root's masks.
struct LocalIndexPass {
    const BuildNode* nodes;
    const uint32_t* small_roots;
    const uint32_t* lists;
    uint8_t* local;
    CA_HD void operator()(int s) const {
        const BuildNode& root = nodes[small_roots[s]];
        for (uint32_t t = 0; t < root.count; ++t) local[lists[root.begin + t]] = uint8_t(t);
    }
};

// A split of a small node at sorted position `position` of `axis`, ranked by a total order (the
// lower VVH cost, then the lower axis, then the lower position), so that the best of a set is the
// same whichever lanes look at its members and in whatever order.
struct PointSplit {
    float cost = INFINITY;
    uint32_t axis = 3;
    uint32_t position = 0;
    CA_HD bool BetterThan(const PointSplit& o) const {
        if (cost != o.cost) return cost < o.cost;
        if (axis != o.axis) return axis < o.axis;
        return position < o.position;
    }
};

struct BetterSplit {
    CA_HD PointSplit operator()(const PointSplit& a, const PointSplit& b) const { return b.BetterThan(a) ? b : a; }
};

// A box as the keys of its corners (core/float_key.h): their min and max have the same bits in any
// order, where fminf's choice between -0 and +0 depends on the order.
struct BoxKeys {
    uint32_t lo[3], hi[3];
};

struct UniteBoxKeys {
    CA_HD BoxKeys operator()(const BoxKeys& a, const BoxKeys& b) const {
        BoxKeys u;
        for (int i = 0; i < 3; ++i) {
            u.lo[i] = b.lo[i] < a.lo[i] ? b.lo[i] : a.lo[i];
            u.hi[i] = b.hi[i] > a.hi[i] ? b.hi[i] : a.hi[i];
        }
        return u;
    }
};

// The small-node stage for one small root (Zhou et al. 2008, Algorithm 4 with the VVH of 5.1): its
// points as bits of 32-bit masks, and for each axis the masks of the points before each sorted
// position and below its coordinate, so that a candidate's left count is one popcount and a split
// is one AND. The subtree is made depth first, hence directly in preorder; Sink either counts it or
// writes it. The lanes (core/lanes.h) share the points and the candidates: the CPU takes a root per
// thread, the GPU a root per warp, where one thread per root left the GPU waiting on the slowest.
struct SmallSubtree {
    float pts[3][32];        // pts[a][t]: coordinate a of local point t
    uint32_t ids[32];
    uint8_t order[3][32];    // local points sorted by each axis
    uint32_t before[3][32];  // before[a][s]: the points at sorted positions 0 .. s-1
    uint32_t below[3][32];   // below[a][s]: the points below the coordinate at sorted position s
    uint32_t count;

    template <class Lanes>
    CA_HD void Load(const Lanes& lanes, const Vec3* pos, const uint32_t* lists, const uint8_t* local, uint32_t n,
                    uint32_t begin, uint32_t count_) {
        count = count_;
        for (uint32_t t = lanes.Lane(); t < count; t += Lanes::kCount) {
            ids[t] = lists[begin + t];
            const Vec3 p = pos[ids[t]];
            for (int a = 0; a < 3; ++a) {
                pts[a][t] = p[a];
                order[a][t] = uint8_t(a == 0 ? t : local[lists[a * n + begin + t]]);
            }
        }
        lanes.Sync();
        for (uint32_t s = lanes.Lane(); s < count; s += Lanes::kCount) {
            for (int a = 0; a < 3; ++a) {
                const float x = pts[a][order[a][s]];
                uint32_t all = 0, lower = 0;
                for (uint32_t q = 0; q < s; ++q) {
                    const uint32_t bit = 1u << order[a][q];
                    all |= bit;
                    if (pts[a][order[a][q]] < x) lower |= bit;
                }
                before[a][s] = all;
                below[a][s] = lower;
            }
        }
        lanes.Sync();
    }

    template <class Lanes>
    CA_HD Aabb MaskBox(const Lanes& lanes, uint32_t mask) const {
        BoxKeys k{{~0u, ~0u, ~0u}, {0u, 0u, 0u}};
        for (uint32_t t = lanes.Lane(); t < count; t += Lanes::kCount) {
            if (!(mask >> t & 1u)) continue;
            for (int a = 0; a < 3; ++a) {
                const uint32_t key = FloatKey(pts[a][t]);
                k.lo[a] = key < k.lo[a] ? key : k.lo[a];
                k.hi[a] = key > k.hi[a] ? key : k.hi[a];
            }
        }
        k = lanes.Reduce(k, UniteBoxKeys());
        return Aabb(Vec3(KeyFloat(k.lo[0]), KeyFloat(k.lo[1]), KeyFloat(k.lo[2])),
                    Vec3(KeyFloat(k.hi[0]), KeyFloat(k.hi[1]), KeyFloat(k.hi[2])));
    }

    // The cheapest split of mask by the VVH (cost INFINITY when there is none to try). Candidates:
    // the first point of the node at each coordinate that has some of the node below it.
    template <class Lanes>
    CA_HD PointSplit BestSplit(const Lanes& lanes, uint32_t mask, const Aabb& box, float r,
                               float cost_traversal) const {
        PointSplit best;
        const uint32_t c = PopCount(mask);
        const float volume = ExtendedVolume(box.lo, box.hi, r);
        if (c < 2 || !(volume > 0.0f)) return best;
        for (int a = 0; a < 3; ++a) {
            for (uint32_t s = lanes.Lane(); s < count; s += Lanes::kCount) {
                const uint32_t left = mask & before[a][s];
                if (!(mask >> order[a][s] & 1u) || left == 0 || left != (mask & below[a][s])) continue;
                const float x = pts[a][order[a][s]];
                Vec3 left_hi = box.hi, right_lo = box.lo;
                left_hi[a] = x;
                right_lo[a] = x;
                const uint32_t l = PopCount(left);
                PointSplit split;
                split.cost = cost_traversal + (float(l) * ExtendedVolume(box.lo, left_hi, r) +
                                               float(c - l) * ExtendedVolume(right_lo, box.hi, r)) /
                                                  volume;
                split.axis = uint32_t(a);
                split.position = s;
                if (split.BetterThan(best)) best = split;
            }
        }
        return lanes.Reduce(best, BetterSplit());
    }

    template <class Lanes, class Sink>
    CA_HD void Build(const Lanes& lanes, uint32_t begin, uint32_t depth, uint32_t max_depth, float r,
                     float cost_traversal, Sink& sink) const {
        struct Entry {
            uint32_t mask, depth, parent;  // parent: the slot whose right child this is, or kNone
        };
        Entry stack[34];
        int top = 0;
        stack[top++] = {count == 32 ? 0xffffffffu : (1u << count) - 1u, depth, kNone};
        uint32_t slot = 0, points_done = 0;
        while (top > 0) {
            const Entry e = stack[--top];
            if (e.parent != kNone) sink.SetRight(lanes, e.parent, slot);
            const Aabb box = MaskBox(lanes, e.mask);
            const uint32_t c = PopCount(e.mask);
            const NodeRange range{begin + points_done, c};
            const PointSplit best = e.depth < max_depth ? BestSplit(lanes, e.mask, box, r, cost_traversal) : PointSplit();
            if (best.cost < float(c)) {  // a leaf visits every point: cost c
                const uint32_t left = e.mask & before[best.axis][best.position];
                const float split = pts[best.axis][order[best.axis][best.position]];
                sink.Interior(lanes, slot, e.depth, int(best.axis), split, box, range);
                stack[top++] = {e.mask & ~left, e.depth + 1, slot};
                stack[top++] = {left, e.depth + 1, kNone};
            } else {
                sink.Leaf(lanes, slot, e.depth, box, range, e.mask, *this);
                points_done += c;
            }
            ++slot;
        }
    }
};

struct CountSink {
    uint32_t nodes = 0, deepest = 0;
    template <class Lanes>
    CA_HD void SetRight(const Lanes&, uint32_t, uint32_t) {}
    template <class Lanes>
    CA_HD void Interior(const Lanes&, uint32_t, uint32_t depth, int, float, const Aabb&, NodeRange) {
        Count(depth);
    }
    template <class Lanes>
    CA_HD void Leaf(const Lanes&, uint32_t, uint32_t depth, const Aabb&, NodeRange, uint32_t, const SmallSubtree&) {
        Count(depth);
    }
    CA_HD void Count(uint32_t depth) {
        ++nodes;
        deepest = depth > deepest ? depth : deepest;
    }
};

// Lane 0 writes the nodes; each lane writes its share of a leaf's points.
struct WriteSink {
    uint32_t address;
    const uint32_t* original;
    KdNode* nodes;
    Aabb* boxes;
    NodeRange* ranges;
    TreePoint* points;
    template <class Lanes>
    CA_HD void SetRight(const Lanes& lanes, uint32_t parent, uint32_t slot) {
        if (lanes.Lane() != 0) return;
        KdNode& p = nodes[address + parent];
        p = KdNode::Interior(p.Axis(), p.split, address + slot);
    }
    template <class Lanes>
    CA_HD void Interior(const Lanes& lanes, uint32_t slot, uint32_t, int axis, float split, const Aabb& box,
                        NodeRange range) {
        if (lanes.Lane() != 0) return;
        nodes[address + slot] = KdNode::Interior(axis, split, 0);
        boxes[address + slot] = box;
        ranges[address + slot] = range;
    }
    template <class Lanes>
    CA_HD void Leaf(const Lanes& lanes, uint32_t slot, uint32_t, const Aabb& box, NodeRange range, uint32_t mask,
                    const SmallSubtree& sub) {
        if (lanes.Lane() == 0) {
            nodes[address + slot] = KdNode::Leaf(range.first, range.count);
            boxes[address + slot] = box;
            ranges[address + slot] = range;
        }
        for (uint32_t t = lanes.Lane(); t < sub.count; t += Lanes::kCount) {
            if (!(mask >> t & 1u)) continue;
            const Vec3 p(sub.pts[0][t], sub.pts[1][t], sub.pts[2][t]);
            points[range.first + PopCount(mask & ((1u << t) - 1u))] = TreePoint{p, original[sub.ids[t]]};
        }
    }
};

struct SmallParams {
    const Vec3* pos;
    const uint32_t* lists;
    const uint8_t* local;
    uint32_t n;
    uint32_t max_depth;
    float radius;
    float cost_traversal;
};

struct SmallCountPass {
    SmallParams p;
    const uint32_t* small_roots;
    BuildNode* nodes;
    using Scratch = SmallSubtree;
    template <class Lanes>
    CA_HD void Run(const Lanes& lanes, SmallSubtree& sub, uint32_t s) const {
        BuildNode& root = nodes[small_roots[s]];
        sub.Load(lanes, p.pos, p.lists, p.local, p.n, root.begin, root.count);
        CountSink sink;
        sub.Build(lanes, root.begin, root.depth, p.max_depth, p.radius, p.cost_traversal, sink);
        if (lanes.Lane() != 0) return;
        root.size = sink.nodes;
        root.deepest = sink.deepest;
    }
};

struct SmallWritePass {
    SmallParams p;
    const uint32_t* original;
    const uint32_t* small_roots;
    const BuildNode* nodes;
    KdNode* out_nodes;
    Aabb* out_boxes;
    NodeRange* out_ranges;
    TreePoint* out_points;
    using Scratch = SmallSubtree;
    template <class Lanes>
    CA_HD void Run(const Lanes& lanes, SmallSubtree& sub, uint32_t s) const {
        const BuildNode& root = nodes[small_roots[s]];
        sub.Load(lanes, p.pos, p.lists, p.local, p.n, root.begin, root.count);
        WriteSink sink{root.address, original, out_nodes, out_boxes, out_ranges, out_points};
        sub.Build(lanes, root.begin, root.depth, p.max_depth, p.radius, p.cost_traversal, sink);
    }
};

// Zhou et al. 2008, Algorithm 5, UPPASS: subtree sizes (and depths) bottom-up, one level at a time.
struct UpPass {
    BuildNode* nodes;
    CA_HD void operator()(int i) const {
        BuildNode& node = nodes[i];
        if (node.kind == kInterior) {
            const BuildNode& l = nodes[node.left];
            const BuildNode& r = nodes[node.left + 1];
            node.size = 1 + l.size + r.size;
            node.deepest = l.deepest > r.deepest ? l.deepest : r.deepest;
        } else if (node.kind != kSmallRoot) {
            node.size = 1;
            node.deepest = node.depth;
        }
    }
};

// Algorithm 5, DOWNPASS: preorder addresses top-down.
struct DownPass {
    BuildNode* nodes;
    CA_HD void operator()(int i) const {
        const BuildNode& node = nodes[i];
        if (node.kind != kInterior) return;
        nodes[node.left].address = node.address + 1;
        nodes[node.left + 1].address = node.address + 1 + nodes[node.left].size;
    }
};

struct WriteLargePass {
    const BuildNode* nodes;
    KdNode* out_nodes;
    Aabb* out_boxes;
    NodeRange* out_ranges;
    CA_HD void operator()(int i) const {
        const BuildNode& node = nodes[i];
        if (node.kind == kSmallRoot || node.kind == kHole) return;  // written with its subtree, or no node
        out_nodes[node.address] = node.kind == kInterior
                                      ? KdNode::Interior(int(node.axis), node.split, nodes[node.left + 1].address)
                                      : KdNode::Leaf(node.begin, node.count);
        out_boxes[node.address] = node.box;
        out_ranges[node.address] = NodeRange{node.begin, node.count};
    }
};

// Points of large leaves in x order; the small-node stage rewrites its ranges in its leaf order.
struct PointsPass {
    const Vec3* pos;
    const uint32_t* lists;
    const uint32_t* original;
    TreePoint* out;
    CA_HD void operator()(int i) const { out[i] = TreePoint{pos[lists[i]], original[lists[i]]}; }
};

}  // namespace

struct PointTreeBuilder::Impl {
    explicit Impl(const Backend& b)
        : positions(b), original(b), final_lists(b), work{Buffer<uint32_t>(b), Buffer<uint32_t>(b)},
          owner{Buffer<uint32_t>(b), Buffer<uint32_t>(b)},
          side(b), local(b), nodes(b), active{Buffer<ActiveNode>(b), Buffer<ActiveNode>(b)},
          counts(b), level_totals(b.IsGpu() ? MemorySpace::Device : MemorySpace::Host, sizeof(uint64_t)),
          small_flags(b), node_ids(b), small_roots(b) {}
    Buffer<Vec3> positions;        // the points in Morton order
    Buffer<uint32_t> original;     // the input index of each of them
    Buffer<uint32_t> final_lists;  // three concatenated sorted point-ID lists, each node's points in place
    Buffer<uint32_t> work[2];      // the same for the active nodes' points, ping-pong (work[1] sorts the keys)
    Buffer<uint32_t> owner[2];     // the active node of each working position, ping-pong
    Buffer<uint8_t> side;          // the side of each point of a splitting node
    Buffer<uint8_t> local;
    Buffer<BuildNode> nodes;
    Buffer<ActiveNode> active[2];
    Buffer<uint64_t> counts;
    Readback level_totals;
    Buffer<uint8_t> small_flags;
    Buffer<uint32_t> node_ids;
    Buffer<uint32_t> small_roots;
    std::vector<uint32_t> level_begin;
};

PointTreeBuilder::PointTreeBuilder(const Backend& backend, PointTreeParams params)
    : backend_(backend), params_(params), gathered_(backend), impl_(std::make_unique<Impl>(backend)) {
    CA_CHECK_MSG(params.small_node_threshold >= 1 && params.small_node_threshold <= 32,
                 "small_node_threshold must be 1..32 (32-bit masks): ", params.small_node_threshold);
    CA_CHECK_MSG(params.max_depth >= 1 && params.max_depth < kMaxPointTreeDepth, "max_depth must be 1..",
                 kMaxPointTreeDepth - 1, ": ", params.max_depth);
    CA_CHECK_MSG(params.empty_space_ratio >= 0.0f, "empty_space_ratio: ", params.empty_space_ratio);
}

PointTreeBuilder::~PointTreeBuilder() = default;

namespace {

// R of the VVH when the parameters leave it to the build (see PointTreeParams::radius): the radius
// holding expected_k points at the sparsest density the set can have, spread evenly over the root
// box's largest face (a surface) or through its volume, whichever is sparser.
float DerivedRadius(const Aabb& box, uint32_t n, int expected_k) {
    const Vec3 e = box.Extent();
    const float k = float(expected_k);
    const float face = Max(e.x * e.y, Max(e.y * e.z, e.z * e.x));
    const float volume = e.x * e.y * e.z;
    float r = k * MaxComponent(e) / (2.0f * float(n));  // points on a line
    if (face > 0.0f) r = Max(r, sqrtf(k * face / (3.14159265f * float(n))));
    if (volume > 0.0f) r = Max(r, cbrtf(k * volume / (4.18879020f * float(n))));
    return Max(r, 1e-20f);
}

}  // namespace

void PointTreeBuilder::Build(Span<const Vec3> positions, PointTree& out) {
    Impl& m = *impl_;
    const Backend& b = backend_;
    const PointTreeParams& prm = params_;
    const uint32_t n = uint32_t(positions.size());
    CA_CHECK_MSG(positions.size() < (size_t(1) << 29), "too many points for the point tree: ", positions.size());
    const Vec3* input = positions.data();
    const uint32_t T = uint32_t(prm.small_node_threshold);

    if (n == 0) {  // one empty leaf
        const KdNode leaf = KdNode::Leaf(0, 0);
        const Aabb empty;
        const NodeRange range{};
        out.nodes.Upload(Span<const KdNode>(&leaf, 1));
        out.boxes.Upload(Span<const Aabb>(&empty, 1));
        out.ranges.Upload(Span<const NodeRange>(&range, 1));
        out.points.Resize(0);
        out.bounds = Aabb();
        out.max_depth = 0;
        out.radius = prm.radius > 0.0f ? prm.radius : 1e-20f;
        return;
    }

    // 1. Sorted lists.
    m.final_lists.Resize(3 * size_t(n), false);
    for (auto& w : m.work) w.Resize(3 * size_t(n), false);
    for (auto& o : m.owner) o.Resize(n, false);
    m.side.Resize(n, false);
    Buffer<uint32_t>& keys = m.work[1];
    ParallelFor(b, "point tree: sort keys", n, SortKeysPass{input, n, keys.data(), m.work[0].data()});
    for (uint32_t a = 0; a < 3; ++a)
        RadixSortPairs(b, keys.span().subspan(a * n, n), m.work[0].span().subspan(a * n, n));

    // 2. Large nodes.
    m.nodes.Resize(1, false);
    m.active[0].Resize(1, false);
    ParallelFor(b, "point tree: root", 1, RootPass{input, m.work[0].data(), n, T, m.nodes.data(), m.active[0].data()});
    m.positions.Resize(n, false);
    m.original.Resize(n, false);
    ParallelFor(b, "point tree: morton keys", n, MortonKeysPass{input, m.nodes.data(), keys.data(), m.original.data()});
    RadixSortPairs(b, keys.span().subspan(0, n), m.original.span(), 0, 30);
    uint32_t* renumbered = m.owner[1].data();  // free until the first level
    ParallelFor(b, "point tree: renumber", n, RenumberPass{input, m.original.data(), renumbered, m.positions.data()});
    ParallelFor(b, "point tree: renumber lists", 3 * size_t(n), RenumberListsPass{renumbered, m.work[0].data()});
    const Vec3* pos = m.positions.data();
    Aabb root_box;
    CopyBytes(&root_box, MemorySpace::Host, &m.nodes.data()->box, m.nodes.space(), sizeof(Aabb));
    const float radius = prm.radius > 0.0f ? prm.radius : DerivedRadius(root_box, n, prm.expected_k);

    m.level_begin.assign({0u, 1u});
    uint32_t node_count = 1;
    uint32_t active_count = n > T ? 1 : 0;
    uint32_t active_points = n;  // the length of the working lists
    int cur = 0;
    if (active_count == 0) std::swap(m.final_lists, m.work[0]);  // the root is done: its lists are final
    else ParallelFor(b, "point tree: owner", n, FillPass{m.owner[0].data(), 0});
    while (active_count > 0) {
        const uint32_t new_nodes = 2 * active_count;
        // The last level's split pass may still run and read the offsets and its active nodes:
        // let it finish before either buffer moves (only while they grow, in the first builds).
        if (m.counts.capacity() < active_count + 1 || m.active[1 - cur].capacity() < new_nodes) b.Synchronize();
        m.counts.Resize(active_count + 1, false);
        m.active[1 - cur].Resize(new_nodes, false);  // room for every child
        ActiveNode* act = m.active[cur].data();
        ParallelForLanes(b, "point tree: decide large", active_count + 1,
                         DecideLargePass{pos, m.work[cur].data(), active_points, prm.empty_space_ratio,
                                         prm.min_split_fraction, uint32_t(prm.max_depth), T, active_count,
                                         m.nodes.data(), act, m.counts.data()});
        ExclusiveScan(b, Span<const uint64_t>(m.counts.span()), m.counts.span());
        // The host sizes the next level from the scan's total, but queues the rest of this level
        // before it waits for it: the GPU then runs those passes while the host waits and wakes.
        const uint64_t* total = m.counts.data() + active_count;
        m.level_totals.Start(total, sizeof(uint64_t));
        m.nodes.Resize(node_count + new_nodes);
        ParallelFor(b, "point tree: emit children", active_count,
                    EmitChildrenPass{m.counts.data(), node_count, T, m.nodes.data(), act, m.active[1 - cur].data()});
        // One stable split pass over the three lists (Zhou et al. 2008, 5.1).
        ParallelFor(b, "point tree: sides", active_points,
                    SidePass{m.work[cur].data(), m.owner[cur].data(), act, active_points, m.side.data()});
        ParallelForRanked(b, "point tree: split lists", 3 * size_t(active_points),
                          SplitListsPass{m.work[cur].data(), m.owner[cur].data(), act, m.side.data(), total,
                                         active_points, n, m.work[1 - cur].data(), m.owner[1 - cur].data(),
                                         m.final_lists.data()});
        const uint64_t totals = m.level_totals.Wait<uint64_t>();
        cur = 1 - cur;
        node_count += new_nodes;
        m.level_begin.push_back(node_count);
        active_count = uint32_t(totals >> 32);
        active_points = uint32_t(totals & 0xffffffffu);
    }
    const uint32_t* lists = m.final_lists.data();

    // 3. Small nodes.
    ParallelFor(b, "point tree: leaf boxes", node_count, LeafBoxPass{pos, lists, n, m.nodes.data()});
    m.small_flags.Resize(node_count, false);
    m.node_ids.Resize(node_count, false);
    m.small_roots.Resize(node_count, false);
    ParallelFor(b, "point tree: small roots", node_count,
                SmallRootFlagPass{m.nodes.data(), m.small_flags.data(), m.node_ids.data()});
    const uint32_t small_count = uint32_t(Compact(b, Span<const uint32_t>(m.node_ids.span()),
                                                  Span<const uint8_t>(m.small_flags.span()), m.small_roots.span()));
    m.local.Resize(n, false);
    ParallelFor(b, "point tree: local indices", small_count,
                LocalIndexPass{m.nodes.data(), m.small_roots.data(), lists, m.local.data()});
    const SmallParams sp{pos, lists, m.local.data(), n, uint32_t(prm.max_depth), radius, prm.cost_traversal};
    ParallelForLanes(b, "point tree: small subtrees (count)", small_count,
                     SmallCountPass{sp, m.small_roots.data(), m.nodes.data()});

    // 4. Preorder output.
    ParallelForLevels(b, "point tree: up pass", m.level_begin, LevelOrder::Up, UpPass{m.nodes.data()});
    BuildNode root;
    CopyBytes(&root, MemorySpace::Host, m.nodes.data(), m.nodes.space(), sizeof(BuildNode));
    const uint32_t zero = 0;
    CopyBytes(&m.nodes.data()->address, m.nodes.space(), &zero, MemorySpace::Host, sizeof(zero));
    ParallelForLevels(b, "point tree: down pass", m.level_begin, LevelOrder::Down, DownPass{m.nodes.data()});

    out.nodes.Resize(root.size, false);
    out.boxes.Resize(root.size, false);
    out.ranges.Resize(root.size, false);
    out.points.Resize(n, false);
    ParallelFor(b, "point tree: points", n, PointsPass{pos, lists, m.original.data(), out.points.data()});
    ParallelFor(b, "point tree: write large nodes", node_count,
                WriteLargePass{m.nodes.data(), out.nodes.data(), out.boxes.data(), out.ranges.data()});
    ParallelForLanes(b, "point tree: small subtrees (write)", small_count,
                     SmallWritePass{sp, m.original.data(), m.small_roots.data(), m.nodes.data(), out.nodes.data(),
                                    out.boxes.data(), out.ranges.data(), out.points.data()});
    out.bounds = root.box;
    out.max_depth = int(root.deepest);
    out.radius = radius;
}

}  // namespace caustica
