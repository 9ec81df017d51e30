#include "kdtree/point_samples.h"

#include <algorithm>
#include <cmath>

#include "core/rng.h"

namespace caustica {

bool ParsePointDistribution(const std::string& name, PointDistribution* out) {
    if (name == "uniform") *out = PointDistribution::Uniform;
    else if (name == "clustered") *out = PointDistribution::Clustered;
    else if (name == "plane") *out = PointDistribution::Plane;
    else if (name == "duplicates") *out = PointDistribution::Duplicates;
    else return false;
    return true;
}

namespace {

// A point of a cardioid caustic (the ring caustic of Zhou et al. 2008, Fig. 6a) in [0, 1]^2,
// blurred across the curve by up to `width`.
Vec3 CardioidPoint(Rng& rng, float width) {
    const float t = 6.28318531f * rng.NextFloat();
    const float r = 0.25f * (1.0f - std::cos(t));
    const float x = 0.6f + r * std::cos(t), y = 0.5f + r * std::sin(t);
    const float a = 6.28318531f * rng.NextFloat(), d = width * rng.NextFloat() * rng.NextFloat();
    return Vec3(x + d * std::cos(a), y + d * std::sin(a), 0.0f);
}

}  // namespace

std::vector<Vec3> MakePoints(PointDistribution distribution, uint32_t count, uint64_t seed) {
    std::vector<Vec3> points(count);
    for (uint32_t i = 0; i < count; ++i) {
        Rng rng(seed, 0, 1, i);
        switch (distribution) {
            case PointDistribution::Uniform:
                points[i] = Vec3(rng.NextFloat(), rng.NextFloat(), rng.NextFloat());
                break;
            case PointDistribution::Clustered:
            case PointDistribution::Plane: {
                const bool on_curve = rng.NextFloat() < 0.9f;
                points[i] = on_curve ? CardioidPoint(rng, 0.01f) : Vec3(rng.NextFloat(), rng.NextFloat(), 0.0f);
                // The clustered set has some depth, as photons on a slightly curved receiver.
                if (distribution == PointDistribution::Clustered) points[i].z = 0.02f * rng.NextFloat();
                break;
            }
            case PointDistribution::Duplicates:
                points[i] = Vec3(0.25f, 0.5f, 0.75f);
                break;
        }
    }
    return points;
}

std::vector<Vec3> MakeQueries(const std::vector<Vec3>& points, uint32_t count, bool coherent, uint64_t seed) {
    Aabb box;
    for (const Vec3& p : points) box.Extend(p);
    if (box.Empty()) box = Aabb(Vec3(0.0f), Vec3(1.0f));
    const Vec3 margin = box.Extent() * 0.05f + Vec3(1e-3f);
    const Vec3 lo = box.lo - margin, extent = box.Extent() + margin * 2.0f;
    // A raster with the box's xy aspect, as an image of the receiver would be.
    const float aspect = extent.y > 0.0f ? extent.x / extent.y : 1.0f;
    const uint32_t width = std::max<uint32_t>(1, uint32_t(std::ceil(std::sqrt(double(count) * aspect))));
    std::vector<Vec3> queries(count);
    for (uint32_t i = 0; i < count; ++i) {
        Rng rng(seed, 0, 2, i);
        const float u = (float(i % width) + rng.NextFloat()) / float(width);
        const float v = (float(i / width) + rng.NextFloat()) / float((count + width - 1) / width);
        // Most queries on the receiver (z inside the set), some off it.
        const float w = rng.NextFloat() < 0.8f ? 0.5f : rng.NextFloat() * 2.0f - 0.5f;
        queries[i] = Vec3(lo.x + u * extent.x, lo.y + v * extent.y, lo.z + w * extent.z);
    }
    if (!coherent) {
        for (uint32_t i = count; i > 1; --i) {
            Rng rng(seed, 0, 3, i);
            std::swap(queries[i - 1], queries[rng.NextU32() % i]);
        }
    }
    return queries;
}

}  // namespace caustica
