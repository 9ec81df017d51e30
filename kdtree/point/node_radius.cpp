// Node-radius estimates (Zhou et al. 2008, Appendix A) as per-item passes on either backend. A
// launch unit.
#include "kdtree/point/node_radius.h"

#include "core/error.h"
#include "core/parallel_for.h"
#include "core/primitives.h"
#include "kdtree/point/point_queries.h"

namespace caustica {
namespace {

constexpr uint32_t kNoParent = 0xffffffffu;

struct ParentPass {
    const KdNode* nodes;
    uint32_t* parents;
    CA_HD void operator()(int i) const {
        const KdNode n = nodes[i];
        if (n.IsLeaf()) return;
        parents[i + 1] = uint32_t(i);
        parents[n.RightChild()] = uint32_t(i);
    }
};

CA_HD inline float NodeRadius(const Aabb& box) { return 0.5f * Length(box.Extent()); }

// Algorithm 7's work list: the topmost nodes under alpha * R (and leaves that stay wider), and
// nlevel - 1 levels of their descendants.
struct SelectPass {
    PointTreeView tree;
    const uint32_t* parents;
    float limit;  // alpha * R
    int levels;
    uint8_t* flags;
    uint32_t* ids;
    NodeEstimate* estimates;
    CA_HD bool Top(uint32_t i) const {
        if (tree.ranges[i].count == 0) return false;
        const float r = NodeRadius(tree.boxes[i]);
        if (!(r < limit)) return tree.nodes[i].IsLeaf();
        return parents[i] == kNoParent || !(NodeRadius(tree.boxes[parents[i]]) < limit);
    }
    CA_HD void operator()(int i) const {
        ids[i] = uint32_t(i);
        // An empty node's box has no centre; zero keeps the buffer free of NaN (whose bits differ
        // between the CPU and the GPU).
        const bool empty = tree.ranges[i].count == 0;
        estimates[i] = NodeEstimate{empty ? Vec3(0.0f) : tree.boxes[i].Center(), INFINITY};
        bool selected = false;
        if (!empty) {
            uint32_t node = uint32_t(i);
            for (int up = 0; up < levels && node != kNoParent && !selected; ++up) {
                selected = Top(node);
                node = parents[node];
            }
        }
        flags[i] = selected ? 1 : 0;
    }
};

// Ri: the k-th neighbour distance of the node's centre. Zhou et al. run Algorithm 6 from r0 = R;
// the exact KNN within the tree's own bound (EstimateStartRadius) gives the same Ri in one pass
// that reads a few hundred points, where Algorithm 6 from R took three or more passes over up to
// thousands (the counts are in docs/notes/photon-knn-performance.md).
struct EstimatePass {
    PointTreeView tree;
    const uint32_t* selected;
    KnnSettings settings;
    NodeEstimate* estimates;
    CA_HD void operator()(int s) const {
        const uint32_t i = selected[s];
        float dist2[kMaxEstimateK];
        KnnSettings bounded = settings;
        bounded.max_radius = EstimateStartRadius(tree, i, uint32_t(settings.k));
        const KnnOutcome o = ExactKnn(tree, estimates[i].centre, bounded, KnnSlot{nullptr, dist2, 1});
        estimates[i].radius = o.count == uint32_t(settings.k) ? o.radius : INFINITY;
    }
};

}  // namespace

NodeRadii::NodeRadii(const Backend& backend)
    : estimates_(backend), parents_(backend), flags_(backend), ids_(backend), selected_(backend) {}

void NodeRadii::Compute(const Backend& backend, const PointTreeView& tree, const PointTreeParams& params, int k) {
    CA_CHECK_MSG(k >= 1 && k <= kMaxEstimateK, "node radii: k must be 1..", kMaxEstimateK, ": ", k);
    CA_CHECK_MSG(params.histogram_bins >= 1 && params.histogram_bins <= kMaxHistogramBins && params.iterations >= 1,
                 "node radii: histogram_bins ", params.histogram_bins, ", iterations ", params.iterations);
    const uint32_t n = tree.node_count;
    estimates_.Resize(n, false);
    parents_.Resize(n, false);
    flags_.Resize(n, false);
    ids_.Resize(n, false);
    selected_.Resize(n, false);
    parents_.FillBytes(0xff);
    ParallelFor(backend, "node radii: parents", n, ParentPass{tree.nodes, parents_.data()});
    ParallelFor(backend, "node radii: select", n,
                SelectPass{tree, parents_.data(), params.node_radius_ratio * tree.radius, params.node_radius_levels,
                           flags_.data(), ids_.data(), estimates_.data()});
    estimated_nodes_ = uint32_t(Compact(backend, Span<const uint32_t>(ids_.span()), Span<const uint8_t>(flags_.span()),
                                        selected_.span()));
    k_ = uint32_t(k);
    KnnSettings settings;
    settings.k = k;
    settings.bins = params.histogram_bins;
    settings.iterations = params.iterations;
    ParallelFor(backend, "node radii: estimate", estimated_nodes_,
                EstimatePass{tree, selected_.data(), settings, estimates_.data()});
}

}  // namespace caustica
