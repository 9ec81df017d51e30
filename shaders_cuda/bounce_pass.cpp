#include "core/parallel_for.h"
#include "core/primitives.h"
#include "core/rng.h"
#include "photon/scatter.h"
#include "shaders_cuda/eye_passes.h"
#include "shaders_cuda/trace_pass.h"

namespace caustica {
namespace {

constexpr uint32_t kBouncePass = 32;  // + the bounce number

CA_HD CA_INLINE FirstHit FirstHitOf(const SceneView& scene, const Hit& hit) {
    if (!hit.Valid()) return FirstHit::Background;
    switch (scene.materials[scene.shading[hit.triangle].material].type) {
        case SurfaceType::Glass: return FirstHit::Glass;
        case SurfaceType::Mirror: return FirstHit::Metal;
        case SurfaceType::Diffuse: break;
    }
    return FirstHit::Diffuse;
}

// Decides what each path of the queue becomes: a diffuse end, light it brings (an area light's it
// meets before any surface, or the environment's when it leaves the scene), or up to two children.
// Writes the counts for the scan that places them.
struct ClassifyHitsPass {
    SceneView scene;
    Span<const LightSource> lights;
    SampleKey key;
    PixelOrder order;
    EyeTreeSettings tree;
    int bounce;
    Span<const EyePath> paths;
    Span<const Hit> hits;
    Span<EyePath> children;        // tree.ChildSlots() places a path
    Span<DiffusePoint> end_points;
    Span<uint64_t> counts;         // children, and 1 << 32 for a diffuse end
    Span<Rgb> radiance;            // the tree's entries of this bounce
    Span<FirstHit> first_hit;

    // A child goes on when its weight is at least kBranchCutoff; a lighter one of a split goes on
    // with probability weight / kBranchCutoff, carrying kBranchCutoff (Russian roulette keeps the
    // sum unbiased while the tree stays small).
    CA_HD void AddChild(const EyePath& path, const SurfacePoint& s, Vec3 direction, Rgb weight, uint32_t id,
                        float wavelength, bool roulette, Rng& rng, int i, uint32_t& n) const {
        const float heaviest = MaxComponent(weight);
        if (!(heaviest > 0.0f)) return;
        if (roulette && heaviest < kBranchCutoff) {
            if (rng.NextFloat() * kBranchCutoff >= heaviest) return;
            weight *= kBranchCutoff / heaviest;
        }
        children[tree.ChildSlots() * size_t(i) + n] = {
            Ray(OffsetOrigin(s.position, s.geometric_normal, direction), direction), weight, path.pixel, id,
            wavelength};
        ++n;
    }

    // A path of all wavelengths meets dispersive glass: it goes on as tree.wavelengths paths of one
    // wavelength each, the hero (from u) and its rotations, each with its share of the light, so a
    // sample's colour covers the spectrum (hero-wavelength sampling, Wilkie et al. 2014: the rotated
    // wavelengths cannot follow the hero's refraction, so each is traced as its own path). Where the
    // bounce splits, the reflection, which bends no wavelength differently, stays one path with the
    // sum of their Fresnel shares.
    CA_HD void SplitWavelengths(const EyePath& path, const SurfacePoint& s, float segment_length, bool split,
                                Rng& rng, int i, uint32_t& n) const {
        const float u = rng.NextFloat();
        Rgb reflected_weight(0.0f);
        Vec3 reflected = s.shading_normal;
        for (int j = 0; j < tree.wavelengths; ++j) {
            const float wavelength = HeroWavelength(u, j, tree.wavelengths);
            const SpecularBranches b = SplitSpecular(s, path.ray.direction, segment_length, wavelength);
            const Rgb share =
                path.weight * b.weight * scene.spectrum.SampledWeight(wavelength) * (1.0f / float(tree.wavelengths));
            reflected = b.reflected;
            if (split) {
                reflected_weight += share * b.reflectance;
                AddChild(path, s, b.refracted, share * (1.0f - b.reflectance), 2 * path.id + 2, wavelength, true, rng,
                         i, n);
            } else {
                const Vec3 direction = rng.NextFloat() < b.reflectance ? b.reflected : b.refracted;
                AddChild(path, s, direction, share, path.id, wavelength, false, rng, i, n);
            }
        }
        if (split) AddChild(path, s, reflected, reflected_weight, 2 * path.id + 1, 0.0f, true, rng, i, n);
    }

    // The area light the ray meets first, before the surface it hit, or -1.
    CA_HD int VisibleLight(const Ray& ray, float hit_t) const {
        int seen = -1;
        for (size_t l = 0; l < lights.size(); ++l) {
            if (!lights[l].IsArea()) continue;
            const float t = HitAreaLight(lights[l], ray, hit_t);
            if (t > 0.0f) {
                hit_t = t;
                seen = int(l);
            }
        }
        return seen;
    }

    // The item key of a path's random numbers: its pixel and id, and its wavelength (none: 0), so that
    // the paths of one wavelength split draw their own.
    CA_HD uint64_t PathKey(const EyePath& path) const {
        return (uint64_t(order.Linear(path.pixel)) | uint64_t(path.id) << 32) ^
               uint64_t(uint32_t(path.wavelength * 1024.0f)) << 40;
    }

    CA_HD void operator()(int i) const {
        const EyePath path = paths[i];
        const Hit hit = hits[i];
        radiance[i] = Rgb(0.0f);
        counts[i] = 0;
        if (tree.emitted) {
            const int light = VisibleLight(path.ray, hit.t);
            if (light >= 0) {
                if (bounce == 0) first_hit[i] = FirstHit::Light;
                radiance[i] = path.weight * lights[light].Radiance();
                return;
            }
        }
        if (bounce == 0) first_hit[i] = FirstHitOf(scene, hit);
        if (!hit.Valid()) {
            if (tree.emitted) radiance[i] = path.weight * scene.environment.Radiance(path.ray.direction);
            return;
        }
        const SurfacePoint s = scene.Describe(path.ray, hit);
        if (s.material->type == SurfaceType::Diffuse) {
            end_points[i] = {s.position, s.shading_normal, s.geometric_normal,
                             scene.Albedo(*s.material, s.uv) * path.weight};
            counts[i] = uint64_t(1) << 32;
            return;
        }
        if (bounce == tree.max_bounces) return;
        Rng rng(key.seed, key.sample, kBouncePass + uint32_t(bounce), PathKey(path));
        uint32_t n = 0;
        if (path.wavelength == 0.0f && s.material->Dispersive()) {
            SplitWavelengths(path, s, hit.t, bounce < tree.specular_splits, rng, i, n);
            counts[i] = n;
            return;
        }
        const SpecularBranches b = SplitSpecular(s, path.ray.direction, hit.t, path.wavelength);
        const Rgb weight = path.weight * b.weight;
        if (bounce < tree.specular_splits && b.reflectance < 1.0f) {
            // Whitted: both branches, each with its Fresnel share.
            AddChild(path, s, b.reflected, weight * b.reflectance, 2 * path.id + 1, path.wavelength, true, rng, i, n);
            AddChild(path, s, b.refracted, weight * (1.0f - b.reflectance), 2 * path.id + 2, path.wavelength, true, rng,
                     i, n);
        } else {
            // One branch, chosen with the Fresnel probability: the weight needs no Fresnel factor.
            const Vec3 direction = rng.NextFloat() < b.reflectance ? b.reflected : b.refracted;
            AddChild(path, s, direction, weight, path.id, path.wavelength, false, rng, i, n);
        }
        counts[i] = n;
    }
};

// Moves each path's children to their places in the next queue and its diffuse end to the ends.
struct PlacePathsPass {
    Span<const uint64_t> offsets;  // the scanned counts
    uint64_t total;
    uint32_t child_slots;
    Span<const EyePath> children;
    Span<const DiffusePoint> end_points;
    uint32_t first_path;           // this bounce's first path in the tree
    uint32_t first_end;            // this bounce's first end
    Span<EyePath> next;
    Span<DiffusePoint> diffuse;
    Span<uint32_t> end_path;
    CA_HD void operator()(int i) const {
        const uint64_t o = offsets[i], n = uint32_t(i) + 1 < offsets.size() ? offsets[i + 1] : total;
        const uint32_t child = uint32_t(o), child_count = uint32_t(n) - child;
        for (uint32_t c = 0; c < child_count; ++c) next[child + c] = children[child_slots * size_t(i) + c];
        const uint32_t end = uint32_t(o >> 32);
        if (uint32_t(n >> 32) != end) {
            diffuse[first_end + end] = end_points[i];
            end_path[first_end + end] = first_path + uint32_t(i);
        }
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
    state.level_first.clear();
    state.level_first.push_back(0);
    state.end_count = 0;
    for (int bounce = 0;; ++bounce) {
        const uint32_t n = state.path_count, first = state.level_first.back();
        state.tree_offsets.Resize(size_t(first) + n);
        state.tree_radiance.Resize(size_t(first) + n);
        state.children.Resize(tree.ChildSlots() * size_t(n), false);
        state.end_points.Resize(n, false);
        const Span<uint64_t> offsets = state.tree_offsets.span().subspan(first, n);
        ParallelFor(backend, "classify hits", n,
                    ClassifyHitsPass{scene, lights, key, state.order, tree, bounce, state.paths.span(),
                                     state.hits.span(), state.children.span(), state.end_points.span(), offsets,
                                     state.tree_radiance.span().subspan(first, n), state.first_hit.span()});
        const uint64_t total = ExclusiveScanTotal<uint64_t>(backend, offsets, offsets);
        const uint32_t child_count = uint32_t(total), ends = uint32_t(total >> 32);
        state.next_paths.Resize(child_count, false);
        state.diffuse.Resize(size_t(state.end_count) + ends);
        state.end_path.Resize(size_t(state.end_count) + ends);
        ParallelFor(backend, "place paths", n,
                    PlacePathsPass{offsets, total, tree.ChildSlots(), state.children.span(), state.end_points.span(),
                                   first, state.end_count, state.next_paths.span(), state.diffuse.span(),
                                   state.end_path.span()});
        state.end_count += ends;
        state.level_first.push_back(first + n);
        if (child_count == 0) break;
        state.paths.Swap(state.next_paths);
        state.path_count = child_count;
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
