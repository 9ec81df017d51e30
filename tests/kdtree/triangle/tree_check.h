// A test-only checker for triangle kd-trees in the preorder format (kdtree/triangle/sah_tree.h): structure,
// completeness (every triangle that enters a leaf's box is in that leaf), rays against brute force,
// and comparison of two trees. Everything in double precision on the host, independent of the
// builder's code.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "core/rng.h"
#include "kdtree/triangle/sah_tree.h"
#include "kdtree/triangle/triangle.h"

namespace caustica::testing {

struct HostTree {
    std::vector<KdNode> nodes;
    std::vector<uint32_t> indices;
    Aabb bounds;
    int max_depth = 0;
};

inline HostTree Download(const SahTree& t) { return {t.nodes.Download(), t.indices.Download(), t.bounds, t.max_depth}; }

struct D3 {
    double v[3];
    double operator[](int i) const { return v[i]; }
    double& operator[](int i) { return v[i]; }
};
inline D3 ToD(Vec3 p) { return {{p.x, p.y, p.z}}; }
inline D3 Sub(D3 a, D3 b) { return {{a[0] - b[0], a[1] - b[1], a[2] - b[2]}}; }
inline D3 CrossD(D3 a, D3 b) { return {{a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]}}; }
inline double DotD(D3 a, D3 b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

// Triangle-box overlap by the separating axis theorem (Akenine-Moller 2001), closed sets.
inline bool TriangleOverlapsBox(const Triangle& t, const D3& lo, const D3& hi) {
    D3 c, h;
    for (int a = 0; a < 3; ++a) {
        c[a] = 0.5 * (lo[a] + hi[a]);
        h[a] = 0.5 * (hi[a] - lo[a]);
    }
    const D3 v[3] = {Sub(ToD(t.v0), c), Sub(ToD(t.v1), c), Sub(ToD(t.v2), c)};
    for (int a = 0; a < 3; ++a) {
        const double mn = std::min({v[0][a], v[1][a], v[2][a]}), mx = std::max({v[0][a], v[1][a], v[2][a]});
        if (mn > h[a] || mx < -h[a]) return false;
    }
    const D3 e[3] = {Sub(v[1], v[0]), Sub(v[2], v[1]), Sub(v[0], v[2])};
    auto separated = [&](const D3& axis) {
        const double p0 = DotD(v[0], axis), p1 = DotD(v[1], axis), p2 = DotD(v[2], axis);
        const double r = h[0] * std::fabs(axis[0]) + h[1] * std::fabs(axis[1]) + h[2] * std::fabs(axis[2]);
        return std::min({p0, p1, p2}) > r || std::max({p0, p1, p2}) < -r;
    };
    if (separated(CrossD(e[0], e[1]))) return false;
    for (int i = 0; i < 3; ++i)
        for (int a = 0; a < 3; ++a) {
            D3 unit{{0, 0, 0}};
            unit[a] = 1;
            if (separated(CrossD(unit, e[i]))) return false;
        }
    return true;
}

struct NodeBox {
    D3 lo, hi;
};

// Calls f(node, box, depth) for every node in preorder.
template <class F>
void ForEachNode(const HostTree& t, const F& f) {
    struct Item {
        uint32_t node;
        NodeBox box;
        int depth;
    };
    std::vector<Item> stack{{0, {ToD(t.bounds.lo), ToD(t.bounds.hi)}, 0}};
    while (!stack.empty()) {
        const Item it = stack.back();
        stack.pop_back();
        f(it.node, it.box, it.depth);
        const KdNode& n = t.nodes[it.node];
        if (n.IsLeaf()) continue;
        Item left = it, right = it;
        left.node = it.node + 1;
        right.node = n.RightChild();
        left.box.hi[n.Axis()] = n.split;
        right.box.lo[n.Axis()] = n.split;
        left.depth = right.depth = it.depth + 1;
        stack.push_back(right);
        stack.push_back(left);
    }
}

// Preorder layout, child links, splits inside their boxes, leaf ranges and indices in range,
// depths within the bound and max_depth equal to the deepest node. Returns "" when valid.
inline std::string CheckStructure(const HostTree& t, size_t triangle_count, int depth_bound) {
    std::ostringstream err;
    if (t.nodes.empty()) return "no nodes";
    uint32_t expected = 0;
    int deepest = 0;
    size_t referenced = 0;
    ForEachNode(t, [&](uint32_t i, const NodeBox& box, int depth) {
        if (!err.str().empty()) return;
        if (i != expected) err << "node " << i << " visited where preorder expects " << expected;
        ++expected;
        deepest = std::max(deepest, depth);
        const KdNode& n = t.nodes[i];
        if (n.IsLeaf()) {
            if (size_t(n.first) + n.Count() > t.indices.size()) err << "leaf " << i << " range out of the index list";
            for (uint32_t k = 0; k < n.Count() && err.str().empty(); ++k)
                if (t.indices[n.first + k] >= triangle_count) err << "leaf " << i << " names triangle " << t.indices[n.first + k];
            referenced += n.Count();
        } else {
            if (n.RightChild() <= i + 1 || n.RightChild() >= t.nodes.size()) err << "node " << i << " bad right child";
            if (!(n.split >= box.lo[n.Axis()] && n.split <= box.hi[n.Axis()])) err << "node " << i << " split outside its box";
        }
    });
    if (!err.str().empty()) return err.str();
    if (expected != t.nodes.size()) return "preorder walk visited " + std::to_string(expected) + " of " + std::to_string(t.nodes.size());
    if (referenced != t.indices.size()) return "leaves reference " + std::to_string(referenced) + " of " + std::to_string(t.indices.size()) + " indices";
    if (deepest != t.max_depth) return "max_depth " + std::to_string(t.max_depth) + " but deepest node at " + std::to_string(deepest);
    if (deepest > depth_bound) return "depth " + std::to_string(deepest) + " beyond the bound " + std::to_string(depth_bound);
    return "";
}

// Whether the triangle only reaches a box of no thickness on some axis from one side: a cell cut
// off a plane to hold the triangles lying in it (and those crossing it) need not hold such a
// triangle, which the cell on its side holds, and where rays that meet it in the plane find it.
inline bool TouchesFlatBoxFromOneSide(const Triangle& tri, const NodeBox& box) {
    for (int a = 0; a < 3; ++a) {
        if (box.lo[a] != box.hi[a]) continue;
        const double p = box.lo[a];
        const double lo = std::min({double(tri.v0[a]), double(tri.v1[a]), double(tri.v2[a])});
        const double hi = std::max({double(tri.v0[a]), double(tri.v1[a]), double(tri.v2[a])});
        if ((lo == p && hi > p) || (hi == p && lo < p)) return true;
    }
    return false;
}

// Every triangle that meets the inside of a leaf's box (the box shrunk on each side by a tolerance
// far above rounding, or by a quarter of a thinner extent) is referenced by that leaf, unless it
// only touches a box of no thickness from one side; and every triangle meets the root box.
// Returns "" when complete.
inline std::string CheckCompleteness(const HostTree& t, const std::vector<Triangle>& tris) {
    const Vec3 ext = t.bounds.Extent();
    const double eps = 1e-5 * std::max({double(ext.x), double(ext.y), double(ext.z), 1e-30});
    std::vector<std::vector<uint32_t>> leaf_sets(t.nodes.size());
    std::vector<uint32_t> leaves;
    std::vector<NodeBox> boxes(t.nodes.size());
    ForEachNode(t, [&](uint32_t i, const NodeBox& box, int) {
        boxes[i] = box;
        if (t.nodes[i].IsLeaf()) {
            auto& s = leaf_sets[i];
            s.assign(t.indices.begin() + t.nodes[i].first, t.indices.begin() + t.nodes[i].first + t.nodes[i].Count());
            std::sort(s.begin(), s.end());
        }
    });
    for (uint32_t tri = 0; tri < tris.size(); ++tri) {
        if (!TriangleOverlapsBox(tris[tri], ToD(t.bounds.lo), ToD(t.bounds.hi)))
            return "triangle " + std::to_string(tri) + " outside the root box";
        std::vector<uint32_t> stack{0};
        while (!stack.empty()) {
            const uint32_t i = stack.back();
            stack.pop_back();
            NodeBox inner = boxes[i];
            for (int a = 0; a < 3; ++a) {
                const double shrink = std::min(eps, 0.25 * (inner.hi[a] - inner.lo[a]));
                inner.lo[a] += shrink;
                inner.hi[a] -= shrink;
            }
            if (!TriangleOverlapsBox(tris[tri], inner.lo, inner.hi) || TouchesFlatBoxFromOneSide(tris[tri], boxes[i]))
                continue;
            const KdNode& n = t.nodes[i];
            if (n.IsLeaf()) {
                if (!std::binary_search(leaf_sets[i].begin(), leaf_sets[i].end(), tri))
                    return "triangle " + std::to_string(tri) + " enters leaf " + std::to_string(i) + " but is not in it";
            } else {
                stack.push_back(i + 1);
                stack.push_back(n.RightChild());
            }
        }
    }
    return "";
}

// Closest hit with t in (t_min, inf) by Moller-Trumbore in double; edges count as hits.
inline bool IntersectTriangle(const Triangle& tri, const D3& o, const D3& d, double t_min, double* t) {
    const D3 p0 = ToD(tri.v0);
    const D3 e1 = Sub(ToD(tri.v1), p0), e2 = Sub(ToD(tri.v2), p0);
    const D3 p = CrossD(d, e2);
    const double det = DotD(e1, p);
    if (det == 0.0) return false;
    const double inv = 1.0 / det;
    const D3 s = Sub(o, p0);
    const double u = DotD(s, p) * inv;
    if (u < 0.0 || u > 1.0) return false;
    const D3 q = CrossD(s, e1);
    const double v = DotD(d, q) * inv;
    if (v < 0.0 || u + v > 1.0) return false;
    const double tt = DotD(e2, q) * inv;
    if (!(tt > t_min)) return false;
    *t = tt;
    return true;
}

struct RayHit {
    bool hit = false;
    double t = INFINITY;
};

inline RayHit BruteForce(const std::vector<Triangle>& tris, const D3& o, const D3& d, double t_min) {
    RayHit h;
    for (const Triangle& tri : tris) {
        double t;
        if (IntersectTriangle(tri, o, d, t_min, &t) && t < h.t) h = {true, t};
    }
    return h;
}

// A plain stack traversal, front to back with early exit (test-local; intervals widened by a
// relative tolerance so that rounding at planes never skips a node).
inline RayHit Traverse(const HostTree& tree, const std::vector<Triangle>& tris, const D3& o, const D3& d, double t_min) {
    RayHit h;
    double t0 = 0.0, t1 = INFINITY;
    for (int a = 0; a < 3; ++a) {
        const double pad = 1e-7 * (std::fabs(tree.bounds.lo[a]) + std::fabs(tree.bounds.hi[a])) + 1e-30;
        const double lo = tree.bounds.lo[a] - pad, hi = tree.bounds.hi[a] + pad;
        if (d[a] == 0.0) {
            if (o[a] < lo || o[a] > hi) return h;
            continue;
        }
        double ta = (lo - o[a]) / d[a], tb = (hi - o[a]) / d[a];
        if (ta > tb) std::swap(ta, tb);
        t0 = std::max(t0, ta);
        t1 = std::min(t1, tb);
    }
    if (t0 > t1) return h;
    struct Item {
        uint32_t node;
        double tmin, tmax;
    };
    std::vector<Item> stack{{0, t0, t1}};
    while (!stack.empty()) {
        Item it = stack.back();
        stack.pop_back();
        if (h.t < it.tmin) break;
        for (;;) {
            const KdNode& n = tree.nodes[it.node];
            if (n.IsLeaf()) {
                for (uint32_t k = 0; k < n.Count(); ++k) {
                    double t;
                    if (IntersectTriangle(tris[tree.indices[n.first + k]], o, d, t_min, &t) && t < h.t) h = {true, t};
                }
                break;
            }
            const int a = n.Axis();
            const uint32_t left = it.node + 1, right = n.RightChild();
            if (d[a] == 0.0) {
                if (o[a] < n.split) it.node = left;
                else if (o[a] > n.split) it.node = right;
                else {
                    stack.push_back({right, it.tmin, it.tmax});
                    it.node = left;
                }
                continue;
            }
            const double tp = (double(n.split) - o[a]) / d[a];
            const double slack = 1e-9 * (1.0 + std::fabs(tp));
            const bool below_first = o[a] < n.split || (o[a] == n.split && d[a] < 0.0);
            const uint32_t first = below_first ? left : right, second = below_first ? right : left;
            if (tp > it.tmax + slack || tp <= 0.0) {
                it.node = first;
            } else if (tp < it.tmin - slack) {
                it.node = second;
            } else {
                stack.push_back({second, std::max(it.tmin, tp - slack), it.tmax});
                it.node = first;
                it.tmax = std::min(it.tmax, tp + slack);
            }
        }
    }
    return h;
}

// Rays of several kinds: random, aimed at points of triangles, along the axes, through vertices,
// and starting on surfaces. Returns the number whose hit differs from brute force.
inline int CountRayMismatches(const HostTree& tree, const std::vector<Triangle>& tris, int rays, uint64_t seed,
                              std::string* first_problem) {
    if (tris.empty()) return 0;
    Rng rng(seed, 0, 7, 0);
    const Vec3 c = tree.bounds.Center();
    const Vec3 ext = tree.bounds.Extent();
    const float scale = std::max(MaxComponent(ext), 1e-3f);
    auto rnd = [&] { return double(rng.NextFloat()); };
    auto random_dir = [&] {
        D3 d;
        double len;
        do {
            d = {{2 * rnd() - 1, 2 * rnd() - 1, 2 * rnd() - 1}};
            len = std::sqrt(DotD(d, d));
        } while (len < 0.1 || len > 1.0);
        return D3{{d[0] / len, d[1] / len, d[2] / len}};
    };
    auto outside = [&] {
        D3 p;
        for (int a = 0; a < 3; ++a) p[a] = c[a] + (2 * rnd() - 1) * 1.5 * scale;
        return p;
    };
    auto on_triangle = [&](const Triangle& t) {
        double u = rnd(), v = rnd();
        if (u + v > 1) {
            u = 1 - u;
            v = 1 - v;
        }
        const D3 p0 = ToD(t.v0), e1 = Sub(ToD(t.v1), p0), e2 = Sub(ToD(t.v2), p0);
        return D3{{p0[0] + u * e1[0] + v * e2[0], p0[1] + u * e1[1] + v * e2[1], p0[2] + u * e1[2] + v * e2[2]}};
    };
    int mismatches = 0;
    for (int r = 0; r < rays; ++r) {
        D3 o, d;
        double t_min = 0.0;
        const Triangle& target = tris[rng.NextU32() % tris.size()];
        switch (r % 5) {
            case 0: o = outside(); d = random_dir(); break;
            case 1: case 3: {
                o = outside();
                const D3 p = r % 5 == 1 ? on_triangle(target) : ToD(r % 2 ? target.v1 : target.v0);
                d = Sub(p, o);
                const double len = std::sqrt(DotD(d, d));
                if (len == 0) continue;
                for (int a = 0; a < 3; ++a) d[a] /= len;
                break;
            }
            case 2: {
                o = outside();
                d = {{0, 0, 0}};
                d[rng.NextU32() % 3] = rng.NextU32() % 2 ? 1.0 : -1.0;
                break;
            }
            default: o = on_triangle(target); d = random_dir(); t_min = 1e-6 * scale; break;
        }
        const RayHit want = BruteForce(tris, o, d, t_min);
        const RayHit got = Traverse(tree, tris, o, d, t_min);
        const bool same = want.hit == got.hit && (!want.hit || std::fabs(want.t - got.t) <= 1e-9 * (1 + want.t));
        if (!same) {
            if (mismatches == 0 && first_problem) {
                std::ostringstream s;
                s << "ray " << r << " (kind " << r % 5 << ") o=(" << o[0] << "," << o[1] << "," << o[2] << ") d=(" << d[0]
                  << "," << d[1] << "," << d[2] << "): brute force " << (want.hit ? want.t : -1.0) << ", tree "
                  << (got.hit ? got.t : -1.0);
                *first_problem = s.str();
            }
            ++mismatches;
        }
    }
    return mismatches;
}

// Identical node arrays, bounds and depth, and the same triangle set in every leaf. Returns "" when
// the trees are the same.
inline std::string CompareTrees(const HostTree& a, const HostTree& b) {
    if (a.nodes.size() != b.nodes.size())
        return "node counts " + std::to_string(a.nodes.size()) + " and " + std::to_string(b.nodes.size());
    if (a.indices.size() != b.indices.size()) return "index counts differ";
    for (size_t i = 0; i < a.nodes.size(); ++i)
        if (std::memcmp(&a.nodes[i], &b.nodes[i], sizeof(KdNode)) != 0) return "node " + std::to_string(i) + " differs";
    if (std::memcmp(&a.bounds, &b.bounds, sizeof(Aabb)) != 0) return "bounds differ";
    if (a.max_depth != b.max_depth) return "max_depth differs";
    for (size_t i = 0; i < a.nodes.size(); ++i) {
        if (!a.nodes[i].IsLeaf()) continue;
        const uint32_t f = a.nodes[i].first, n = a.nodes[i].Count();
        std::vector<uint32_t> x(a.indices.begin() + f, a.indices.begin() + f + n);
        std::vector<uint32_t> y(b.indices.begin() + f, b.indices.begin() + f + n);
        std::sort(x.begin(), x.end());
        std::sort(y.begin(), y.end());
        if (x != y) return "leaf " + std::to_string(i) + " holds different triangles";
    }
    return "";
}

}  // namespace caustica::testing
