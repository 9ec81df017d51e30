#include "renderer/bench/bench_photons.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <queue>

#include <nanoflann.hpp>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "core/backend.h"
#include "core/buffer.h"
#include "core/error.h"
#include "core/memory.h"
#include "core/timer.h"
#include "kdtree/point/knn_batch.h"
#include "kdtree/point/node_radius.h"
#include "kdtree/point/point_samples.h"
#include "kdtree/point/point_tree_builder.h"
#include "renderer/bench/bench_support.h"
#include "renderer/cli/cli_args.h"
#include "renderer/output/json_writer.h"

namespace caustica {
namespace {

// The exact k-th neighbour distance by brute force (a bounded max-heap of squared distances).
float BruteForceKthDistance(const std::vector<Vec3>& points, Vec3 q, int k, uint32_t* found) {
    std::priority_queue<float> heap;
    for (const Vec3& p : points) {
        const float d2 = LengthSquared(p - q);
        if (int(heap.size()) < k) heap.push(d2);
        else if (d2 < heap.top()) {
            heap.pop();
            heap.push(d2);
        }
    }
    *found = uint32_t(heap.size());
    return heap.empty() ? 0.0f : std::sqrt(heap.top());
}

// nanoflann's dataset adaptor over the same points.
struct Cloud {
    const std::vector<Vec3>* points;
    size_t kdtree_get_point_count() const { return points->size(); }
    float kdtree_get_pt(size_t i, size_t dim) const { return (*points)[i][int(dim)]; }
    template <class Box>
    bool kdtree_get_bbox(Box&) const { return false; }
};
using NanoflannTree = nanoflann::KDTreeSingleIndexAdaptor<nanoflann::L2_Simple_Adaptor<float, Cloud>, Cloud, 3, uint32_t>;

// The algorithmic work of the KNN and the node radii, counted on the host over a sample of the
// queries: what the timings cost on any device.
struct WorkReport {
    uint32_t queries = 0, estimates = 0;
    double query_nodes = 0, query_points = 0, query_passes = 0;  // means per query, tree passes
    double query_list_passes = 0, query_list_points = 0;         // candidate-list passes
    double query_candidates = 0;                                 // points within r0, mean
    double r0_ratio_mean = 0, r0_ratio_max = 0;                  // r0 / exact k-th distance
    double estimate_nodes = 0, estimate_points = 0, estimate_passes = 0;  // means per estimate
    double estimate_candidates = 0, estimate_ratio = 0;  // points within its r0, r0 / Ri (means)
};

WorkReport CountWork(const PointTreeView& tree, const NodeRadiusView& radii, const std::vector<NodeEstimate>& est,
                     const std::vector<Vec3>& queries, uint32_t sample, const KnnSettings& settings) {
    WorkReport w;
    w.queries = uint32_t(std::min<size_t>(sample, queries.size()));
    std::vector<uint32_t> indices(size_t(std::max(settings.k, 1)));
    std::vector<float> dist2(indices.size());
    const KnnSlot slot{indices.data(), dist2.data(), 1};
    for (uint32_t s = 0; s < w.queries; ++s) {
        const Vec3 q = queries[size_t(s) * queries.size() / w.queries];
        WorkCount work;
        LocalHistogram hist;
        KnnAtPoint(tree, radii, q, settings, hist, slot, work);
        w.query_nodes += double(work.nodes);
        w.query_points += double(work.points);
        w.query_passes += double(work.passes);
        w.query_list_passes += double(work.list_passes);
        w.query_list_points += double(work.list_points);
        const float r0 = EstimateRadius(tree, radii, q);
        const float kth = ExactKnn(tree, q, settings, slot).radius;
        uint32_t candidates = 0;
        if (std::isfinite(r0)) RangeSearch(tree, q, r0, [&](const TreePoint&, float) { ++candidates; });
        w.query_candidates += candidates;
        const double ratio = kth > 0.0f ? double(r0) / double(kth) : 1.0;
        w.r0_ratio_mean += ratio;
        w.r0_ratio_max = std::max(w.r0_ratio_max, ratio);
    }
    if (w.queries > 0) {
        const double n = w.queries;
        w.query_nodes /= n, w.query_points /= n, w.query_passes /= n, w.query_candidates /= n, w.r0_ratio_mean /= n;
        w.query_list_passes /= n, w.query_list_points /= n;
    }
    for (uint32_t i = 0; i < est.size(); ++i) {
        if (!(est[i].radius < INFINITY)) continue;
        WorkCount work;
        const float r0 = EstimateStartRadius(tree, i, uint32_t(settings.k));
        KnnSettings bounded = settings;
        bounded.max_radius = r0;
        ExactKnn(tree, est[i].centre, INFINITY, bounded, slot, work);
        ++w.estimates;
        uint32_t candidates = 0;
        RangeSearch(tree, est[i].centre, r0, [&](const TreePoint&, float) { ++candidates; });
        w.estimate_candidates += candidates;
        w.estimate_ratio += est[i].radius > 0.0f ? double(r0) / double(est[i].radius) : 1.0;
        w.estimate_nodes += double(work.nodes);
        w.estimate_points += double(work.points);
        w.estimate_passes += double(work.passes);
    }
    if (w.estimates > 0) {
        const double n = w.estimates;
        w.estimate_nodes /= n, w.estimate_points /= n, w.estimate_passes /= n;
        w.estimate_candidates /= n, w.estimate_ratio /= n;
    }
    return w;
}

void PrintRow(const char* name, const Timing& s) {
    std::printf("  %-26s %10.3f %10.3f %10.3f\n", name, s.median, s.min, s.max);
}

// How a KNN method's answers compare with brute force on the sampled queries.
struct KnnCheck {
    double max_error = 0.0;  // of the k-th distance, relative
    size_t count_mismatches = 0;
    void Add(const KnnCheck& o) {
        max_error = std::max(max_error, o.max_error);
        count_mismatches += o.count_mismatches;
    }
};

// A KNN method's times over the queries in coherent (0) and random (1) order.
using OrderTimings = std::array<Timing, 2>;
constexpr const char* kOrderNames[2] = {"coherent", "random"};

template <class Run>
OrderTimings TimeOrders(const Backend& backend, int repeat, Run&& run) {
    OrderTimings t;
    for (int o = 0; o < 2; ++o) t[o] = Summarize(TimeRuns(backend, repeat, [&] { run(o); }));
    return t;
}

void PrintOrders(const std::string& method, const OrderTimings& t) {
    for (int o = 0; o < 2; ++o) PrintRow((method + " " + kOrderNames[o]).c_str(), t[o]);
}

// "key": {"coherent": {..}, "random": {..}}.
void WriteOrders(JsonWriter& json, const char* key, const OrderTimings& t) {
    json.Key(key).BeginObject();
    for (int o = 0; o < 2; ++o) WriteTiming(json, kOrderNames[o], t[o]);
    json.EndObject();
}

}  // namespace

int BenchPhotonsMain(const std::vector<std::string>& args) {
    int points_count = 1000000, query_count = 1920 * 1080, k = 50, repeat = 10, seed = 1, check = 200, work_sample = 0;
    double traversal_cost = PointTreeParams().cost_traversal;
    int medium_threshold = PointTreeParams().medium_node_threshold;
    std::string distribution_name = "plane", device = "auto", json_path;
    ArgParser parser("caustica bench photons",
                     "Times the photon kd-tree build, the histogram KNN and the exact KNN, against brute force and nanoflann.");
    parser.Option("--points", "N", "photons in the tree", &points_count);
    parser.Choice("--distribution", {"uniform", "clustered", "plane", "room"},
                  "uniform in a cube, caustic-like with some depth, caustic-like on a plane, or a Cornell box's "
                  "walls with a bright spot", &distribution_name);
    parser.Option("--queries", "M", "query points (the default is one 1080p frame)", &query_count);
    parser.Option("--k", "K", "neighbours per query", &k);
    parser.Choice("--device", {"auto", "cpu", "cuda"}, "where to run", &device);
    parser.Option("--repeat", "R", "timed runs of each stage (the median is reported)", &repeat);
    parser.Option("--seed", "S", "seed of the points and queries", &seed);
    parser.Option("--check", "C", "queries checked against brute force", &check);
    parser.Option("--work", "Q", "count the work of Q coherent queries and of the node radii (cpu only)",
                  &work_sample);
    parser.Option("--traversal-cost", "C", "the VVH cost of a node visit (a point visit costs 1)", &traversal_cost);
    parser.Option("--medium-threshold", "N",
                  "nodes of at most N points are built whole, a GPU block each (0: the most a block holds)",
                  &medium_threshold);
    parser.Option("--json", "FILE", "also write the results as JSON to FILE", &json_path);
    if (!parser.Parse(args)) return 0;
    if (points_count < 0) throw InputError(Concat("--points must not be negative, got ", points_count));
    if (query_count < 0) throw InputError(Concat("--queries must not be negative, got ", query_count));
    if (k < 1 || k > kMaxEstimateK) throw InputError(Concat("--k must be 1..", kMaxEstimateK, ", got ", k));
    if (repeat < 1) throw InputError(Concat("--repeat must be at least 1, got ", repeat));
    if (check < 0) throw InputError(Concat("--check must not be negative, got ", check));
    if (!(traversal_cost > 0.0f)) throw InputError(Concat("--traversal-cost must be positive, got ", traversal_cost));
    if (work_sample < 0) throw InputError(Concat("--work must not be negative, got ", work_sample));
    const int small_threshold = PointTreeParams().small_node_threshold;
    const int most_medium = MaxMediumNodeThreshold(small_threshold);
    if (medium_threshold != 0 && (medium_threshold < small_threshold || medium_threshold > most_medium))
        throw InputError(Concat("--medium-threshold must be 0 or ", small_threshold, "..", most_medium, ", got ",
                                medium_threshold));

    PointDistribution distribution;
    ParsePointDistribution(distribution_name, &distribution);
    const std::optional<OutputFile> json_file = CheckJsonTarget(json_path);
    const Backend backend = Backend::Create(device);
    const std::vector<Vec3> points = MakePoints(distribution, uint32_t(points_count), uint64_t(seed));
    const std::vector<Vec3> orders[2] = {MakeQueries(distribution, points, uint32_t(query_count), true, uint64_t(seed)),
                                         MakeQueries(distribution, points, uint32_t(query_count), false, uint64_t(seed))};

    ResetPeakDeviceBytes();
    PointTreeParams params;
    params.expected_k = k;
    params.cost_traversal = float(traversal_cost);
    params.medium_node_threshold = medium_threshold;
    Buffer<Vec3> positions(backend);
    positions.Upload(points);
    Buffer<Vec3> queries[2] = {Buffer<Vec3>(backend), Buffer<Vec3>(backend)};
    for (int o = 0; o < 2; ++o) queries[o].Upload(orders[o]);
    PointTreeBuilder builder(backend, params);
    PointTree tree(backend);
    NodeRadii radii(backend);
    KnnResults results(backend);
    KnnSettings settings;
    settings.k = k;
    settings.bins = params.histogram_bins;
    settings.iterations = params.iterations;

    auto build = [&] { builder.Build(Span<const Vec3>(positions.span()), tree); };
    auto estimate = [&] { radii.Compute(backend, tree.View(), params, k); };
    auto knn = [&](int o) { KnnBatch(backend, tree.View(), radii.View(), Span<const Vec3>(queries[o].span()), settings, results); };
    // One warm-up frame: buffers reach their sizes, so the timed runs allocate nothing.
    build();
    estimate();
    knn(0);
    knn(1);
    backend.Synchronize();

    const Timing build_ms = Summarize(TimeRuns(backend, repeat, build));
    const Timing radii_ms = Summarize(TimeRuns(backend, repeat, estimate));
    const OrderTimings knn_ms = TimeOrders(backend, repeat, knn);
    const size_t peak_device_bytes = DeviceMemoryCounters().peak_device_bytes;

    // A spread sample of the random-order queries with their k-th distances by brute force, once;
    // each method's last run (random order) is checked against them.
    const uint32_t checked = uint32_t(std::min<size_t>(size_t(check), orders[1].size()));
    auto sampled = [&](uint32_t s) { return size_t(s) * orders[1].size() / checked; };
    std::vector<float> kth(checked);
    std::vector<uint32_t> found(checked);
    tbb::parallel_for(uint32_t(0), checked,
                      [&](uint32_t s) { kth[s] = BruteForceKthDistance(points, orders[1][sampled(s)], k, &found[s]); });
    auto check_last_run = [&] {
        const std::vector<uint32_t> counts = results.counts.Download();
        const std::vector<float> radii_out = results.radii.Download();
        KnnCheck c;
        for (uint32_t s = 0; s < checked; ++s) {
            const size_t i = sampled(s);
            c.count_mismatches += counts[i] != found[s];
            if (found[s] == uint32_t(k))
                c.max_error = std::max(c.max_error, std::fabs(double(radii_out[i]) - kth[s]) / std::max(double(kth[s]), 1e-30));
        }
        return c;
    };
    const KnnCheck knn_check = check_last_run();

    // The exact KNN (bounded priority queue) on the same device and queries, without r0 (no node
    // radii needed) and pruned by r0; it reuses the result buffers.
    KnnSettings exact_settings = settings;
    exact_settings.method = KnnMethod::Exact;
    KnnCheck exact_check;
    auto exact = [&](const NodeRadiusView& r0) {
        const OrderTimings t = TimeOrders(backend, repeat, [&](int o) {
            KnnBatch(backend, tree.View(), r0, Span<const Vec3>(queries[o].span()), exact_settings, results);
        });
        exact_check.Add(check_last_run());
        return t;
    };
    const OrderTimings exact_ms = exact(NodeRadiusView{});
    const OrderTimings exact_r0_ms = exact(radii.View());

    // nanoflann on the same points and queries, on the CPU only.
    Timing nano_build_ms;
    OrderTimings nano_knn_ms;
    const bool with_nanoflann = !backend.IsGpu() && !points.empty();
    if (with_nanoflann) {
        const Cloud cloud{&points};
        std::unique_ptr<NanoflannTree> index;
        nano_build_ms = Summarize(TimeRuns(backend, repeat, [&] {
            index = std::make_unique<NanoflannTree>(3, cloud, nanoflann::KDTreeSingleIndexAdaptorParams(10));
        }));
        nano_knn_ms = TimeOrders(backend, repeat, [&](int o) {
            const std::vector<Vec3>& q = orders[o];
            tbb::parallel_for(tbb::blocked_range<size_t>(0, q.size(), 1024), [&](const tbb::blocked_range<size_t>& r) {
                std::vector<uint32_t> idx(static_cast<size_t>(k));
                std::vector<float> d2(static_cast<size_t>(k));
                for (size_t i = r.begin(); i != r.end(); ++i) {
                    const float p[3] = {q[i].x, q[i].y, q[i].z};
                    index->knnSearch(p, size_t(k), idx.data(), d2.data());
                }
            });
        });
    }

    std::printf("caustica bench photons: %s, %d points, %d queries, k %d, %d runs\n", distribution_name.c_str(),
                points_count, query_count, k, repeat);
    std::printf("device: %s (%s), commit %s\n", backend.Name(), backend.Describe().c_str(), BuildCommit());
    std::printf("tree: %zu nodes, depth %d, R %g; %u nodes with radius estimates\n", tree.nodes.size(), tree.max_depth,
                double(tree.radius), radii.estimated_nodes());
    std::printf("  %-26s %10s %10s %10s\n", "stage (ms)", "median", "min", "max");
    PrintRow("build", build_ms);
    PrintRow("node radii", radii_ms);
    PrintOrders("knn", knn_ms);
    PrintOrders("exact knn", exact_ms);
    PrintOrders("exact knn from r0", exact_r0_ms);
    if (with_nanoflann) {
        PrintRow("nanoflann build", nano_build_ms);
        PrintOrders("nanoflann knn", nano_knn_ms);
    }
    std::printf("radius max relative error %.3g over %u queries checked against brute force (%zu wrong counts); "
                "exact knn: %.3g (%zu wrong counts)\n",
                knn_check.max_error, checked, knn_check.count_mismatches, exact_check.max_error,
                exact_check.count_mismatches);
    std::printf("peak device bytes: %zu\n", peak_device_bytes);
    std::optional<WorkReport> work;
    if (work_sample > 0) {
        if (backend.IsGpu()) throw InputError("--work counts on the host: use it with --device cpu");
        work = CountWork(tree.View(), radii.View(), radii.estimates().Download(), orders[0],
                                       uint32_t(work_sample), settings);
        const WorkReport& w = *work;
        std::printf("work per query (%u coherent queries): tree %.2f passes, %.1f nodes, %.1f points; candidate "
                    "list %.2f passes, %.1f entries; %.1f points within r0; r0 / k-th distance mean %.2f, max %.2f\n",
                    w.queries, w.query_passes, w.query_nodes, w.query_points, w.query_list_passes,
                    w.query_list_points, w.query_candidates, w.r0_ratio_mean, w.r0_ratio_max);
        std::printf("work per node estimate (%u estimates): tree %.2f passes, %.1f nodes, %.1f points; %.1f points "
                    "within r0; r0 / Ri mean %.2f\n",
                    w.estimates, w.estimate_passes, w.estimate_nodes, w.estimate_points, w.estimate_candidates,
                    w.estimate_ratio);
    }

    if (json_file) {
        JsonWriter json;
        json.BeginObject();
        json.Key("benchmark").String("photons");
        WriteBenchHeader(json, backend);
        json.Key("distribution").String(distribution_name);
        json.Key("points").Integer(points_count);
        json.Key("queries").Integer(query_count);
        json.Key("k").Integer(k);
        json.Key("repeat").Integer(repeat);
        json.Key("seed").Integer(seed);
        json.Key("tree_nodes").Integer(int64_t(tree.nodes.size()));
        json.Key("tree_depth").Integer(tree.max_depth);
        WriteTiming(json, "build_ms", build_ms);
        WriteTiming(json, "node_radii_ms", radii_ms);
        WriteOrders(json, "knn_ms", knn_ms);
        WriteOrders(json, "exact_knn_ms", exact_ms);
        WriteOrders(json, "exact_knn_r0_ms", exact_r0_ms);
        json.Key("radius_max_rel_error").Number(knn_check.max_error);
        json.Key("queries_checked").Integer(checked);
        json.Key("count_mismatches").Integer(int64_t(knn_check.count_mismatches));
        json.Key("exact_radius_max_rel_error").Number(exact_check.max_error);
        json.Key("exact_count_mismatches").Integer(int64_t(exact_check.count_mismatches));
        json.Key("peak_device_bytes").Integer(int64_t(peak_device_bytes));
        if (with_nanoflann) {
            WriteTiming(json, "nanoflann_build_ms", nano_build_ms);
            WriteOrders(json, "nanoflann_knn_ms", nano_knn_ms);
        }
        if (work) {
            json.Key("work").BeginObject();
            json.Key("queries_counted").Integer(work->queries);
            json.Key("query_tree_passes").Number(work->query_passes);
            json.Key("query_nodes").Number(work->query_nodes);
            json.Key("query_points").Number(work->query_points);
            json.Key("query_list_passes").Number(work->query_list_passes);
            json.Key("query_list_entries").Number(work->query_list_points);
            json.Key("query_points_within_r0").Number(work->query_candidates);
            json.Key("r0_ratio_mean").Number(work->r0_ratio_mean);
            json.Key("r0_ratio_max").Number(work->r0_ratio_max);
            json.Key("estimates").Integer(work->estimates);
            json.Key("estimate_nodes").Number(work->estimate_nodes);
            json.Key("estimate_points").Number(work->estimate_points);
            json.EndObject();
        }
        json.EndObject();
        WriteOutputFile(*json_file, json.Text());
    }
    // Both within Zhou et al.'s 0.1% (the tests hold the exact search to 0).
    const bool counts_right = knn_check.count_mismatches + exact_check.count_mismatches == 0;
    return counts_right && std::max(knn_check.max_error, exact_check.max_error) <= 1e-3 ? 0 : 1;
}

}  // namespace caustica
