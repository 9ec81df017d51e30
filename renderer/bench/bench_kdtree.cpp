#include "renderer/bench/bench_kdtree.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>

#include "core/backend.h"
#include "core/buffer.h"
#include "core/error.h"
#include "core/memory.h"
#include "core/timer.h"
#include "kdtree/triangle/bfs_builder.h"
#include "kdtree/triangle/exact_sah_builder.h"
#include "kdtree/triangle/sah_cost.h"
#include "kdtree/triangle/sah_tree_copy.h"
#include "kdtree/triangle/trace_rays.h"
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
    std::string device = "auto";
    std::string builder = "bfs";
    bool reference = false;
    int repeat = 5;
    int rays = 1920 * 1080;
    int seed = 1;
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

// Closest hits of a sample of rays by the tree and by brute force on the same backend; returns
// the number of rays whose triangle or t differ.
size_t CheckClosestHits(const Backend& backend, const std::vector<Ray>& sample, const std::vector<Hit>& tree_hits,
                        const Buffer<Triangle>& triangles) {
    Buffer<Ray> rays(backend);
    rays.Upload(Span<const Ray>(sample));
    Buffer<Hit> hits(backend, sample.size());
    BruteForceClosestHits(backend, triangles.span(), rays.span(), hits.span());
    const std::vector<Hit> reference = hits.Download();
    size_t mismatches = 0;
    for (size_t i = 0; i < sample.size(); ++i)
        if (reference[i].triangle != tree_hits[i].triangle || (reference[i].Valid() && reference[i].t != tree_hits[i].t))
            ++mismatches;
    return mismatches;
}

size_t CheckOcclusion(const Backend& backend, const std::vector<Ray>& sample, const std::vector<uint8_t>& tree_result,
                      const Buffer<Triangle>& triangles) {
    Buffer<Ray> rays(backend);
    rays.Upload(Span<const Ray>(sample));
    Buffer<uint8_t> occluded(backend, sample.size());
    BruteForceOcclusion(backend, triangles.span(), rays.span(), occluded.span());
    const std::vector<uint8_t> reference = occluded.Download();
    size_t mismatches = 0;
    for (size_t i = 0; i < sample.size(); ++i) mismatches += reference[i] != tree_result[i];
    return mismatches;
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
                       const RayBatch& batch, Buffer<Hit>& hits) {
    hits.Resize(batch.host.size());
    const SahTreeView view = tree.View();
    const Timing t = Summarize(TimeRuns(backend, repeat, [&] {
        TraceClosestHits(backend, view, triangles.span(), batch.rays.span(), hits.span());
    }));
    return MraysPerSecond(batch.host.size(), t.median);
}

}  // namespace

int BenchKdTreeMain(const std::vector<std::string>& args) {
    Options opt;
    ArgParser parser("caustica bench kdtree",
                     "Times the triangle kd-tree: builds (median of --repeat) and primary, shadow and incoherent "
                     "ray tracing, and checks a sample of hits against brute force.");
    parser.Option("--scene", "FILE", "a .obj mesh or .yaml scene to build over", &opt.scene);
    parser.Option("--triangles", "N", "without --scene: a generated scene of about N triangles",
                  &opt.triangles);
    parser.Choice("--device", {"auto", "cpu", "cuda"}, "where to build and trace", &opt.device);
    parser.Choice("--builder", {"bfs", "exact"}, "bfs: Zhou et al. 2008 on the device; exact: Wald-Havran on the CPU",
                  &opt.builder);
    parser.Flag("--reference", "also build the exact SAH tree (CPU) and trace the primary rays through it",
                &opt.reference);
    parser.Option("--repeat", "R", "timed repetitions of each build and trace", &opt.repeat);
    parser.Option("--rays", "N", "rays per kind (primary: a 16:9 image of about N pixels)", &opt.rays);
    parser.Option("--seed", "S", "seed of the generated scene and the random rays", &opt.seed);
    parser.Option("--json", "FILE", "also write the results as JSON", &opt.json);
    if (!parser.Parse(args)) return 0;
    if (parser.Given("--scene") && parser.Given("--triangles"))
        throw InputError("caustica bench kdtree: give --scene or --triangles, not both");
    if (opt.repeat < 1) throw InputError("caustica bench kdtree: --repeat must be at least 1");
    if (opt.rays < 1) throw InputError("caustica bench kdtree: --rays must be at least 1");
    if (opt.triangles < 1)
        throw InputError("caustica bench kdtree: --triangles must be at least 1");

    const std::optional<OutputFile> json_file = CheckJsonTarget(opt.json);
    const Backend backend = Backend::Create(opt.device);
    const std::vector<Triangle> host_triangles =
        opt.scene.empty() ? InstancedMeshScene(size_t(opt.triangles), uint64_t(opt.seed))
                          : LoadTrianglesForBench(opt.scene);
    const std::string scene_name = opt.scene.empty() ? Concat("generated (seed ", opt.seed, ")") : opt.scene;
    std::printf("caustica bench kdtree: %zu triangles, %s, builder %s, device %s\n", host_triangles.size(),
                scene_name.c_str(), opt.builder.c_str(), backend.Describe().c_str());

    Buffer<Triangle> triangles(backend);
    triangles.Upload(Span<const Triangle>(host_triangles));
    const SahParams params;

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

    // Rays: a 16:9 camera image, shadow rays from its hits, random rays.
    const int height = std::max(1, int(std::lround(std::sqrt(double(opt.rays) * 9.0 / 16.0))));
    const int width = std::max(1, int(std::lround(double(opt.rays) / height)));
    const RayBatch primary(backend, CameraRays(tree.bounds, width, height));
    const RayBatch incoherent(backend, RandomRays(tree.bounds, size_t(opt.rays), uint64_t(opt.seed)));

    Buffer<Hit> hits(backend);
    const double primary_mrays = TimeClosestHits(backend, opt.repeat, tree, triangles, primary, hits);
    const std::vector<Hit> primary_hits = hits.Download();
    const RayBatch shadow(backend, ShadowRays(primary.host, primary_hits, PointLightFor(tree.bounds)));
    Buffer<uint8_t> occluded(backend, shadow.host.size());
    const Timing shadow_ms = Summarize(TimeRuns(backend, opt.repeat, [&] {
        TraceOcclusion(backend, tree.View(), triangles.span(), shadow.rays.span(), occluded.span());
    }));
    const double shadow_mrays = MraysPerSecond(shadow.host.size(), shadow_ms.median);
    const std::vector<uint8_t> shadow_occluded = occluded.Download();
    const double incoherent_mrays = TimeClosestHits(backend, opt.repeat, tree, triangles, incoherent, hits);
    const std::vector<Hit> incoherent_hits = hits.Download();

    // Brute-force check of a sample of each kind, sized to a fixed amount of work.
    const double budget = backend.IsGpu() ? 4e9 : 2e8;  // ray-triangle tests per kind
    const size_t sample = size_t(std::clamp(budget / double(host_triangles.size()), 16.0, 4096.0));
    const auto stride = [&](size_t n) { return std::max<size_t>(1, n / sample); };
    size_t hits_checked = 0, hit_mismatches = 0;
    {
        const size_t sp = stride(primary.host.size()), ss = stride(shadow.host.size()), si = stride(incoherent.host.size());
        const std::vector<Ray> p = EveryNth(primary.host, sp), s = EveryNth(shadow.host, ss), r = EveryNth(incoherent.host, si);
        hit_mismatches += CheckClosestHits(backend, p, EveryNth(primary_hits, sp), triangles);
        hit_mismatches += CheckOcclusion(backend, s, EveryNth(shadow_occluded, ss), triangles);
        hit_mismatches += CheckClosestHits(backend, r, EveryNth(incoherent_hits, si), triangles);
        hits_checked = p.size() + s.size() + r.size();
    }

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
        reference_primary_mrays = TimeClosestHits(backend, opt.repeat, reference, triangles, primary, hits);
    }

    std::printf("  %-34s %s\n", "device", backend.Describe().c_str());
    std::printf("  %-34s %zu\n", "triangles", host_triangles.size());
    std::printf("  %-34s median %.3f  min %.3f  max %.3f  (%d runs%s)\n", "build ms", build_ms.median, build_ms.min,
                build_ms.max, opt.repeat, opt.builder == "exact" ? ", exact builder on the CPU" : "");
    std::printf("  %-34s %zu nodes, %zu leaves, max depth %d\n", "tree", nodes.size(), leaves, tree.max_depth);
    std::printf("  %-34s %.4f\n", "SAH cost", sah_cost);
    std::printf("  %-34s %.2f MiB\n", "peak device memory (builds)", double(peak_device_bytes) / (1 << 20));
    std::printf("  %-34s %.1f Mrays/s (%dx%d)\n", "primary (closest hit)", primary_mrays, width, height);
    std::printf("  %-34s %.1f Mrays/s (%zu rays)\n", "shadow (any hit)", shadow_mrays, shadow.host.size());
    std::printf("  %-34s %.1f Mrays/s (%zu rays)\n", "incoherent (closest hit)", incoherent_mrays, incoherent.host.size());
    std::printf("  %-34s %zu checked, %zu mismatches\n", "hits vs brute force", hits_checked, hit_mismatches);
    if (opt.reference) {
        std::printf("  %-34s %.4f (ours / exact = %.4f), %zu nodes, built in %.1f ms\n", "reference (exact) SAH cost",
                    reference_sah_cost, reference_sah_cost > 0 ? sah_cost / reference_sah_cost : 0.0, reference_nodes,
                    reference_build_ms);
        std::printf("  %-34s %.1f Mrays/s (ours / exact = %.4f)\n", "reference primary", reference_primary_mrays,
                    reference_primary_mrays > 0 ? primary_mrays / reference_primary_mrays : 0.0);
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
        json.Key("primary_rays").Integer(int64_t(primary.host.size()));
        json.Key("primary_mrays_per_s").Number(primary_mrays);
        json.Key("shadow_rays").Integer(int64_t(shadow.host.size()));
        json.Key("shadow_mrays_per_s").Number(shadow_mrays);
        json.Key("incoherent_rays").Integer(int64_t(incoherent.host.size()));
        json.Key("incoherent_mrays_per_s").Number(incoherent_mrays);
        json.Key("hits_checked").Integer(int64_t(hits_checked));
        json.Key("hit_mismatches").Integer(int64_t(hit_mismatches));
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
