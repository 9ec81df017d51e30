#include "renderer/bench/bench_kdtree.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "core/backend.h"
#include "core/buffer.h"
#include "core/error.h"
#include "core/memory.h"
#include "core/timer.h"
#include "kdtree/triangle/bfs_builder.h"
#include "kdtree/triangle/exact_sah_builder.h"
#include "kdtree/triangle/sah_cost.h"
#include "kdtree/triangle/sah_params.h"
#include "kdtree/triangle/sah_tree_copy.h"
#include "kdtree/triangle/trace_rays.h"
#include "kdtree/triangle/traversal.h"
#include "kdtree/triangle/traversal_variant.h"
#include "renderer/bench/bench_support.h"
#include "renderer/bench/generated_meshes.h"
#include "renderer/bench/ray_sets.h"
#include "renderer/bench/scene_triangles.h"
#include "renderer/cli/cli_args.h"
#include "renderer/output/json_writer.h"


namespace caustica {
namespace {

struct Options {
    std::string scene;
    int triangles = 100000;
    std::string distribution = "spread";
    std::string device = "auto";
    std::string builder = "bfs";
    bool reference = false;
    int repeat = 5;
    int rays = 1920 * 1080;
    int seed = 1;
    std::string traversal = TraversalVariantName(kDefaultTraversal);
    SahParams params;  // the limits of work in one block from the options, the rest the papers'
    std::string straddler_test = SahParams().test_small_stage_straddlers ? "on" : "off";
    double median_weight = SahParams().median_weight;
    double empty_space_area_ratio = SahParams().empty_space_area_ratio;
    double cost_traversal = SahParams().cost_traversal;
    double cost_intersection = SahParams().cost_intersection;
    std::string json;
};

// Rays of one kind in the backend's memory, traced repeatedly.
struct RayBatch {
    std::vector<Ray> host;
    Buffer<Ray> rays;
    explicit RayBatch(const Backend& backend, std::vector<Ray> r) : host(std::move(r)), rays(backend) {
        rays.Upload(Span<const Ray>(host));
    }
};

double MraysPerSecond(size_t rays, double ms) { return ms > 0 ? double(rays) / (ms * 1e3) : 0.0; }

// Closest hits and occlusion of a sample of rays by brute force on the backend: the reference.
std::vector<Hit> BruteForceHits(const Backend& backend, const std::vector<Ray>& sample,
                                const Buffer<Triangle>& triangles) {
    Buffer<Ray> rays(backend);
    rays.Upload(Span<const Ray>(sample));
    Buffer<Hit> hits(backend, sample.size());
    BruteForceClosestHits(backend, triangles.span(), rays.span(), hits.span());
    return hits.Download();
}

std::vector<uint8_t> BruteForceOccluded(const Backend& backend, const std::vector<Ray>& sample,
                                        const Buffer<Triangle>& triangles) {
    Buffer<Ray> rays(backend);
    rays.Upload(Span<const Ray>(sample));
    Buffer<uint8_t> occluded(backend, sample.size());
    BruteForceOcclusion(backend, triangles.span(), rays.span(), occluded.span());
    return occluded.Download();
}

// The rays whose closest hits differ in triangle or t.
size_t CountDifferences(const std::vector<Hit>& a, const std::vector<Hit>& b) {
    size_t differences = 0;
    for (size_t i = 0; i < a.size(); ++i)
        differences += a[i].triangle != b[i].triangle || (a[i].Valid() && a[i].t != b[i].t);
    return differences;
}

size_t CountDifferences(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
    size_t differences = 0;
    for (size_t i = 0; i < a.size(); ++i) differences += a[i] != b[i];
    return differences;
}

// Every stride-th item.
template <class T>
std::vector<T> EveryNth(const std::vector<T>& items, size_t stride) {
    std::vector<T> out;
    for (size_t i = 0; i < items.size(); i += stride) out.push_back(items[i]);
    return out;
}

// Times tracing of the batch's closest hits through tree; returns Mrays/s (median) and leaves
// the hits in hits.
double TimeClosestHits(const Backend& backend, int repeat, const SahTree& tree, const Buffer<Triangle>& triangles,
                       const RayBatch& batch, TraversalVariant traversal, Buffer<Hit>& hits) {
    hits.Resize(batch.host.size());
    const SahTreeView view = tree.View();
    const Timing t = Summarize(TimeRuns(backend, repeat, [&] {
        TraceClosestHits(backend, view, triangles.span(), batch.rays.span(), hits.span(), traversal);
    }));
    return MraysPerSecond(batch.host.size(), t.median);
}

// The mean cost of closest-hit queries through a host tree (Papay 2025's traversal steps: nodes
// read, restarts included).
struct MeanCost {
    double nodes = 0, restarts = 0;
};

MeanCost MeasureMeanCost(TraversalVariant traversal, const SahTree& host_tree, const std::vector<Triangle>& triangles,
                         const std::vector<Ray>& rays) {
    MeanCost mean;
    if (rays.empty()) return mean;
    const SahTreeView tree = host_tree.View();
    WithTraversalVariant(traversal, [&](auto variant) {
        for (const Ray& ray : rays) {
            const TraversalCost cost = MeasureClosestHit<decltype(variant)::value>(tree, triangles.data(), ray);
            mean.nodes += cost.nodes;
            mean.restarts += cost.restarts;
        }
    });
    mean.nodes /= double(rays.size());
    mean.restarts /= double(rays.size());
    return mean;
}

// A kind of closest-hit rays that every traversal traces: its rays, the sample checked against
// brute force with its reference hits, and the first traversal's hits, which the others must equal.
struct ClosestHitKind {
    explicit ClosestHitKind(RayBatch rays) : batch(std::move(rays)) {}
    RayBatch batch;
    size_t stride = 1;  // the sample is every stride-th ray
    std::vector<Ray> sample;
    std::vector<Hit> reference, first;
};

// What one traversal did with one kind of closest-hit rays.
struct KindRun {
    double mrays = 0;
    MeanCost cost;  // over the checked sample
};

// One traversal's results on the four kinds of rays.
struct TraversalRun {
    TraversalVariant variant = kDefaultTraversal;
    KindRun primary, incoherent, surface;
    double shadow_mrays = 0;
    size_t hits_checked = 0, hit_mismatches = 0;  // the samples, against brute force
    size_t rays_compared = 0, differences = 0;    // every ray, against the first traversal run
};

// "stack", "push-down", "short-stack (4)".
std::string TraversalLabel(TraversalVariant v) {
    return v == TraversalVariant::ShortStack ? Concat(TraversalVariantName(v), " (", kShortStackEntries, ")")
                                             : TraversalVariantName(v);
}

}  // namespace

int BenchKdTreeMain(const std::vector<std::string>& args) {
    Options opt;
    ArgParser parser("caustica bench kdtree",
                     "Times the triangle kd-tree: builds (median of --repeat) and primary, shadow, incoherent and "
                     "surface ray tracing, and checks a sample of hits against brute force.");
    parser.Option("--scene", "FILE", "a .obj mesh or .yaml scene to build over", &opt.scene);
    parser.Option("--triangles", "N", "without --scene: a generated scene of about N triangles",
                  &opt.triangles);
    parser.Choice("--distribution", {"spread", "coincident"},
                  "without --scene: spread: copies of a sphere or torus, each moved, turned and scaled; "
                  "coincident: copies of one box's 12 triangles in one place (shared bounds)",
                  &opt.distribution);
    parser.Choice("--device", {"auto", "cpu", "cuda"}, "where to build and trace", &opt.device);
    parser.Choice("--builder", {"bfs", "exact"}, "bfs: Zhou et al. 2008 on the device; exact: Wald-Havran on the CPU",
                  &opt.builder);
    parser.Flag("--reference", "also build the exact SAH tree (CPU) and trace the primary rays through it",
                &opt.reference);
    parser.Option("--repeat", "R", "timed repetitions of each build and trace", &opt.repeat);
    parser.Option("--rays", "N", "rays per kind (primary: a 16:9 image of about N pixels)", &opt.rays);
    parser.Option("--seed", "S", "seed of the generated scene and the random rays", &opt.seed);
    std::vector<std::string> traversal_choices;
    for (const TraversalVariant v : kTraversalVariants) traversal_choices.push_back(TraversalVariantName(v));
    traversal_choices.push_back("all");
    parser.Choice("--traversal", traversal_choices,
                  Concat("how rays walk the tree: a full stack, push-down restarts, a short stack of ",
                         kShortStackEntries, " entries with push-down restarts; all: each in turn on the same rays, "
                         "each checked (the results are equal; the renderer uses ",
                         TraversalVariantName(kDefaultTraversal), ")"),
                  &opt.traversal);
    parser.Option("--children-in-one-block", "N",
                  "the BFS build's passes after a level's split decisions run in one GPU block up to N items, and "
                  "small-node levels of up to N nodes are queued without reading their sizes back; 0: never",
                  &opt.params.children_in_one_block_max);
    parser.Option("--large-levels-in-one-block", "N",
                  "whole large levels of up to N entries run in one GPU block, one after another; 0: never",
                  &opt.params.large_levels_in_one_block_max);
    parser.Option("--small-levels-in-one-block", "N",
                  "whole small levels of up to N nodes run in one GPU block, one after another; 0: never",
                  &opt.params.small_levels_in_one_block_max);
    parser.Option("--small-node-threshold", "N",
                  "nodes of at most N triangles go to the BFS build's small-node stage, 1 to 64 (Zhou et al. 2008: 64)",
                  &opt.params.small_node_threshold);
    parser.Option("--binned-sah-max-entries", "N",
                  "large nodes of at most N entries choose their split by the SAH over their box faces, larger ones "
                  "at the spatial median; 0: always the median (Zhou et al. 2008)",
                  &opt.params.binned_sah_max_entries);
    parser.Option("--median-or-sah-max-entries", "N",
                  "larger large nodes of at most N entries, at levels of up to 2048 nodes, split at the spatial "
                  "median unless a box face's SAH cost is less than --median-weight times the median's; 0: always "
                  "the median",
                  &opt.params.median_or_sah_max_entries);
    parser.Option("--median-weight", "W", "see --median-or-sah-max-entries, in (0, 1]", &opt.median_weight);
    parser.Option("--empty-space-area-ratio", "A",
                  "empty space is cut off a side of a large node where the cut takes more than A of the node's "
                  "surface area, in [0, 1) (Zhou et al. 2008 cut a quarter of the extent: a cube's 1/6)",
                  &opt.empty_space_area_ratio);
    parser.Option("--small-stage-batch-entries", "N",
                  "the small-node stage takes its roots in batches of about N triangle references, each holding "
                  "its references' roots and boxes and their split candidates' masks (124 bytes a reference) "
                  "while it runs; at least 64",
                  &opt.params.small_stage_batch_entries);
    parser.Choice("--small-stage-straddler-test", {"on", "off"},
                  "on: the small-node stage keeps a straddling triangle only in the children it reaches (a "
                  "triangle-box test); off: in both, as Zhou et al. 2008",
                  &opt.straddler_test);
    parser.Option("--cost-traversal", "C",
                  "the SAH's cost of traversing a node, against --cost-intersection (both builders and the printed "
                  "SAH costs take them; only their ratio shapes the trees), greater than 0",
                  &opt.cost_traversal);
    parser.Option("--cost-intersection", "C", "the SAH's cost of intersecting a triangle, greater than 0",
                  &opt.cost_intersection);
    parser.Option("--json", "FILE", "also write the results as JSON", &opt.json);
    if (!parser.Parse(args)) return 0;
    opt.params.test_small_stage_straddlers = opt.straddler_test == "on";
    opt.params.median_weight = float(opt.median_weight);
    opt.params.empty_space_area_ratio = float(opt.empty_space_area_ratio);
    opt.params.cost_traversal = float(opt.cost_traversal);
    opt.params.cost_intersection = float(opt.cost_intersection);
    if (parser.Given("--scene") && (parser.Given("--triangles") || parser.Given("--distribution")))
        throw InputError("caustica bench kdtree: give --scene or --triangles/--distribution, not both");
    if (opt.repeat < 1) throw InputError("caustica bench kdtree: --repeat must be at least 1");
    if (opt.rays < 1) throw InputError("caustica bench kdtree: --rays must be at least 1");
    if (const std::string problem = SahParamsProblem(opt.params); !problem.empty())
        throw InputError("caustica bench kdtree: " + problem);
    if (opt.triangles < 1)
        throw InputError("caustica bench kdtree: --triangles must be at least 1");

    const std::optional<OutputFile> json_file = CheckJsonTarget(opt.json);
    const Backend backend = Backend::Create(opt.device);
    const bool coincident = opt.distribution == "coincident";
    const std::vector<Triangle> host_triangles =
        !opt.scene.empty() ? LoadTrianglesForBench(opt.scene)
        : coincident       ? CoincidentBoxes(size_t(opt.triangles))
                           : InstancedMeshScene(size_t(opt.triangles), uint64_t(opt.seed));
    const std::string scene_name = !opt.scene.empty() ? opt.scene
                                   : coincident       ? std::string("generated (coincident boxes)")
                                                      : Concat("generated (seed ", opt.seed, ")");
    std::printf("caustica bench kdtree: %zu triangles, %s, builder %s, device %s\n", host_triangles.size(),
                scene_name.c_str(), opt.builder.c_str(), backend.Describe().c_str());

    Buffer<Triangle> triangles(backend);
    triangles.Upload(Span<const Triangle>(host_triangles));
    const SahParams params = opt.params;

    // Build: from triangles already in the backend's memory to the final preorder tree (the exact
    // builder always works on the host and is timed there).
    SahTree tree(backend);
    SahTree host_tree(MemorySpace::Host);
    std::function<void()> build;
    std::unique_ptr<BfsSahBuilder> bfs;
    if (opt.builder == "bfs") {
        bfs = std::make_unique<BfsSahBuilder>(backend, params);
        build = [&] { bfs->Build(triangles.span(), tree); };
    }
    if (opt.builder == "exact") build = [&] { BuildExactSahTree(Span<const Triangle>(host_triangles), params, host_tree); };
    ResetPeakDeviceBytes();
    const Timing build_ms = Summarize(TimeRuns(backend, opt.repeat, build));
    const size_t peak_device_bytes = DeviceMemoryCounters().peak_device_bytes;
    if (opt.builder == "exact") CopySahTree(host_tree, tree);

    const std::vector<KdNode> nodes = tree.nodes.Download();
    const size_t leaves = size_t(std::count_if(nodes.begin(), nodes.end(), [](const KdNode& n) { return n.IsLeaf(); }));
    const double sah_cost = SahCost(tree, params);

    // Rays: a 16:9 camera image, shadow rays from its hits, random rays, rays that leave the surfaces.
    const int height = std::max(1, int(std::lround(std::sqrt(double(opt.rays) * 9.0 / 16.0))));
    const int width = std::max(1, int(std::lround(double(opt.rays) / height)));
    ClosestHitKind primary{RayBatch(backend, CameraRays(tree.bounds, width, height))};
    ClosestHitKind incoherent{RayBatch(backend, RandomRays(tree.bounds, size_t(opt.rays), uint64_t(opt.seed)))};
    ClosestHitKind surface{RayBatch(backend, SurfaceRays(host_triangles, size_t(opt.rays), uint64_t(opt.seed)))};

    // The traversals to time, and the one whose numbers stand for the run (the JSON's top-level
    // keys and the exact tree's comparison): the one asked for, or with all the renderer's.
    std::vector<TraversalVariant> variants;
    for (const TraversalVariant v : kTraversalVariants)
        if (opt.traversal == "all" || opt.traversal == TraversalVariantName(v)) variants.push_back(v);
    const TraversalVariant reported = opt.traversal == "all" ? kDefaultTraversal : variants.front();

    // Each traversal traces the same rays; the shadow rays come from the first one's primary hits.
    // A sample of each kind, sized to a fixed amount of work, is checked against brute force for
    // every traversal, and every ray against the first traversal's result. The sample's mean
    // traversal cost is measured on the host.
    const double budget = backend.IsGpu() ? 4e9 : 2e8;  // ray-triangle tests per kind
    const size_t sample = size_t(std::clamp(budget / double(host_triangles.size()), 16.0, 4096.0));
    const auto stride = [&](size_t n) { return std::max<size_t>(1, n / sample); };
    SahTree traced_host(MemorySpace::Host);
    CopySahTree(tree, traced_host);
    Buffer<Hit> hits(backend);
    Buffer<uint8_t> occluded(backend);
    std::unique_ptr<RayBatch> shadow;
    size_t ss = 0;
    std::vector<Ray> s_sample;
    std::vector<uint8_t> s_reference, first_occluded;
    std::vector<TraversalRun> runs;
    // Traces a kind with the run's traversal, checks it, and returns its hits.
    const auto trace = [&](ClosestHitKind& kind, KindRun& out, TraversalRun& run) {
        out.mrays = TimeClosestHits(backend, opt.repeat, tree, triangles, kind.batch, run.variant, hits);
        std::vector<Hit> traced = hits.Download();
        if (runs.empty()) {
            kind.stride = stride(kind.batch.host.size());
            kind.sample = EveryNth(kind.batch.host, kind.stride);
            kind.reference = BruteForceHits(backend, kind.sample, triangles);
        }
        run.hits_checked += kind.sample.size();
        run.hit_mismatches += CountDifferences(EveryNth(traced, kind.stride), kind.reference);
        out.cost = MeasureMeanCost(run.variant, traced_host, host_triangles, kind.sample);
        if (runs.empty()) {
            kind.first = traced;
        } else {
            run.rays_compared += traced.size();
            run.differences += CountDifferences(traced, kind.first);
        }
        return traced;
    };
    for (const TraversalVariant variant : variants) {
        TraversalRun run;
        run.variant = variant;
        const std::vector<Hit> primary_hits = trace(primary, run.primary, run);
        if (!shadow) {
            shadow = std::make_unique<RayBatch>(
                backend, ShadowRays(primary.batch.host, primary_hits, PointLightFor(tree.bounds)));
            ss = stride(shadow->host.size());
            s_sample = EveryNth(shadow->host, ss);
            s_reference = BruteForceOccluded(backend, s_sample, triangles);
        }
        occluded.Resize(shadow->host.size());
        const Timing shadow_ms = Summarize(TimeRuns(backend, opt.repeat, [&] {
            TraceOcclusion(backend, tree.View(), triangles.span(), shadow->rays.span(), occluded.span(), variant);
        }));
        run.shadow_mrays = MraysPerSecond(shadow->host.size(), shadow_ms.median);
        const std::vector<uint8_t> shadow_occluded = occluded.Download();
        run.hits_checked += s_sample.size();
        run.hit_mismatches += CountDifferences(EveryNth(shadow_occluded, ss), s_reference);
        if (runs.empty()) {
            first_occluded = shadow_occluded;
        } else {
            run.rays_compared += shadow_occluded.size();
            run.differences += CountDifferences(shadow_occluded, first_occluded);
        }
        trace(incoherent, run.incoherent, run);
        trace(surface, run.surface, run);
        runs.push_back(run);
    }
    size_t hits_checked = 0, hit_mismatches = 0, differences = 0;
    for (const TraversalRun& run : runs) {
        hits_checked += run.hits_checked;
        hit_mismatches += run.hit_mismatches;
        differences += run.differences;
    }
    const TraversalRun& main_run =
        *std::find_if(runs.begin(), runs.end(), [&](const TraversalRun& run) { return run.variant == reported; });

    // The exact tree over the same triangles, traced with the same primary rays on this backend.
    double reference_sah_cost = 0, reference_primary_mrays = 0, reference_build_ms = 0;
    size_t reference_nodes = 0;
    if (opt.reference) {
        SahTree reference_host(MemorySpace::Host);
        const auto start = std::chrono::steady_clock::now();
        BuildExactSahTree(Span<const Triangle>(host_triangles), params, reference_host);
        reference_build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        reference_sah_cost = SahCost(reference_host, params);
        reference_nodes = reference_host.nodes.size();
        SahTree reference(backend);
        CopySahTree(reference_host, reference);
        reference_primary_mrays =
            TimeClosestHits(backend, opt.repeat, reference, triangles, primary.batch, reported, hits);
    }

    std::printf("  %-34s %s\n", "device", backend.Describe().c_str());
    std::printf("  %-34s %zu\n", "triangles", host_triangles.size());
    std::printf("  %-34s median %.3f  min %.3f  max %.3f  (%d runs%s)\n", "build ms", build_ms.median, build_ms.min,
                build_ms.max, opt.repeat, opt.builder == "exact" ? ", exact builder on the CPU" : "");
    if (bfs) {
        const BfsBuildStats& st = bfs->stats();
        std::printf("  %-34s large-node %.3f  small-node %.3f  output %.3f  (%d + %d levels, %d small-node "
                    "batch%s, %d read-backs, last build)\n",
                    "build stages ms", st.large_stage_ms, st.small_stage_ms, st.output_ms, st.large_levels,
                    st.small_levels, st.small_batches, st.small_batches == 1 ? "" : "es", st.read_backs);
    }
    std::printf("  %-34s %zu nodes, %zu leaves, max depth %d\n", "tree", nodes.size(), leaves, tree.max_depth);
    std::printf("  %-34s %.4f\n", "SAH cost", sah_cost);
    std::printf("  %-34s %.2f MiB\n", "peak device memory (builds)", double(peak_device_bytes) / (1 << 20));
    if (bfs) {
        const double work = double(bfs->stats().work_bytes);
        std::printf("  %-34s %.2f MiB (%.0f bytes a triangle)\n", "builder's work memory", work / (1 << 20),
                    work / double(std::max<size_t>(host_triangles.size(), 1)));
    }
    std::printf("  %-34s primary %dx%d (closest hit), shadow %zu (any hit), incoherent %zu and surface %zu (closest "
                "hit)\n",
                "rays", width, height, shadow->host.size(), incoherent.batch.host.size(), surface.batch.host.size());
    // One row per traversal: Mrays/s (median), the sample's mean nodes read per closest-hit ray,
    // and the checks (with several traversals, also every ray against the first one's result).
    const bool several = runs.size() > 1;
    const std::string first = TraversalLabel(runs.front().variant);
    const std::string against_first = several ? Concat("  vs ", first, " (all rays)") : "";
    std::printf("  %-20s %9s %9s %11s %9s %16s %11s %9s %19s%s\n", "traversal", "primary", "shadow", "incoherent",
                "surface", "nodes/ray: prim.", "incoherent", "surface", "vs brute force", against_first.c_str());
    for (const TraversalRun& run : runs) {
        const std::string checked = Concat(run.hit_mismatches, " of ", run.hits_checked);
        std::string compared;
        if (several) compared = run.rays_compared ? Concat("  ", run.differences, " of ", run.rays_compared) : "  -";
        std::printf("  %-20s %9.1f %9.1f %11.1f %9.1f %16.1f %11.1f %9.1f %19s%s\n",
                    TraversalLabel(run.variant).c_str(), run.primary.mrays, run.shadow_mrays, run.incoherent.mrays,
                    run.surface.mrays, run.primary.cost.nodes, run.incoherent.cost.nodes, run.surface.cost.nodes,
                    checked.c_str(), compared.c_str());
    }
    std::printf("  %-34s %zu checked, %zu mismatches%s\n", "hits vs brute force", hits_checked, hit_mismatches,
                several ? Concat("; ", differences, " rays differ between traversals").c_str() : "");
    if (opt.reference) {
        std::printf("  %-34s %.4f (ours / exact = %.4f), %zu nodes, built in %.1f ms\n", "reference (exact) SAH cost",
                    reference_sah_cost, reference_sah_cost > 0 ? sah_cost / reference_sah_cost : 0.0, reference_nodes,
                    reference_build_ms);
        std::printf("  %-34s %.1f Mrays/s with %s (ours / exact = %.4f)\n", "reference primary",
                    reference_primary_mrays, TraversalLabel(reported).c_str(),
                    reference_primary_mrays > 0 ? main_run.primary.mrays / reference_primary_mrays : 0.0);
    }

    if (json_file) {
        JsonWriter json;
        json.BeginObject();
        json.Key("benchmark").String("kdtree");
        json.Key("commit").String(BuildCommit());
        json.Key("date").String(UtcNow());
        json.Key("device").String(backend.Describe());
        json.Key("backend").String(backend.Name());
        json.Key("builder").String(opt.builder);
        const SahParams& built = bfs ? bfs->params() : params;  // what the builder was given
        json.Key("children_in_one_block_max").Integer(built.children_in_one_block_max);
        json.Key("large_levels_in_one_block_max").Integer(built.large_levels_in_one_block_max);
        json.Key("small_levels_in_one_block_max").Integer(built.small_levels_in_one_block_max);
        json.Key("small_node_threshold").Integer(built.small_node_threshold);
        json.Key("binned_sah_max_entries").Integer(built.binned_sah_max_entries);
        json.Key("median_or_sah_max_entries").Integer(built.median_or_sah_max_entries);
        json.Key("median_weight").Number(built.median_weight);
        json.Key("empty_space_area_ratio").Number(built.empty_space_area_ratio);
        json.Key("cost_traversal").Number(built.cost_traversal);
        json.Key("cost_intersection").Number(built.cost_intersection);
        json.Key("test_small_stage_straddlers").Bool(built.test_small_stage_straddlers);
        json.Key("small_stage_batch_entries").Integer(built.small_stage_batch_entries);
        json.Key("scene").String(scene_name);
        json.Key("triangles").Integer(int64_t(host_triangles.size()));
        json.Key("repeat").Integer(opt.repeat);
        json.Key("build_ms").BeginObject();
        json.Key("median").Number(build_ms.median).Key("min").Number(build_ms.min).Key("max").Number(build_ms.max);
        json.EndObject();
        json.Key("nodes").Integer(int64_t(nodes.size()));
        json.Key("leaves").Integer(int64_t(leaves));
        json.Key("max_depth").Integer(tree.max_depth);
        json.Key("sah_cost").Number(sah_cost);
        json.Key("peak_device_bytes").Integer(int64_t(peak_device_bytes));
        if (bfs) {
            json.Key("work_bytes").Integer(int64_t(bfs->stats().work_bytes));
            json.Key("read_backs").Integer(bfs->stats().read_backs);
        }
        // The top-level rates are the reported traversal's; "traversals" has every one traced.
        json.Key("traversal").String(TraversalVariantName(reported));
        // The closest-hit kinds' keys are named after them, a run's results taken from its member.
        struct NamedKind {
            const char* name;
            const ClosestHitKind& kind;
            KindRun TraversalRun::*result;
        };
        const NamedKind named_kinds[] = {{"primary", primary, &TraversalRun::primary},
                                         {"incoherent", incoherent, &TraversalRun::incoherent},
                                         {"surface", surface, &TraversalRun::surface}};
        for (const NamedKind& k : named_kinds) {
            json.Key(Concat(k.name, "_rays")).Integer(int64_t(k.kind.batch.host.size()));
            json.Key(Concat(k.name, "_mrays_per_s")).Number((main_run.*k.result).mrays);
        }
        json.Key("shadow_rays").Integer(int64_t(shadow->host.size()));
        json.Key("shadow_mrays_per_s").Number(main_run.shadow_mrays);
        json.Key("hits_checked").Integer(int64_t(hits_checked));
        json.Key("hit_mismatches").Integer(int64_t(hit_mismatches));
        json.Key("traversal_differences").Integer(int64_t(differences));
        json.Key("traversals").BeginArray();
        for (const TraversalRun& run : runs) {
            json.BeginObject();
            json.Key("traversal").String(TraversalVariantName(run.variant));
            if (run.variant == TraversalVariant::ShortStack)
                json.Key("short_stack_entries").Integer(kShortStackEntries);
            json.Key("shadow_mrays_per_s").Number(run.shadow_mrays);
            for (const NamedKind& k : named_kinds) {
                const KindRun& result = run.*k.result;
                json.Key(Concat(k.name, "_mrays_per_s")).Number(result.mrays);
                json.Key(Concat(k.name, "_nodes_per_ray")).Number(result.cost.nodes);
                json.Key(Concat(k.name, "_restarts_per_ray")).Number(result.cost.restarts);
            }
            json.Key("hits_checked").Integer(int64_t(run.hits_checked));
            json.Key("hit_mismatches").Integer(int64_t(run.hit_mismatches));
            json.Key("rays_compared").Integer(int64_t(run.rays_compared));
            json.Key("differences").Integer(int64_t(run.differences));
            json.EndObject();
        }
        json.EndArray();
        if (opt.reference) {
            json.Key("reference_sah_cost").Number(reference_sah_cost);
            json.Key("reference_nodes").Integer(int64_t(reference_nodes));
            json.Key("reference_build_ms").Number(reference_build_ms);
            json.Key("reference_primary_mrays_per_s").Number(reference_primary_mrays);
        }
        json.EndObject();
        WriteOutputFile(*json_file, json.Text());
        std::printf("  wrote %s\n", opt.json.c_str());
    }
    return 0;
}

}  // namespace caustica
