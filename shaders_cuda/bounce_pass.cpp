#include <type_traits>

#include "core/parallel_for.h"
#include "core/primitives.h"
#include "core/rng.h"
#include "core/warp_spread.h"
#include "photon/scatter.h"
#include "shaders_cuda/eye_passes.h"
#include "shaders_cuda/first_hit.h"
#include "shaders_cuda/trace_pass.h"

namespace caustica {
namespace {

constexpr uint32_t kBouncePass = 32;  // + the bounce number

// Decides what each path of the queue becomes: a diffuse end, light it brings (an area light's it
// meets before any surface, or the environment's when it leaves the scene), or children: two
// where it splits, tree.wavelengths + 1 where it meets dispersive glass (EyeTreeSettings).
// Writes the counts for the scan that places them. Scenes without dispersive glass run it without
// the wavelength split (kDispersive false), as compact as before dispersion existed.
template <bool kDispersive>
struct ClassifyHitsPass {
    SceneView scene;
    Span<const LightSource> lights;
    SampleKey key;
    PixelOrder order;
    EyeTreeSettings tree;
    int bounce;
    Span<EyePath> paths;            // a path's first child takes its place
    Span<const Hit> hits;
    Span<EyePath> more_children;    // a path's other children: tree.ChildSlots() - 1 places a path
                                    // (bounces that may branch)
    Span<uint64_t> counts;          // children, and 1 << 32 for a diffuse end
    Span<Rgb> radiance;             // the tree's, by node
    Span<DiffusePoint> diffuse;     // the tree's, by node
    Span<FirstHit> first_hit;

    // A child goes on when its weight is at least kBranchCutoff; a lighter one of a split goes on
    // with probability weight / kBranchCutoff, carrying kBranchCutoff (Russian roulette keeps the
    // sum unbiased while the tree stays small). It continues its parent's node until the pass that
    // places it gives it one of its own.
    CA_HD void AddChild(const EyePath& path, const SurfacePoint& s, Vec3 direction, Rgb weight, uint32_t id,
                        uint32_t wavelength_code, bool roulette, Rng& rng, int i, uint32_t& n) const {
        const float heaviest = MaxComponent(weight);
        if (!(heaviest > 0.0f)) return;
        if (roulette && heaviest < kBranchCutoff) {
            if (rng.NextFloat() * kBranchCutoff >= heaviest) return;
            weight *= kBranchCutoff / heaviest;
        }
        EyePath& child = n == 0 ? paths[i] : more_children[(tree.ChildSlots() - 1) * size_t(i) + n - 1];
        child = {OffsetOrigin(s.position, s.geometric_normal, direction), direction, weight, path.pixel, path.node, id,
                 wavelength_code};
        ++n;
    }

    // A path of all wavelengths meets dispersive glass: it goes on as tree.wavelengths paths of one
    // wavelength each, the hero (from u) and its rotations, each with its share of the light, so a
    // sample's colour covers the spectrum (hero-wavelength sampling, Wilkie et al. 2014: the rotated
    // wavelengths cannot follow the hero's refraction, so each is traced as its own path). Where the
    // bounce splits, the reflection, which bends no wavelength differently, stays one path with the
    // sum of their Fresnel shares.
    CA_HD void SplitWavelengths(const EyePath& path, Vec3 direction, const SurfacePoint& s, float segment_length,
                                bool split, Rng& rng, int i, uint32_t& n) const {
        const float u = rng.NextFloat();
        Rgb reflected_weight(0.0f);
        Vec3 reflected = s.shading_normal;
        for (int j = 0; j < tree.wavelengths; ++j) {
            const uint32_t code = EyePath::WavelengthCode(HeroWavelength(u, j, tree.wavelengths));
            const float wavelength = EyePath::WavelengthOfCode(code);
            const SpecularBranches b = SplitSpecular(s, direction, segment_length, wavelength);
            const Rgb share =
                path.weight * b.weight * scene.spectrum.SampledWeight(wavelength) * (1.0f / float(tree.wavelengths));
            reflected = b.reflected;
            if (split) {
                reflected_weight += share * b.reflectance;
                AddChild(path, s, b.refracted, share * (1.0f - b.reflectance), 2 * path.id + 2, code, true, rng, i,
                         n);
            } else {
                AddChild(path, s, rng.NextFloat() < b.reflectance ? b.reflected : b.refracted, share, path.id, code,
                         false, rng, i, n);
            }
        }
        if (split) AddChild(path, s, reflected, reflected_weight, 2 * path.id + 1, 0u, true, rng, i, n);
    }

    // The item key of a path's random numbers: its pixel and id, and its wavelength (none: 0), so that
    // the paths of one wavelength split draw their own.
    CA_HD uint64_t PathKey(const EyePath& path) const {
        return uint64_t(order.Linear(path.pixel)) | uint64_t(path.id) << 32 |
               uint64_t(path.wavelength_code) << (32 + kPathIdBits);
    }

    CA_HD void operator()(int i) const {
        const EyePath path = paths[i];
        const Ray ray = path.ray();
        const Hit hit = hits[i];
        // The node's light is what its chain's last path brings: each path sets it.
        radiance[path.node] = Rgb(0.0f);
        counts[i] = 0;
        if (tree.emitted) {
            const int light = FirstAreaLightHit(lights, ray, hit.t);
            if (light >= 0) {
                if (bounce == 0) first_hit[i] = FirstHit::Light;
                radiance[path.node] = path.weight * lights[light].Radiance();
                return;
            }
        }
        if (bounce == 0) first_hit[i] = FirstHitOf(scene, hit);
        if (!hit.Valid()) {
            if (tree.emitted) radiance[path.node] = path.weight * scene.environment.Radiance(ray.direction);
            return;
        }
        const SurfacePoint s = scene.Describe(ray, hit);
        if (s.material->type == SurfaceType::Diffuse) {
            diffuse[path.node] = {s.position, s.shading_normal, s.geometric_normal,
                                  scene.Albedo(*s.material, s.uv) * path.weight};
            counts[i] = uint64_t(1) << 32;
            return;
        }
        if (bounce == tree.max_bounces) return;
        Rng rng(key.seed, key.sample, kBouncePass + uint32_t(bounce), PathKey(path));
        uint32_t n = 0;
        if (kDispersive && path.wavelength_code == 0 && s.material->Dispersive()) {
            SplitWavelengths(path, ray.direction, s, hit.t, bounce < tree.specular_splits, rng, i, n);
            counts[i] = n;
            return;
        }
        const SpecularBranches b = SplitSpecular(s, ray.direction, hit.t, path.Wavelength());
        const Rgb weight = path.weight * b.weight;
        if (bounce < tree.specular_splits && b.reflectance < 1.0f) {
            // Whitted: both branches, each with its Fresnel share.
            AddChild(path, s, b.reflected, weight * b.reflectance, 2 * path.id + 1, path.wavelength_code, true, rng, i, n);
            AddChild(path, s, b.refracted, weight * (1.0f - b.reflectance), 2 * path.id + 2, path.wavelength_code, true, rng,
                     i, n);
        } else {
            // One branch, chosen with the Fresnel probability: the weight needs no Fresnel factor.
            const Vec3 direction = rng.NextFloat() < b.reflectance ? b.reflected : b.refracted;
            AddChild(path, s, direction, weight, path.id, path.wavelength_code, false, rng, i, n);
        }
        counts[i] = n;
    }
};

constexpr uint32_t kNoNodes = ~0u;

// Moves each path's children to their places in the next queue, and notes its diffuse end's node
// among the ends.
struct PlacePathsPass {
    Span<const uint64_t> offsets;  // the scanned counts, and the totals after the last path
    Span<const EyePath> paths;     // the first children, in their parents' places
    Span<const EyePath> more_children;
    uint32_t more_slots;           // places a path in more_children
    uint32_t first_node;           // the queue's first node when its paths are nodes, else kNoNodes
    uint32_t next_level;           // the children's first node when they are nodes, else kNoNodes
    uint32_t first_end;            // this bounce's first end
    Span<EyePath> next;
    Span<uint32_t> end_node;
    CA_HD void operator()(int i) const {
        const uint64_t o = offsets[i], n = offsets[i + 1];
        const uint32_t child = uint32_t(o), child_count = uint32_t(n) - child;
        for (uint32_t c = 0; c < child_count; ++c) {
            EyePath p = c == 0 ? paths[i] : more_children[more_slots * size_t(i) + c - 1];
            if (next_level != kNoNodes) p.node = next_level + child + c;
            next[child + c] = p;
        }
        const uint32_t end = uint32_t(o >> 32);
        if (uint32_t(n >> 32) != end)
            end_node[first_end + end] = first_node != kNoNodes ? first_node + uint32_t(i) : paths[i].node;
    }
};

// Paths that can no longer branch go on alone to their ends in one pass: each thread classifies
// its path's hit and traces its one child, bounce after bounce. A pass a bounce waited for the
// slowest ray of the bounce before, and the later bounces' queues are short (a few thousand to a
// hundred thousand paths through glass) and their rays long, so latency, not work, bounded them.
// The random numbers and results are those of the passes a bounce; counts[i] becomes the path's
// diffuse end (1 << 32) and the rays it traced. Where the queue holds the children of glass, the
// GPU spreads each 256 paths over 8 warps (core/warp_spread.h): neighbouring pixels' paths behind
// glass go together and then part ways, and a warp of them runs their long ones one branch after
// another. (Groups of 8 warps gave the champagne glass's frames the gain of a spread over the whole
// queue with less of its cost to the other chains': docs/notes/frame-performance.md.) The camera's
// own paths stay in order, since their rays go together.
constexpr uint32_t kLonePathSpreadWarps = 8;
template <bool kDispersive>
struct LonePathsPass {
    ClassifyHitsPass<kDispersive> classify;  // at the first bounce of the lone paths
    Span<Hit> hits;                          // classify's
    WarpSpread threads;                      // which path each thread takes
    CA_HD void operator()(int t) const {
        const uint32_t i = threads.Item(uint32_t(t));
        if (i == threads.count) return;
        ClassifyHitsPass<kDispersive> pass = classify;
        uint32_t traced = 0;
        for (;; ++pass.bounce) {
            pass(i);
            if (uint32_t(pass.counts[i]) == 0) break;  // an end: diffuse, light, the environment or none
            hits[i] = pass.scene.Closest(pass.paths[i].ray());
            ++traced;
        }
        pass.counts[i] += traced;
    }
};

// Notes the lone paths' diffuse ends' nodes among the ends, in the paths' order.
struct PlaceEndsPass {
    Span<const uint64_t> offsets;  // the scanned counts of LonePathsPass
    Span<const EyePath> paths;
    uint32_t first_end;
    Span<uint32_t> end_node;
    CA_HD void operator()(int i) const {
        const uint32_t end = uint32_t(offsets[i] >> 32);
        if (uint32_t(offsets[i + 1] >> 32) != end) end_node[first_end + end] = paths[i].node;
    }
};

// A level of the tree adds its children's radiance to its own, children in order.
struct SumChildrenPass {
    Span<const uint64_t> offsets;  // the level's scanned counts
    uint32_t child_total;          // paths in the next level
    Span<Rgb> level;
    Span<const Rgb> next_level;
    CA_HD void operator()(int i) const {
        const uint32_t first = uint32_t(offsets[i]);
        const uint32_t last = uint32_t(i) + 1 < offsets.size() ? uint32_t(offsets[i + 1]) : child_total;
        Rgb sum = level[i];
        for (uint32_t c = first; c < last; ++c) sum += next_level[c];
        level[i] = sum;
    }
};

}  // namespace

void RunBouncePasses(const Backend& backend, const SceneView& scene, Span<const LightSource> lights,
                     const EyeTreeSettings& tree, SampleKey key, EyeState& state) {
    state.level_first.assign(1, 0);
    state.end_count = 0;
    for (int bounce = 0;; ++bounce) {
        const uint32_t n = state.path_count, first = state.level_first.back();
        // The paths of the bounces that may branch and of the one after them are the tree's nodes;
        // later paths continue theirs.
        const bool splits = tree.MayBranch(bounce), nodes = bounce == 0 || tree.MayBranch(bounce - 1);
        if (nodes) {
            state.level_first.push_back(first + n);
            state.tree_radiance.Resize(size_t(first) + n);
            state.diffuse.Resize(size_t(first) + n);
        }
        // One count more than the paths: the scan leaves the totals there. The tree keeps the
        // offsets of the nodes that may have children, for the sum.
        Span<uint64_t> counts;
        if (splits) {
            state.tree_offsets.Resize(size_t(first) + n + 1);
            counts = state.tree_offsets.span().subspan(first, n + 1);
        } else {
            state.counts.Resize(size_t(n) + 1, false);
            counts = state.counts.span();
        }
        const uint32_t more_slots = tree.ChildSlots() - 1;
        state.more_children.Resize(splits ? size_t(more_slots) * n : 0, false);
        // From the first bounce whose paths cannot branch, every later one's cannot either.
        const bool alone = !splits;
        const auto classify = [&](auto dispersive) {
            const ClassifyHitsPass<decltype(dispersive)::value> pass{
                scene, lights, key, state.order, tree, bounce, state.paths.span(), state.hits.span(),
                state.more_children.span(), counts, state.tree_radiance.span(), state.diffuse.span(),
                state.first_hit.span()};
            if (alone) {
                const bool spread = backend.IsGpu() && bounce > 0;
                const LonePathsPass<decltype(dispersive)::value> lone{pass, state.hits.span(),
                                                                      WarpSpread{n, spread ? kLonePathSpreadWarps : 1u}};
                ParallelFor(backend, "lone paths", lone.threads.Threads(), lone);
            } else
                ParallelFor(backend, "classify hits", n, pass);
        };
        if (tree.wavelengths > 0) classify(std::true_type());
        else classify(std::false_type());
        const uint64_t total = ExclusiveScanTotal(backend, counts, state.totals);
        const uint32_t first_end = state.end_count;
        state.end_count += uint32_t(total >> 32);
        state.end_node.Resize(state.end_count);
        if (alone) {  // the low half of the total: the rays the lone paths traced
            ParallelFor(backend, "place ends", n,
                        PlaceEndsPass{counts, state.paths.span(), first_end, state.end_node.span()});
            state.paths_traced += uint32_t(total);
            break;
        }
        const uint32_t child_count = uint32_t(total);
        state.next_paths.Resize(child_count, false);
        ParallelFor(backend, "place paths", n,
                    PlacePathsPass{counts, state.paths.span(), state.more_children.span(), more_slots,
                                   nodes ? first : kNoNodes, splits ? first + n : kNoNodes, first_end,
                                   state.next_paths.span(), state.end_node.span()});
        if (child_count == 0) break;
        state.paths.Swap(state.next_paths);
        state.path_count = child_count;
        state.paths_traced += child_count;
        state.hits.Resize(child_count, false);
        RunTracePass(backend, scene, state);
    }
}

void RunSumTreePass(const Backend& backend, EyeState& state) {
    // From the deepest level that has children up to the pixels; the last level has none.
    for (size_t level = state.level_first.size() - 2; level-- > 0;) {
        const uint32_t first = state.level_first[level], n = state.level_first[level + 1] - first;
        const uint32_t next_n = state.level_first[level + 2] - state.level_first[level + 1];
        ParallelFor(backend, "sum tree", n,
                    SumChildrenPass{state.tree_offsets.span().subspan(first, n), next_n,
                                    state.tree_radiance.span().subspan(first, n),
                                    state.tree_radiance.span().subspan(first + n, next_n)});
    }
}

}  // namespace caustica
