// The BFS SAH kd-tree builder: Zhou et al. 2008, Algorithm 1 (initialization, large-node stage,
// small-node stage, output stage), with the per-chunk atomics and warp scans of Chang et al. 2013.
//
// Host code orders the passes and owns the work lists; every per-item pass is a CA_HD functor run
// by ParallelFor on either backend, except the passes over chunks of triangles and the small-node
// stage, which use warp intrinsics on the GPU (kdtree/bfs_chunk_passes.cpp and
// kdtree/bfs_small_subtrees.cpp, with CPU twins). Each large-node level reads back one small struct
// of sizes (LevelTotals), and the output stage one more; nothing else waits for the GPU.
#include "kdtree/bfs_builder.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "core/buffer.h"
#include "core/error.h"
#include "core/memory.h"
#include "core/parallel_for.h"
#include "core/primitives.h"
#include "kdtree/bfs_build_state.h"
#include "kdtree/bfs_chunk_passes.h"
#include "kdtree/bfs_small_subtrees.h"

namespace caustica {
namespace bfs {
namespace {

// ---- Initialization ----------------------------------------------------------------------------

struct InitEntries {
    const Triangle* triangles;
    EntriesView entries;
    CA_HD void operator()(int i) const { entries.Set(uint32_t(i), uint32_t(i), TriangleBox(triangles[i])); }
};

// The root as the only active large node.
struct InitRoot {
    LargeNodesView nodes;
    RecordsView records;
    LevelTotals* totals;
    uint32_t count;
    CA_HD void operator()(int) const {
        nodes.record[0] = 0;
        nodes.begin[0] = 0;
        nodes.count[0] = count;
        nodes.count_scan[0] = 0;
        nodes.depth[0] = 0;
        nodes.useless_run[0] = 0;
        nodes.SetRegion(0, Aabb(Vec3(0.0f), Vec3(0.0f)));  // replaced by the root's box
        for (int a = 0; a < 3; ++a) {
            nodes.key[a][0] = kKeyMinIdentity;
            nodes.key[3 + a][0] = kKeyMaxIdentity;
        }
        records.kind[0] = kUndecided;
        *totals = LevelTotals{};
    }
};

// Copies n entries of a node into the small-root store sorted by triangle index (so that the
// masks, the candidate order and the leaves' index order do not depend on the order in which the
// GPU's atomics laid the entries out), and makes it small root 'root' with record 'record'.
CA_HD inline void EmitSmallRoot(const EntriesView& src, uint32_t begin, uint32_t n, uint32_t root, uint32_t first,
                                uint32_t record, int32_t depth, const Aabb& cell, const SmallRootsView& roots,
                                const RecordsView& records) {
    // Insertion sort of (triangle, entry) pairs; at most 64 of them.
    uint32_t tri[64], order[64];
    for (uint32_t j = 0; j < n; ++j) {
        const uint32_t t = src.tri[begin + j];
        uint32_t k = j;
        while (k > 0 && tri[k - 1] > t) {
            tri[k] = tri[k - 1];
            order[k] = order[k - 1];
            --k;
        }
        tri[k] = t;
        order[k] = j;
    }
    for (uint32_t j = 0; j < n; ++j) roots.store.Set(first + j, tri[j], src.Box(begin + order[j]));
    roots.first[root] = first;
    roots.count[root] = n;
    roots.record[root] = record;
    roots.depth[root] = depth;
    roots.SetRegion(root, cell);
    records.kind[record] = kSmallRoot;
    records.left[record] = root;
    records.chain[record] = 0;
}

// A scene of at most T triangles starts in the small-node stage: its root is the only small root.
struct InitSmallRoot {
    EntriesView entries;
    uint32_t count;
    RecordsView records;
    SmallRootsView roots;
    LevelTotals* totals;
    CA_HD void operator()(int) const {
        Aabb box;
        for (uint32_t i = 0; i < count; ++i) box = BoxUnion(box, entries.Box(i));
        *totals = LevelTotals{};
        for (int a = 0; a < 3; ++a) {
            totals->root_box[a] = box.lo[a];
            totals->root_box[3 + a] = box.hi[a];
        }
        EmitSmallRoot(entries, 0, count, 0, 0, 0, 0, box, roots, records);
    }
};

// ---- Large-node stage (Zhou et al. 2008, Algorithm 2) ------------------------------------------

// Makes large node i a leaf whose triangles the classify pass copies into the leaf store.
CA_HD inline void MakeStoreLeaf(const LargeLevelView& level, LevelTotals* totals, uint32_t i) {
    const uint32_t rec = level.nodes.record[i];
    level.nodes.split_axis[i] = -1;
    level.records.kind[rec] = kStoreLeaf;
    level.records.chain[rec] = 0;
    level.records.left[rec] = AtomicAdd(&totals->leaf_store_size, level.nodes.count[i]);
    level.records.right[rec] = level.nodes.count[i];
    AtomicAdd(&totals->large_leaves, 1);
}

// A split is useless when it keeps nearly every triangle on both sides (more than 90% of them
// straddle the plane): it doubles the work lists and separates nothing. A few in a row are
// allowed, since the next median may fall on another axis (long thin triangles); after
// kMaxUselessRun the node becomes a leaf, so that, say, many identical triangles end in leaves
// instead of doubling down to the depth bound. With every triangle on both sides it is a leaf at
// once.
constexpr uint32_t kMaxUselessRun = 3;
CA_HD inline bool UselessSplit(uint32_t count, uint32_t left, uint32_t right) {
    return 10 * (uint64_t(left) + right) > 19 * uint64_t(count);
}

// Chooses each node's split: empty space cut off while it exceeds Ce of the cell on a side, then
// the spatial median of the longest axis (Zhou et al. 2008, section 3.1, Fig. 2); or a leaf at the
// depth bound or for a box without extent.
struct SplitLargeNodes {
    LargeLevelView level;
    LevelTotals* totals;
    float empty_space_ratio;
    int max_depth;
    CA_HD void operator()(int ii) const {
        const uint32_t i = uint32_t(ii);
        const LargeNodesView& nodes = level.nodes;
        const RecordsView& records = level.records;
        const uint32_t rec = nodes.record[i];
        const int32_t depth = nodes.depth[i];
        Aabb tight;
        for (int a = 0; a < 3; ++a) {
            tight.lo[a] = KeyFloat(nodes.key[a][i]);
            tight.hi[a] = KeyFloat(nodes.key[3 + a][i]);
        }
        Aabb cell = nodes.Region(i);
        if (rec == 0) {  // the root's cell is its triangles' box
            cell = tight;
            for (int a = 0; a < 3; ++a) {
                totals->root_box[a] = tight.lo[a];
                totals->root_box[3 + a] = tight.hi[a];
            }
        }
        level.child_count[2 * i] = 0;
        level.child_count[2 * i + 1] = 0;
        records.chain[rec] = 0;
        AtomicMax(&totals->max_depth, uint32_t(depth));
        if (depth >= max_depth || MaxComponent(tight.Extent()) <= 0.0f) {
            MakeStoreLeaf(level, totals, i);
            return;
        }
        // Cut chains stop where the median split would pass the depth bound.
        const int budget = max_depth - 1 - depth;
        int cuts = 0;
        uint32_t chain = 0;
        Aabb cut = cell;
        for (int a = 0; a < 3; ++a) {
            const float limit = empty_space_ratio * (cell.hi[a] - cell.lo[a]);
            if (cuts < budget && tight.lo[a] - cell.lo[a] > limit) {
                records.cuts[6 * size_t(rec) + cuts] = tight.lo[a];
                chain |= uint32_t(a) << (3 + 3 * cuts);
                cut.lo[a] = tight.lo[a];
                ++cuts;
            }
            if (cuts < budget && cell.hi[a] - tight.hi[a] > limit) {
                records.cuts[6 * size_t(rec) + cuts] = tight.hi[a];
                chain |= (uint32_t(a) | 4u) << (3 + 3 * cuts);
                cut.hi[a] = tight.hi[a];
                ++cuts;
            }
        }
        const int axis = cut.LongestAxis();
        const float split = 0.5f * (cut.lo[axis] + cut.hi[axis]);
        records.kind[rec] = uint32_t(axis);
        records.split[rec] = split;
        records.chain[rec] = chain | uint32_t(cuts);
        nodes.SetRegion(i, cut);
        nodes.split_axis[i] = axis;
        nodes.split_pos[i] = split;
    }
};

// What each child of a large node (two slots per node) becomes: a next active node, a small
// root, or nothing (the children of leaves). Slots carry two 32-bit counters in one 64-bit word,
// (active | small << 32), so one scan numbers both kinds.
CA_HD inline uint64_t SlotPair(bool split, uint32_t n, uint32_t small_threshold, uint32_t value) {
    if (!split) return 0;
    return n <= small_threshold ? uint64_t(value) << 32 : uint64_t(value);
}
CA_HD inline uint32_t Low(uint64_t x) { return uint32_t(x); }
CA_HD inline uint32_t High(uint64_t x) { return uint32_t(x >> 32); }

// After the count pass: turns nodes whose split would be useless once too often into leaves,
// counts the cuts that stay, flags what each child becomes (slot_kind: 1 in its kind's half;
// slot_size: its entries in its kind's half) and clears the counters for the classify pass.
struct JudgeSplits {
    LargeLevelView level;
    LevelTotals* totals;
    uint32_t small_threshold;
    uint64_t *slot_kind, *slot_size;
    CA_HD void operator()(int ii) const {
        const uint32_t i = uint32_t(ii);
        const uint32_t left = level.child_count[2 * i], right = level.child_count[2 * i + 1];
        level.child_count[2 * i] = 0;
        level.child_count[2 * i + 1] = 0;
        bool split = level.nodes.split_axis[i] >= 0;
        const uint32_t count = level.nodes.count[i];
        if (split && UselessSplit(count, left, right) &&
            (level.nodes.useless_run[i] >= kMaxUselessRun || (left == count && right == count))) {
            MakeStoreLeaf(level, totals, i);
            split = false;
        }
        if (split) {
            const uint32_t cuts = level.records.chain[level.nodes.record[i]] & 7u;
            if (cuts > 0) AtomicAdd(&totals->empty_space_cuts, cuts);
        }
        slot_kind[2 * i] = SlotPair(split, left, small_threshold, 1);
        slot_kind[2 * i + 1] = SlotPair(split, right, small_threshold, 1);
        slot_size[2 * i] = SlotPair(split, left, small_threshold, left);
        slot_size[2 * i + 1] = SlotPair(split, right, small_threshold, right);
    }
};

// Writes the children: next active nodes and small roots (whose records follow the active ones),
// and the level's totals for the host.
struct EmitLargeChildren {
    LargeLevelView level;
    LargeNodesView next_nodes;
    SmallRootsView roots;
    LevelTotals* totals;
    uint32_t slot_count;
    const uint64_t *slot_kind, *kind_scan, *slot_size, *size_scan;
    uint32_t record_base, root_base, root_entry_base;
    CA_HD void operator()(int ss) const {
        const uint32_t s = uint32_t(ss);
        const uint32_t last = slot_count - 1;
        const uint64_t kind_total = kind_scan[last] + slot_kind[last];
        if (s == last) {
            const uint64_t size_total = size_scan[last] + slot_size[last];
            totals->next_nodes = Low(kind_total);
            totals->new_small_roots = High(kind_total);
            totals->next_entries = Low(size_total);
            totals->new_small_entries = High(size_total);
        }
        if (slot_kind[s] == 0) return;  // a leaf's child
        const LargeNodesView& nodes = level.nodes;
        const RecordsView& records = level.records;
        const uint32_t i = s >> 1;
        const int side = int(s & 1);
        const uint32_t parent = nodes.record[i];
        const int32_t depth = nodes.depth[i] + int32_t(records.chain[parent] & 7u) + 1;
        const Aabb cell = ChildCell(nodes.Region(i), nodes.split_axis[i], nodes.split_pos[i], side);
        const uint32_t begin = 2 * nodes.count_scan[i] + uint32_t(side) * nodes.count[i];
        const uint32_t n = level.child_count[s];
        uint32_t rec;
        if (Low(slot_kind[s])) {
            const uint32_t j = Low(kind_scan[s]);
            rec = record_base + j;
            next_nodes.begin[j] = begin;
            next_nodes.count[j] = n;
            next_nodes.count_scan[j] = Low(size_scan[s]);  // the active children's entries before it
            next_nodes.SetRegion(j, cell);
            for (int a = 0; a < 3; ++a) {
                next_nodes.key[a][j] = kKeyMinIdentity;
                next_nodes.key[3 + a][j] = kKeyMaxIdentity;
            }
            next_nodes.record[j] = rec;
            next_nodes.depth[j] = depth;
            const bool useless = UselessSplit(nodes.count[i], level.child_count[2 * i], level.child_count[2 * i + 1]);
            next_nodes.useless_run[j] = useless ? nodes.useless_run[i] + 1 : 0;
            records.kind[rec] = kUndecided;  // until its level decides
        } else {
            const uint32_t j = High(kind_scan[s]);
            rec = record_base + Low(kind_total) + j;
            EmitSmallRoot(level.next, begin, n, root_base + j, root_entry_base + High(size_scan[s]), rec, depth, cell,
                          roots, records);
        }
        (side == 0 ? records.left : records.right)[parent] = rec;
    }
};

// ---- Output stage (Zhou et al. 2008, Algorithm 5) ----------------------------------------------

// UpPass: subtree sizes in nodes and index-list items, children before parents. Small roots
// have theirs from the small-node stage.
struct UpPass {
    RecordsView records;
    uint32_t base;
    CA_HD void operator()(int k) const {
        const uint32_t r = base + uint32_t(k);
        const uint32_t kind = records.kind[r];
        if (kind <= kSplitZ) {
            const uint32_t cuts = records.chain[r] & 7u;
            const uint32_t l = records.left[r], rr = records.right[r];
            records.size[r] = 2 * cuts + 1 + records.size[l] + records.size[rr];
            records.items[r] = records.items[l] + records.items[rr];
        } else if (kind == kStoreLeaf) {
            records.size[r] = 1;
            records.items[r] = records.right[r];
        }
    }
};

// The tree's size for the host, and the root's place for the down pass.
struct TreeTotals {
    RecordsView records;
    LevelTotals* totals;
    CA_HD void operator()(int) const {
        totals->tree_nodes = records.size[0];
        totals->tree_items = records.items[0];
        records.address[0] = 0;
        records.offset[0] = 0;
    }
};

// DownPass: each record writes its nodes (cut chain, split, or leaf and its indices) at its address
// and gives its children theirs, parents before children. Small roots write their subtrees later
// (EmitSmallSubtrees).
struct DownPass {
    RecordsView records;
    const uint32_t* leaf_store;
    KdNode* out_nodes;
    uint32_t* out_indices;
    uint32_t base;
    CA_HD void operator()(int k) const {
        const uint32_t r = base + uint32_t(k);
        const uint32_t kind = records.kind[r];
        uint32_t a = records.address[r];
        const uint32_t offset = records.offset[r];
        if (kind == kSmallRoot) return;
        if (kind == kStoreLeaf) {
            const uint32_t first = records.left[r], n = records.right[r];
            for (uint32_t j = 0; j < n; ++j) out_indices[offset + j] = leaf_store[first + j];
            out_nodes[a] = KdNode::Leaf(offset, n);
            return;
        }
        const uint32_t chain = records.chain[r];
        const uint32_t cuts = chain & 7u;
        uint32_t rest = records.size[r];  // nodes from the current chain node on
        for (uint32_t c = 0; c < cuts; ++c) {
            const uint32_t bits = chain >> (3 + 3 * c);
            const int axis = int(bits & 3u);
            const float pos = records.cuts[6 * size_t(r) + c];
            if (bits & 4u) {  // the upper side is empty: the rest is the left child
                out_nodes[a] = KdNode::Interior(axis, pos, a + 1 + (rest - 2));
                out_nodes[a + 1 + (rest - 2)] = KdNode::Leaf(offset, 0);
                a += 1;
            } else {
                out_nodes[a] = KdNode::Interior(axis, pos, a + 2);
                out_nodes[a + 1] = KdNode::Leaf(offset, 0);
                a += 2;
            }
            rest -= 2;
        }
        const uint32_t l = records.left[r], rr = records.right[r];
        out_nodes[a] = KdNode::Interior(int(kind), records.split[r], a + 1 + records.size[l]);
        records.address[l] = a + 1;
        records.address[rr] = a + 1 + records.size[l];
        records.offset[l] = offset;
        records.offset[rr] = offset + records.items[l];
    }
};

// The record ranges of the large levels (at most max_depth + 2: every level is a depth deeper).
struct BatchList {
    static constexpr int kMax = kMaxSmallStageDepth + 2;
    uint32_t begin[kMax], end[kMax];
    int count;
};

#if defined(__CUDACC__)
// Up to this many records the GPU runs each output pass as one block that walks the levels with
// a barrier between them, instead of one launch per level.
constexpr uint32_t kOneBlockRecords = 1u << 17;
constexpr uint32_t kOneBlockThreads = 1024;

__global__ void UpPassOneBlock(RecordsView records, BatchList batches, LevelTotals* totals) {
    for (int k = batches.count - 1; k >= 0; --k) {
        const UpPass pass{records, batches.begin[k]};
        for (uint32_t i = threadIdx.x; i < batches.end[k] - batches.begin[k]; i += blockDim.x) pass(int(i));
        __syncthreads();
    }
    if (threadIdx.x == 0) TreeTotals{records, totals}(0);
}

__global__ void DownPassOneBlock(RecordsView records, BatchList batches, const uint32_t* leaf_store, KdNode* nodes,
                                 uint32_t* indices) {
    for (int k = 0; k < batches.count; ++k) {
        const DownPass pass{records, leaf_store, nodes, indices, batches.begin[k]};
        for (uint32_t i = threadIdx.x; i < batches.end[k] - batches.begin[k]; i += blockDim.x) pass(int(i));
        __syncthreads();
    }
}
#endif

// ---- Work-list storage -------------------------------------------------------------------------

template <class T>
void Grow(Buffer<T>& b, size_t n, bool keep) {
    if (b.size() < n) b.Resize(n, keep);
}

struct EntryBuffers {
    Buffer<uint32_t> tri;
    Buffer<float> box[6];
    explicit EntryBuffers(MemorySpace s) : tri(s), box{Buffer<float>(s), Buffer<float>(s), Buffer<float>(s),
                                                       Buffer<float>(s), Buffer<float>(s), Buffer<float>(s)} {}
    void Reserve(size_t n, bool keep) {
        Grow(tri, n, keep);
        for (auto& b : box) Grow(b, n, keep);
    }
    EntriesView View() {
        EntriesView v;
        v.tri = tri.data();
        for (int a = 0; a < 6; ++a) v.box[a] = box[a].data();
        return v;
    }
};

template <class T>
std::vector<Buffer<T>> MakeBuffers(MemorySpace s, int n) {
    std::vector<Buffer<T>> v;
    for (int i = 0; i < n; ++i) v.emplace_back(s);
    return v;
}

struct LargeNodeBuffers {
    std::vector<Buffer<uint32_t>> u;  // record, begin, count, count_scan, useless_run, key[6]
    std::vector<Buffer<int32_t>> s;   // depth, split_axis
    std::vector<Buffer<float>> f;     // region[6], split_pos
    explicit LargeNodeBuffers(MemorySpace sp)
        : u(MakeBuffers<uint32_t>(sp, 11)), s(MakeBuffers<int32_t>(sp, 2)), f(MakeBuffers<float>(sp, 7)) {}
    void Reserve(size_t n) {
        for (auto& b : u) Grow(b, n, false);
        for (auto& b : s) Grow(b, n, false);
        for (auto& b : f) Grow(b, n, false);
    }
    LargeNodesView View() {
        LargeNodesView v;
        v.record = u[0].data();
        v.begin = u[1].data();
        v.count = u[2].data();
        v.count_scan = u[3].data();
        v.useless_run = u[4].data();
        for (int a = 0; a < 6; ++a) v.key[a] = u[5 + a].data();
        v.depth = s[0].data();
        v.split_axis = s[1].data();
        for (int a = 0; a < 6; ++a) v.region[a] = f[a].data();
        v.split_pos = f[6].data();
        return v;
    }
};

struct RecordBuffers {
    std::vector<Buffer<uint32_t>> u;  // kind, left, right, chain, size, items, address, offset
    Buffer<float> split, cuts;
    explicit RecordBuffers(MemorySpace sp) : u(MakeBuffers<uint32_t>(sp, 8)), split(sp), cuts(sp) {}
    void Reserve(size_t n) {
        for (auto& b : u) Grow(b, n, true);
        Grow(split, n, true);
        Grow(cuts, 6 * n, true);
    }
    RecordsView View() {
        RecordsView v;
        v.kind = u[0].data();
        v.left = u[1].data();
        v.right = u[2].data();
        v.chain = u[3].data();
        v.size = u[4].data();
        v.items = u[5].data();
        v.address = u[6].data();
        v.offset = u[7].data();
        v.split = split.data();
        v.cuts = cuts.data();
        return v;
    }
};

struct SmallRootBuffers {
    std::vector<Buffer<uint32_t>> u;  // first, count, record
    Buffer<int32_t> depth;
    std::vector<Buffer<float>> region;
    EntryBuffers store;
    explicit SmallRootBuffers(MemorySpace sp)
        : u(MakeBuffers<uint32_t>(sp, 3)), depth(sp), region(MakeBuffers<float>(sp, 6)), store(sp) {}
    // Room for 'roots' roots and 'entries' store entries, keeping those already made.
    void Reserve(size_t roots, size_t entries) {
        for (auto& b : u) Grow(b, roots, true);
        Grow(depth, roots, true);
        for (auto& b : region) Grow(b, roots, true);
        store.Reserve(entries, true);
    }
    SmallRootsView View() {
        SmallRootsView v;
        v.first = u[0].data();
        v.count = u[1].data();
        v.record = u[2].data();
        v.depth = depth.data();
        for (int a = 0; a < 6; ++a) v.region[a] = region[a].data();
        v.store = store.View();
        return v;
    }
};

}  // namespace
}  // namespace bfs

using namespace bfs;

struct BfsSahBuilder::Impl {
    const Backend& backend;
    SahParams params;
    BfsBuildStats stats;
    MemorySpace space;
    EntryBuffers entries[2];
    LargeNodeBuffers large[2];
    RecordBuffers records;
    SmallRootBuffers roots;
    Buffer<uint32_t> child_count, leaf_store;
    Buffer<uint16_t> decisions;  // the small stage's decision logs
    std::vector<Buffer<uint64_t>> slots;  // slot_kind, kind_scan, slot_size, size_scan
    Buffer<LevelTotals> totals;
    std::vector<std::pair<uint32_t, uint32_t>> batches;  // record ranges of the large levels, in creation order
    const Triangle* triangles_ = nullptr;  // of the current build

    Impl(const Backend& b, const SahParams& p)
        : backend(b),
          params(p),
          space(b.IsGpu() ? MemorySpace::Device : MemorySpace::Host),
          entries{EntryBuffers(space), EntryBuffers(space)},
          large{LargeNodeBuffers(space), LargeNodeBuffers(space)},
          records(space),
          roots(space),
          child_count(space),
          leaf_store(space),
          decisions(space),
          slots(MakeBuffers<uint64_t>(space, 4)),
          totals(space) {
        totals.Resize(1);
        batches.reserve(size_t(p.max_depth) + 2);  // one batch per large level
    }

    LevelTotals ReadTotals() const {
        LevelTotals t;
        CopyBytes(&t, MemorySpace::Host, totals.data(), space, sizeof(t));
        return t;
    }

    SmallStageView SmallView(KdNode* out_nodes, uint32_t* out_indices) {
        return SmallStageView{triangles_, decisions.data(), roots.View(), records.View(), totals.data(), params.cost_traversal,
                              params.cost_intersection, params.max_depth, out_nodes, out_indices};
    }

    void Build(Span<const Triangle> triangles, SahTree& out);
    // Returns the records made and the small roots.
    void LargeStage(const Triangle* triangles, uint32_t n, uint32_t* record_count, uint32_t* root_count);
    void Output(uint32_t record_count, uint32_t root_count, SahTree& out);
};

void BfsSahBuilder::Impl::LargeStage(const Triangle* triangles, uint32_t n, uint32_t* record_count,
                                     uint32_t* root_count) {
    const uint32_t chunk = uint32_t(params.chunk_size);
    const uint32_t threshold = uint32_t(params.small_node_threshold);
    uint32_t active = 1, entry_count = n, rec_count = 1, s_roots = 0, s_entries = 0;
    int cur = 0;
    records.Reserve(1);
    large[cur].Reserve(1);
    entries[cur].Reserve(n, false);
    ParallelFor(backend, "kdtree init entries", n, InitEntries{triangles, entries[cur].View()});
    ParallelFor(backend, "kdtree init root", 1, InitRoot{large[cur].View(), records.View(), totals.data(), n});
    batches.emplace_back(0, 1);
    uint32_t leaf_store_size = 0;
    while (active > 0) {
        const int nxt = 1 - cur;
        const uint32_t slot_count = 2 * active;
        stats.large_levels++;
        stats.large_nodes += active;
        stats.peak_active_nodes = std::max<uint64_t>(stats.peak_active_nodes, active);
        stats.peak_entries = std::max<uint64_t>(stats.peak_entries, entry_count);
        // Room for this level's outputs, all bounded by twice its inputs. Buffers only grow, so a
        // rebuild of the same scene allocates nothing.
        CA_CHECK_MSG(entry_count < (uint32_t(1) << 31), entry_count, " triangle references in one level");
        entries[nxt].Reserve(2 * size_t(entry_count), false);
        large[nxt].Reserve(slot_count);
        Grow(child_count, slot_count, false);
        for (auto& b : slots) Grow(b, slot_count, false);
        Grow(leaf_store, size_t(leaf_store_size) + entry_count, true);
        records.Reserve(size_t(rec_count) + slot_count);
        roots.Reserve(size_t(s_roots) + slot_count, size_t(s_entries) + 2 * size_t(entry_count));

        LargeNodesView nodes = large[cur].View();
        LargeLevelView level{nodes, active, chunk, entries[cur].View(), entries[nxt].View(), triangles,
                             records.View(), child_count.data(), leaf_store.data()};
        const uint32_t chunk_bound = entry_count / chunk + active;
        ChunkBounds(backend, level, chunk_bound);
        ParallelFor(backend, "kdtree split large nodes", active,
                    SplitLargeNodes{level, totals.data(), params.empty_space_ratio, params.max_depth});
        ChunkCount(backend, level, chunk_bound);
        uint64_t* w[4];
        for (int k = 0; k < 4; ++k) w[k] = slots[k].data();
        ParallelFor(backend, "kdtree judge splits", active, JudgeSplits{level, totals.data(), threshold, w[0], w[2]});
        ChunkClassify(backend, level, chunk_bound);
        ExclusiveScan<uint64_t>(backend, Span<const uint64_t>(w[0], slot_count), Span<uint64_t>(w[1], slot_count));
        ExclusiveScan<uint64_t>(backend, Span<const uint64_t>(w[2], slot_count), Span<uint64_t>(w[3], slot_count));
        ParallelFor(backend, "kdtree emit children", slot_count,
                    EmitLargeChildren{level, large[nxt].View(), roots.View(), totals.data(), slot_count, w[0], w[1], w[2],
                                      w[3], rec_count, s_roots, s_entries});
        const LevelTotals t = ReadTotals();
        const uint32_t created = t.next_nodes + t.new_small_roots;
        batches.emplace_back(rec_count, rec_count + created);
        rec_count += created;
        s_roots += t.new_small_roots;
        s_entries += t.new_small_entries;
        leaf_store_size = t.leaf_store_size;
        active = t.next_nodes;
        entry_count = t.next_entries;
        cur = nxt;
    }
    *record_count = rec_count;
    *root_count = s_roots;
    stats.small_root_entries = s_entries;
}

void BfsSahBuilder::Impl::Output(uint32_t record_count, uint32_t root_count, SahTree& out) {
    RecordsView rv = records.View();
    CA_CHECK_MSG(batches.size() <= size_t(BatchList::kMax), batches.size(), " large levels");
    BatchList list{};
    list.count = int(batches.size());
    for (size_t k = 0; k < batches.size(); ++k) {
        list.begin[k] = batches[k].first;
        list.end[k] = batches[k].second;
    }
    bool one_block = false;
#if defined(__CUDACC__)
    one_block = backend.IsGpu() && record_count <= kOneBlockRecords;
    if (one_block) {
        UpPassOneBlock<<<1, kOneBlockThreads>>>(rv, list, totals.data());
        detail::CheckLaunch("kdtree up pass");
    }
#endif
    if (!one_block) {
        for (int k = list.count - 1; k >= 0; --k)
            ParallelFor(backend, "kdtree up pass", list.end[k] - list.begin[k], UpPass{rv, list.begin[k]});
        ParallelFor(backend, "kdtree tree totals", 1, TreeTotals{rv, totals.data()});
    }
    const LevelTotals t = ReadTotals();
    out.nodes.Resize(t.tree_nodes, false);
    out.indices.Resize(t.tree_items, false);
#if defined(__CUDACC__)
    if (one_block) {
        DownPassOneBlock<<<1, kOneBlockThreads>>>(rv, list, leaf_store.data(), out.nodes.data(), out.indices.data());
        detail::CheckLaunch("kdtree down pass");
    }
#endif
    if (!one_block)
        for (int k = 0; k < list.count; ++k)
            ParallelFor(backend, "kdtree down pass", list.end[k] - list.begin[k],
                        DownPass{rv, leaf_store.data(), out.nodes.data(), out.indices.data(), list.begin[k]});
    EmitSmallSubtrees(backend, SmallView(out.nodes.data(), out.indices.data()), root_count);
    out.bounds = Aabb(Vec3(t.root_box[0], t.root_box[1], t.root_box[2]), Vec3(t.root_box[3], t.root_box[4], t.root_box[5]));
    out.max_depth = int(t.max_depth);
    stats.small_roots = root_count;
    stats.small_nodes = t.small_nodes;
    stats.large_leaves = t.large_leaves;
    stats.large_leaf_items = t.leaf_store_size;
    stats.empty_space_cuts = t.empty_space_cuts;
    stats.records = record_count;
    stats.nodes = t.tree_nodes;
    stats.leaves = (t.tree_nodes + 1) / 2;
    stats.index_count = t.tree_items;
    stats.max_depth = out.max_depth;
}

void BfsSahBuilder::Impl::Build(Span<const Triangle> triangles, SahTree& out) {
    CA_CHECK_MSG(out.nodes.space() == space && out.indices.space() == space,
                 "the output tree must be in the builder's backend memory");
    CA_CHECK_MSG(triangles.size() < (size_t(1) << 30), triangles.size(), " triangles (at most 2^30)");
    stats = BfsBuildStats{};
    batches.clear();
    triangles_ = triangles.data();
    const uint32_t n = uint32_t(triangles.size());
    if (n == 0) {
        const KdNode leaf = KdNode::Leaf(0, 0);
        out.nodes.Upload(Span<const KdNode>(&leaf, 1));
        out.indices.Resize(0);
        out.bounds = Aabb();
        out.max_depth = 0;
        stats.records = stats.nodes = stats.leaves = 1;
        return;
    }
    uint32_t record_count = 1, root_count = 0;
    if (n <= uint32_t(params.small_node_threshold)) {
        // Too few triangles for the large-node stage: the root is the only small root.
        records.Reserve(1);
        entries[0].Reserve(n, false);
        roots.Reserve(1, n);
        ParallelFor(backend, "kdtree init entries", n, InitEntries{triangles.data(), entries[0].View()});
        ParallelFor(backend, "kdtree init small root", 1,
                    InitSmallRoot{entries[0].View(), n, records.View(), roots.View(), totals.data()});
        batches.emplace_back(0, 1);
        root_count = 1;
        stats.small_root_entries = n;
    } else {
        LargeStage(triangles.data(), n, &record_count, &root_count);
    }
    // The small-node stage: every small root's subtree at once, sized here and written by the
    // output stage once its place is known.
    Grow(decisions, size_t(root_count) * kSmallDecisionsPerRoot, false);
    SizeSmallSubtrees(backend, SmallView(nullptr, nullptr), root_count);
    Output(record_count, root_count, out);
}

BfsSahBuilder::BfsSahBuilder(const Backend& backend, SahParams params) {
    CA_CHECK_MSG(params.small_node_threshold >= 1 && params.small_node_threshold <= 64,
                 "small_node_threshold must be in [1, 64], not ", params.small_node_threshold);
    CA_CHECK_MSG(params.chunk_size >= 32 && params.chunk_size <= 1024 && params.chunk_size % 32 == 0,
                 "chunk_size must be a multiple of 32 in [32, 1024], not ", params.chunk_size);
    CA_CHECK_MSG(params.max_depth >= 0 && params.max_depth <= kMaxSmallStageDepth, "max_depth must be in [0, ",
                 kMaxSmallStageDepth, "], not ", params.max_depth);
    CA_CHECK_MSG(params.empty_space_ratio >= 0.0f && params.empty_space_ratio < 1.0f,
                 "empty_space_ratio must be in [0, 1), not ", params.empty_space_ratio);
    impl_ = std::make_unique<Impl>(backend, params);
}

BfsSahBuilder::~BfsSahBuilder() = default;

void BfsSahBuilder::Build(Span<const Triangle> triangles, SahTree& out) { impl_->Build(triangles, out); }

const SahParams& BfsSahBuilder::params() const { return impl_->params; }

const BfsBuildStats& BfsSahBuilder::stats() const { return impl_->stats; }

}  // namespace caustica
