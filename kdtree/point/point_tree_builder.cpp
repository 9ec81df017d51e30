// The point kd-tree build (Zhou et al. 2008, section 5.1) as per-item passes that run on either
// backend. A launch unit: nvcc compiles it in a CUDA build.
#include "kdtree/point/point_tree_builder.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "core/bits.h"
#include "core/error.h"
#include "core/float_key.h"
#include "core/lanes.h"
#include "core/morton.h"
#include "core/parallel_for_blocks.h"
#include "core/parallel_for_lanes.h"
#include "core/parallel_for_levels.h"
#include "core/parallel_for_ranked.h"
#include "core/primitives.h"
#include "core/readback.h"
#include "kdtree/point/point_build_node.h"
#include "kdtree/point/point_large_split.h"
#include "kdtree/point/point_medium_subtree.h"
#include "kdtree/point/point_small_subtree.h"

namespace caustica {
namespace {

using namespace point_build;

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

// A box as the keys of its corners (core/float_key.h): their min and max have the same bits in any
// order, where fminf's choice between -0 and +0 depends on the order; and they are the first and
// last of the sorted lists, as every node's box.
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

// The root box is the union of the boxes of chunks of kBoxChunk points, a warp each.
constexpr uint32_t kBoxChunk = 1024;

// The union of the boxes key(i) of items [first, end), the lanes taking neighbouring items.
template <class Lanes, class Key>
CA_HD BoxKeys UniteKeys(const Lanes& lanes, uint32_t first, uint32_t end, const Key& key) {
    BoxKeys k{{~0u, ~0u, ~0u}, {0u, 0u, 0u}};
    for (uint32_t i = first + lanes.Lane(); i < end; i += Lanes::kCount) {
        const BoxKeys one = key(i);
        k = UniteBoxKeys()(k, one);
    }
    return lanes.Reduce(k, UniteBoxKeys());
}

struct ChunkBoxPass {
    const Vec3* input;
    uint32_t n;
    BoxKeys* chunks;
    using Scratch = NoScratch;
    template <class Lanes>
    CA_HD void Run(const Lanes& lanes, NoScratch&, uint32_t c) const {
        const uint32_t end = n - c * kBoxChunk < kBoxChunk ? n : (c + 1) * kBoxChunk;
        const BoxKeys k = UniteKeys(lanes, c * kBoxChunk, end, [this](uint32_t i) {
            BoxKeys one;
            for (int a = 0; a < 3; ++a) one.lo[a] = one.hi[a] = FloatKey(input[i][a]);
            return one;
        });
        if (lanes.Lane() == 0) chunks[c] = k;
    }
};

// The root node, its box the union of the chunks' boxes (also to the host).
struct RootPass {
    const BoxKeys* chunks;
    uint32_t chunk_count;
    uint32_t n;
    uint32_t medium_max;
    BuildNode* nodes;
    Aabb* cells;
    ActiveNode* active;
    ReadbackTarget box_to_host;
    using Scratch = NoScratch;
    template <class Lanes>
    CA_HD void Run(const Lanes& lanes, NoScratch&, uint32_t) const {
        const BoxKeys k = UniteKeys(lanes, 0, chunk_count, [this](uint32_t c) { return chunks[c]; });
        if (lanes.Lane() != 0) return;
        BuildNode root{};
        root.begin = 0;
        root.count = n;
        for (int a = 0; a < 3; ++a) {
            root.box.lo[a] = KeyFloat(k.lo[a]);
            root.box.hi[a] = KeyFloat(k.hi[a]);
        }
        root.kind = n > medium_max ? kLarge : kMediumRoot;
        box_to_host.Write(root.box);
        nodes[0] = root;
        cells[0] = root.box;
        ActiveNode a{};
        a.node = 0;
        a.begin = 0;
        a.count = n;
        a.cell = root.box;
        active[0] = a;
    }
};

// The points are numbered anew in Morton order of the root box, so that a node's points have
// nearby numbers: the coordinates a node's list entries gather then share cache lines. Sorted by
// the code, the input indices give each new number's point.
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

// The coordinates of the points in their new order (new number j is input point original[j]), and
// the keys of the axis lists with the new numbers: list l's key of point j at l * n + j, l in its
// high bits and the coordinate's order-preserving key (core/float_key.h) in its low 32, so that one
// sort orders every list (a flat axis has none).
struct GatherPass {
    const Vec3* input;
    const uint32_t* original;
    uint32_t n;
    AxisLists axes;
    uint32_t listed;  // bit a: axis a has a list (is not flat)
    float* coords;    // PointCoords
    uint64_t* keys;
    uint32_t* ids;    // the lists
    CA_HD void operator()(int j) const {
        const Vec3 p = input[original[j]];
        for (int a = 0; a < 3; ++a) {
            coords[uint32_t(a) * n + uint32_t(j)] = p[a];
            if (!(listed >> a & 1u)) continue;
            const uint32_t at = axes.of[a] * n + uint32_t(j);
            keys[at] = uint64_t(axes.of[a]) << 32 | FloatKey(p[a]);
            ids[at] = uint32_t(j);
        }
        if (listed == 0) ids[j] = uint32_t(j);  // all points at one place: one list, in any order
    }
};

struct FillPass {
    uint32_t* out;
    uint32_t value;
    CA_HD void operator()(int i) const { out[i] = value; }
};

// Each active node's split (kdtree/point/point_large_split.h), a warp each on the GPU. Writes the points
// of the new large nodes (low 32 bits) and their number (high 32 bits) for the offsets scan, and a
// trailing zero so that the scan's last entry is the total.
struct DecideLargePass {
    PointCoords points;
    const uint32_t* lists;  // the working lists
    AxisLists axes;
    uint32_t m;             // their length
    LargeSplitParams params;
    uint32_t medium_max;
    uint32_t active_count;
    BuildNode* nodes;
    ActiveNode* active;
    uint64_t* counts;

    using Scratch = NoScratch;
    // The lanes share the searches; lane 0 writes.
    template <class Lanes>
    CA_HD void Run(const Lanes& lanes, NoScratch&, uint32_t i) const {
        const bool writes = lanes.Lane() == 0;
        if (i == active_count) {
            if (writes) counts[i] = 0;
            return;
        }
        ActiveNode& act = active[i];
        BuildNode& node = nodes[act.node];
        const LargeSplit d = DecideLargeSplit(lanes, GlobalLists{points, lists, axes, m, act.work}, act.count,
                                              act.cell, node.depth, params);
        if (!writes) return;
        node.box = d.box;
        node.kind = d.splits ? kInterior : kLeaf;  // a leaf: too deep, or all points at one place
        node.axis = d.axis;
        node.split = d.split;
        act.splits = d.splits ? 1 : 0;
        act.axis = d.axis;
        act.split = d.split;
        act.left_count = d.left_count;
        uint64_t large = 0, large_points = 0;
        if (d.splits) {
            for (const uint32_t c : {d.left_count, act.count - d.left_count}) {
                if (ChildKind(c, 0, medium_max) != kLarge) continue;
                ++large;
                large_points += c;
            }
        }
        counts[i] = large_points | (large << 32);
    }
};

// The children of each active node: large ones become the next level's active nodes, the others
// leaves (empty) or medium roots, whose cells are kept for their subtrees.
struct EmitChildrenPass {
    const uint64_t* offsets;
    uint32_t first_new_node;
    uint32_t medium_max;
    BuildNode* nodes;
    Aabb* cells;
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
            child.kind = ChildKind(child.count, 0, medium_max);
            nodes[left + c] = child;
            const Aabb cell = act.cell.Half(int(act.axis), act.split, c);
            if (child.kind == kMediumRoot) cells[left + c] = cell;
            uint32_t child_active = kNone, child_work = kNone;
            if (child.kind == kLarge) {
                ActiveNode a{};
                a.node = left + c;
                a.begin = child.begin;
                a.work = child_work = work;
                a.count = child.count;
                a.cell = cell;
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

// A level of at most kSmallLevelNodes active nodes in one launch, one block: the decisions (a warp
// each), the offsets scan, the children and the scan's total to the host, where three launches
// and a copy would each wait for the one before (the first levels of every build have a few nodes
// each).
constexpr uint32_t kSmallLevelNodes = 32;

struct SmallLevelPass {
    static constexpr uint32_t kThreads = 32 * kSmallLevelNodes;
    using Scratch = NoScratch;
    DecideLargePass decide;
    EmitChildrenPass children;
    ReadbackTarget total;
    template <class Block>
    CA_HD void Run(const Block& block, NoScratch& none, uint32_t) const {
        const uint32_t active = decide.active_count;
        for (uint32_t i = block.WarpIndex(); i <= active; i += Block::kWarps) decide.Run(block.Warp(), none, i);
        block.Sync();
        ExclusiveScanInRounds(block, decide.counts, decide.counts, active + 1);
        block.Sync();
        if (block.Lane() == 0) total.Write(decide.counts[active]);
        for (uint32_t i = block.Lane(); i < active; i += Block::kCount) children(int(i));
    }
};

// Entry j of (at most three) concatenated lists of length m: its list and its position there. Two
// compares, where a division by m (a run-time value) is a few dozen instructions, and the split
// pass needs it twice per entry.
struct ListEntry {
    uint32_t list, position;
    CA_HD ListEntry(uint32_t j, uint32_t m) : list(uint32_t(j >= m) + uint32_t(j >= 2 * m)), position(j - list * m) {}
};

// One stable split pass over the concatenated working lists (Zhou et al. 2008, section 5.1,
// after Sengupta et al. 2007): left points first, each side in its old order. A position's rank is
// the number of left points before it in its node's range of its list
// (core/parallel_for_ranked.h). The points of children that are still large go to the next
// working lists; all others are done and go to their place in the final lists, once. So a level
// passes over the points of its active nodes only: in the last levels of a 4M-point build, a few
// percent of them.
struct SplitListsPass {
    PointCoords points;
    const uint32_t* lists;  // the working lists, m entries each
    AxisLists axes;
    const uint32_t* owner;
    const ActiveNode* active;
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
        // The split axis's own list: its first left_count entries go left. The others compare the
        // coordinate with the split, as the split decision counted them (point_large_split.h): a
        // 4-byte gather from one axis's coordinates, which stay in L2. A side pass that wrote each
        // point's side as a byte for this cost more than it saved (H100: 1M / 4M plane builds 1.85 /
        // 5.8 ms with it, 1.75 / 5.27 without).
        const uint32_t left = a == axes.Of(int(act.axis)) ? uint32_t(i - act.work < act.left_count)
                                            : uint32_t(points.Coord(int(act.axis), carry.point) < act.split);
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

// kdtree/point/point_medium_subtree.h: the build pass, a block per breadth-first node, which the blocks
// of nodes other than medium roots leave at once (no compaction, and no wait for its count).
struct MediumBuildPass {
    static constexpr uint32_t kThreads = kMediumThreads;
    using Scratch = MediumScratch;
    MediumContext ctx;
    MediumStore store;
    template <class Block>
    CA_HD void Run(const Block& block, MediumScratch& s, uint32_t i) const {
        if (ctx.nodes[i].kind == kMediumRoot) BuildMedium(block, s, ctx, store, i);
    }
};

// The small roots' subtree sizes, a warp each.
struct SmallCountPass {
    using Scratch = SmallSubtree;
    MediumContext ctx;
    MediumStore store;
    template <class Lanes>
    CA_HD void Run(const Lanes& lanes, SmallSubtree& sub, uint32_t i) const {
        CountSmallSubtree(lanes, sub, ctx, store.nodes[store.small_roots[i]]);
    }
};

// The medium roots' sizes and their stored nodes' addresses, a block per breadth-first node.
struct MediumSizePass {
    static constexpr uint32_t kThreads = 128;
    using Scratch = MediumLevels;
    MediumContext ctx;
    MediumStore store;
    template <class Block>
    CA_HD void Run(const Block& block, MediumLevels& levels, uint32_t i) const {
        if (ctx.nodes[i].kind == kMediumRoot) SizeMedium(block, levels, ctx, store, i);
    }
};

// The write pass, a warp per stored node.
struct MediumWritePass {
    using Scratch = SmallSubtree;
    MediumContext ctx;
    MediumStore store;
    TreeWriter out;
    template <class Lanes>
    CA_HD void Run(const Lanes& lanes, SmallSubtree& sub, uint32_t i) const {
        WriteStoredNode(lanes, sub, ctx, store, out, i);
    }
};

// Zhou et al. 2008, Algorithm 5 over the large-node levels (point_build_node.h): sizes bottom-up,
// then preorder addresses top-down from the root's 0 (RootPass).
struct UpPass {
    BuildNode* nodes;
    CA_HD void operator()(int i) const { SizeSubtree(nodes, uint32_t(i)); }
};

struct DownPass {
    BuildNode* nodes;
    CA_HD void operator()(int i) const { AddressChildren(nodes, uint32_t(i)); }
};

struct WriteLargePass {
    const BuildNode* nodes;
    TreeWriter out;
    CA_HD void operator()(int i) const {
        const BuildNode& node = nodes[i];
        if (node.kind == kMediumRoot || node.kind == kHole) return;  // written with its subtree, or no node
        const KdNode written = node.kind == kInterior
                                   ? KdNode::Interior(int(node.axis), node.split, nodes[node.left + 1].address)
                                   : KdNode::Leaf(node.begin, node.count);
        out.WriteNode(node.address, written, node.box, NodeRange{node.begin, node.count});
    }
};

// The points of the large-node levels' leaves (too deep, or all at one place), in list 0's order,
// the lanes of a warp side by side; the medium subtrees write all other points.
struct LeafPointsPass {
    PointCoords points;
    const uint32_t* lists;
    const uint32_t* original;
    const BuildNode* nodes;
    TreePoint* out;
    using Scratch = NoScratch;
    template <class Lanes>
    CA_HD void Run(const Lanes& lanes, NoScratch&, uint32_t i) const {
        const BuildNode& node = nodes[i];
        if (node.kind != kLeaf) return;
        for (uint32_t t = node.begin + lanes.Lane(); t < node.begin + node.count; t += Lanes::kCount)
            out[t] = TreePoint{points.Position(lists[t]), original[lists[t]]};
    }
};

}  // namespace

struct PointTreeBuilder::Impl {
    explicit Impl(const Backend& b)
        : coords(b), box_chunks(b), original(b), final_lists(b), work{Buffer<uint32_t>(b), Buffer<uint32_t>(b)},
          axis_keys(b), owner{Buffer<uint32_t>(b), Buffer<uint32_t>(b)},
          local(b), nodes(b), cells(b), active{Buffer<ActiveNode>(b), Buffer<ActiveNode>(b)},
          counts(b), sizes(SpaceOf(b), sizeof(Aabb)),
          root_node(SpaceOf(b), sizeof(BuildNode)),
          store(b), store_roots(b), small_roots(b), store_used(b), root_levels(b) {}
    Buffer<float> coords;          // the points in Morton order (PointCoords)
    Buffer<BoxKeys> box_chunks;    // the boxes of the points' chunks, for the root box
    Buffer<uint32_t> original;     // the input index of each of them
    Buffer<uint32_t> final_lists;  // the concatenated sorted point-ID lists (AxisLists), each node's points in place
    Buffer<uint32_t> work[2];      // the same for the active nodes' points, ping-pong (work[1] sorts the Morton keys)
    Buffer<uint64_t> axis_keys;    // the axis lists' keys (GatherPass)
    Buffer<uint32_t> owner[2];     // the active node of each working position, ping-pong; before the
                                   // levels owner[1] is the Morton sort's other buffer (and may trade with original)
    Buffer<uint16_t> local;        // each point's place in its medium root's list 0
    Buffer<BuildNode> nodes;       // the large-node levels' nodes, breadth first
    Buffer<Aabb> cells;            // the cells of the medium roots among them
    Buffer<ActiveNode> active[2];
    Buffer<uint64_t> counts;
    Readback sizes;                // the root box, each level's sizes, the medium subtrees' store
    Readback root_node;            // the root after the up pass
    Buffer<BuildNode> store;         // the medium subtrees' large nodes, small roots and leaves
    Buffer<uint32_t> store_roots;    // the medium root of each
    Buffer<uint32_t> small_roots;    // the stored small roots
    Buffer<uint32_t> store_used;     // slots taken, small roots stored
    Buffer<MediumLevels> root_levels;  // by breadth-first node: a medium root's levels
    std::vector<uint32_t> level_begin;
};

PointTreeBuilder::PointTreeBuilder(const Backend& backend, PointTreeParams params)
    : backend_(backend), params_(params), gathered_(backend), impl_(std::make_unique<Impl>(backend)) {
    CA_CHECK_MSG(params.small_node_threshold >= 1 && params.small_node_threshold <= 32,
                 "small_node_threshold must be 1..32 (32-bit masks): ", params.small_node_threshold);
    CA_CHECK_MSG(params.max_depth >= 1 && params.max_depth < kMaxPointTreeDepth, "max_depth must be 1..",
                 kMaxPointTreeDepth - 1, ": ", params.max_depth);
    CA_CHECK_MSG(params.empty_space_ratio >= 0.0f, "empty_space_ratio: ", params.empty_space_ratio);
    const int medium_most = MaxMediumNodeThreshold(params.small_node_threshold);
    CA_CHECK_MSG(params.medium_node_threshold == 0 || (params.medium_node_threshold >= params.small_node_threshold &&
                                                       params.medium_node_threshold <= medium_most),
                 "medium_node_threshold must be 0 or ", params.small_node_threshold, "..", medium_most, ": ",
                 params.medium_node_threshold);
}

PointTreeBuilder::~PointTreeBuilder() = default;

namespace {

// Whether all points lie at one place on axis a: the root box's corners have the same key.
bool FlatAxis(const Aabb& box, int a) { return FloatKey(box.lo[a]) == FloatKey(box.hi[a]); }

// The lists the build keeps: one per axis that is not flat.
AxisLists AxisListsOf(const Aabb& box) {
    AxisLists axes{0, {0, 0, 0}};
    for (int a = 0; a < 3; ++a)
        if (!FlatAxis(box, a)) axes.of[a] = axes.count++;
    axes.count = std::max(axes.count, 1u);
    return axes;
}

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

    // 1. The points numbered anew in Morton order of the root box, so that a node's points have
    // nearby numbers, and their lists sorted by x, y and z (AxisLists: a flat axis has none).
    const int medium_threshold = prm.medium_node_threshold > 0 ? prm.medium_node_threshold
                                                                 : MaxMediumNodeThreshold(prm.small_node_threshold);
    const uint32_t medium_max = uint32_t(medium_threshold);
    const LargeSplitParams split_params{prm.empty_space_ratio, prm.min_split_fraction, uint32_t(prm.max_depth)};
    m.final_lists.Resize(3 * size_t(n), false);
    for (auto& w : m.work) w.Resize(3 * size_t(n), false);
    for (auto& o : m.owner) o.Resize(n, false);
    const uint32_t box_chunks = (n + kBoxChunk - 1) / kBoxChunk;
    m.box_chunks.Resize(box_chunks, false);
    m.nodes.Resize(1, false);
    m.cells.Resize(1, false);
    m.active[0].Resize(1, false);
    m.coords.Resize(3 * size_t(n), false);
    m.original.Resize(n, false);
    Buffer<uint32_t>& keys = m.work[1];
    ParallelForLanes(b, "point tree: box", box_chunks, ChunkBoxPass{input, n, m.box_chunks.data()});
    // The host needs the root box to choose the axis lists, but queues the Morton order before it
    // waits for it.
    m.sizes.StartFromPass(sizeof(Aabb), [&](const ReadbackTarget& to_host) {
        ParallelForLanes(b, "point tree: root", 1,
                         RootPass{m.box_chunks.data(), box_chunks, n, medium_max, m.nodes.data(), m.cells.data(),
                                  m.active[0].data(), to_host});
    });
    ParallelFor(b, "point tree: morton keys", n, MortonKeysPass{input, m.nodes.data(), keys.data(), m.original.data()});
    // The code's upper 24 bits (cells of 1/256 of the box a side) order the points well enough for
    // the gathers, in three of CUB's passes where all 30 took four; the third pass ends in the
    // other buffer, the owners' second (free until the levels), which then takes the first's place.
    const Span<uint32_t> numbered =
        SortValuesByKey(b, keys.span().subspan(0, n), m.original.span(), m.owner[1].span(), 6, 30);
    if (numbered.data() != m.original.data()) std::swap(m.original, m.owner[1]);
    const Aabb root_box = m.sizes.Wait<Aabb>();
    const AxisLists axes = AxisListsOf(root_box);
    uint32_t listed = 0;
    for (int a = 0; a < 3; ++a) listed |= FlatAxis(root_box, a) ? 0u : 1u << a;
    const size_t list_items = axes.count * size_t(n);
    m.axis_keys.Resize(list_items, false);
    ParallelFor(b, "point tree: gather", n,
                GatherPass{input, m.original.data(), n, axes, listed, m.coords.data(), m.axis_keys.data(),
                           m.work[0].data()});
    const PointCoords points{m.coords.data(), n};
    // All lists in one sort of five passes, where a sort a list took four each: at a frame's few
    // hundred thousand photons the launches, not the bytes, take the time
    // (docs/notes/photon-knn-performance.md). Its last pass may write the other working lists (free
    // again after the Morton sort); they then swap places rather than copy.
    if (listed != 0) {
        const int list_bits = axes.count > 1 ? int(HighestBit(axes.count - 1)) + 1 : 0;
        const Span<uint32_t> sorted = SortValuesByKey(b, m.axis_keys.span(), m.work[0].span().subspan(0, list_items),
                                                      m.work[1].span(), 0, 32 + list_bits);
        if (sorted.data() != m.work[0].data()) std::swap(m.work[0], m.work[1]);
    }
    const float radius = prm.radius > 0.0f ? prm.radius : DerivedRadius(root_box, n, prm.expected_k);

    // 2. Large nodes: those of more than medium_max points, level by level.
    m.level_begin.assign({0u, 1u});
    uint32_t node_count = 1;
    uint32_t active_count = n > medium_max ? 1 : 0;
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
        m.nodes.Resize(node_count + new_nodes);
        m.cells.Resize(node_count + new_nodes);
        ActiveNode* act = m.active[cur].data();
        const DecideLargePass decide{points,     m.work[cur].data(), axes,           active_points, split_params,
                                     medium_max, active_count,       m.nodes.data(), act,           m.counts.data()};
        const uint64_t* total = m.counts.data() + active_count;
        const EmitChildrenPass children{m.counts.data(), node_count, medium_max, m.nodes.data(), m.cells.data(), act,
                                        m.active[1 - cur].data()};
        if (active_count <= kSmallLevelNodes) {
            m.sizes.StartFromPass(sizeof(uint64_t), [&](const ReadbackTarget& to_host) {
                ParallelForBlocks(b, "point tree: small level", 1, SmallLevelPass{decide, children, to_host});
            });
        } else {
            ParallelForLanes(b, "point tree: decide large", active_count + 1, decide);
            ExclusiveScan(b, Span<const uint64_t>(m.counts.span()), m.counts.span());
            // The host sizes the next level from the scan's total, but queues the rest of this
            // level before it waits for it: the GPU then runs those passes while the host waits.
            m.sizes.Start(total, sizeof(uint64_t));
            ParallelFor(b, "point tree: emit children", active_count, children);
        }
        // One stable split pass over the lists (Zhou et al. 2008, 5.1).
        ParallelForRanked(b, "point tree: split lists", axes.count * size_t(active_points),
                          SplitListsPass{points, m.work[cur].data(), axes, m.owner[cur].data(), act, total,
                                         active_points, n, m.work[1 - cur].data(), m.owner[1 - cur].data(),
                                         m.final_lists.data()});
        const uint64_t totals = m.sizes.Wait<uint64_t>();
        cur = 1 - cur;
        node_count += new_nodes;
        m.level_begin.push_back(node_count);
        active_count = uint32_t(totals >> 32);
        active_points = uint32_t(totals & 0xffffffffu);
    }
    const uint32_t* lists = m.final_lists.data();

    // 3. Medium subtrees (kdtree/point/point_medium_subtree.h): the build pass, a block each, run again
    // with a larger store while the store runs full (in a first build, if at all); the small roots'
    // sizes, a warp each; the medium roots' sizes, a block each.
    m.local.Resize(n, false);
    m.store_used.Resize(2, false);
    // The work lists are free: they take the lists of the small roots and leaves.
    const MediumContext medium{points, lists, axes, m.nodes.data(), m.cells.data(), m.work[0].data(),
                               m.local.data(), T, split_params, radius, prm.cost_traversal};
    size_t capacity = std::max(m.store.capacity(), size_t(n / 4 + 64));
    out.points.Resize(n, false);
    m.root_levels.Resize(node_count, false);
    MediumStore store;
    uint32_t stored, small_count;
    while (true) {
        m.store.Resize(capacity, false);
        m.store_roots.Resize(capacity, false);
        m.small_roots.Resize(capacity, false);
        ParallelFor(b, "point tree: store", 2, FillPass{m.store_used.data(), 0});
        store = MediumStore{m.store.data(),      m.store_roots.data(),  m.small_roots.data(),
                            m.store_used.data(), m.root_levels.data(), uint32_t(capacity)};
        ParallelForBlocks(b, "point tree: medium subtrees", node_count, MediumBuildPass{medium, store});
        m.sizes.Start(m.store_used.data(), 2 * sizeof(uint32_t));
        const uint64_t used = m.sizes.Wait<uint64_t>();
        stored = uint32_t(used & 0xffffffffu);
        small_count = uint32_t(used >> 32);
        if (stored <= capacity) break;
        capacity = std::max(2 * capacity, size_t(stored));
    }
    ParallelForLanes(b, "point tree: small subtrees (count)", small_count, SmallCountPass{medium, store});
    ParallelForBlocks(b, "point tree: medium sizes", node_count, MediumSizePass{medium, store});

    // 4. Preorder output: the passes that need no size from the host are queued before it waits
    // for the tree's.
    ParallelForLevels(b, "point tree: up pass", m.level_begin, LevelOrder::Up, UpPass{m.nodes.data()});
    m.root_node.Start(m.nodes.data(), sizeof(BuildNode));
    ParallelForLevels(b, "point tree: down pass", m.level_begin, LevelOrder::Down, DownPass{m.nodes.data()});
    ParallelForLanes(b, "point tree: leaf points", node_count,
                     LeafPointsPass{points, lists, m.original.data(), m.nodes.data(), out.points.data()});
    const BuildNode root = m.root_node.Wait<BuildNode>();
    out.nodes.Resize(root.size, false);
    out.boxes.Resize(root.size, false);
    out.ranges.Resize(root.size, false);
    const TreeWriter writer{0, m.original.data(), out.nodes.data(), out.boxes.data(), out.ranges.data(),
                            out.points.data()};
    ParallelFor(b, "point tree: write large nodes", node_count, WriteLargePass{m.nodes.data(), writer});
    ParallelForLanes(b, "point tree: medium subtrees (write)", stored, MediumWritePass{medium, store, writer});
    out.bounds = root.box;
    out.max_depth = int(root.deepest);
    out.radius = radius;
}

}  // namespace caustica
