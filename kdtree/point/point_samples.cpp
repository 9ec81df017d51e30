#include "kdtree/point/point_samples.h"

#include <algorithm>
#include <cmath>

#include "core/pixel_order.h"
#include "core/rng.h"

namespace caustica {

bool ParsePointDistribution(const std::string& name, PointDistribution* out) {
    if (name == "uniform") *out = PointDistribution::Uniform;
    else if (name == "clustered") *out = PointDistribution::Clustered;
    else if (name == "plane") *out = PointDistribution::Plane;
    else if (name == "duplicates") *out = PointDistribution::Duplicates;
    else if (name == "room") *out = PointDistribution::Room;
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

// A point of the room: on one of its five walls, or in the caustic spot of a glass sphere on the
// floor (a bright core that fades out to radius 0.08, around (0.5, 0, 0.5)).
Vec3 RoomPoint(Rng& rng) {
    if (rng.NextFloat() < 0.5f) {
        const float a = 6.28318531f * rng.NextFloat(), d = 0.08f * rng.NextFloat() * rng.NextFloat();
        return Vec3(0.5f + d * std::cos(a), 0.0f, 0.5f + d * std::sin(a));
    }
    const float u = rng.NextFloat(), v = rng.NextFloat();
    switch (rng.NextU32() % 5) {
        case 0: return Vec3(u, 0.0f, v);
        case 1: return Vec3(u, 1.0f, v);
        case 2: return Vec3(u, v, 0.0f);
        case 3: return Vec3(0.0f, u, v);
        default: return Vec3(1.0f, u, v);
    }
}

// The shuffle of the random-order queries.
void Shuffle(std::vector<Vec3>& queries, uint64_t seed) {
    for (uint32_t i = uint32_t(queries.size()); i > 1; --i) {
        Rng rng(seed, 0, 3, i);
        std::swap(queries[i - 1], queries[rng.NextU32() % i]);
    }
}

// Item i of a raster of count items, width wide, in the renderer's pixel order (PixelOrder), as
// (u, v) in [0, 1)^2 jittered within its pixel: queries in the order a frame asks them.
void RasterUv(uint32_t i, uint32_t count, uint32_t width, Rng& rng, float& u, float& v) {
    const uint32_t rows = (count + width - 1) / width;
    uint32_t x, y;
    PixelOrder{width, rows}.Pixel(i, x, y);
    u = (float(x) + rng.NextFloat()) / float(width);
    v = (float(y) + rng.NextFloat()) / float(rows);
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
            case PointDistribution::Room:
                points[i] = RoomPoint(rng);
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
        float u, v;
        RasterUv(i, count, width, rng, u, v);
        // Most queries on the receiver (z inside the set), some off it.
        const float w = rng.NextFloat() < 0.8f ? 0.5f : rng.NextFloat() * 2.0f - 0.5f;
        queries[i] = Vec3(lo.x + u * extent.x, lo.y + v * extent.y, lo.z + w * extent.z);
    }
    if (!coherent) Shuffle(queries, seed);
    return queries;
}

std::vector<Vec3> MakeQueries(PointDistribution distribution, const std::vector<Vec3>& points, uint32_t count,
                              bool coherent, uint64_t seed) {
    if (distribution != PointDistribution::Room) return MakeQueries(points, count, coherent, seed);
    const uint32_t width = std::max<uint32_t>(1, uint32_t(std::ceil(std::sqrt(double(count)))));
    const Vec3 eye(0.5f, 0.5f, 2.5f);
    std::vector<Vec3> queries(count);
    for (uint32_t i = 0; i < count; ++i) {
        Rng rng(seed, 0, 2, i);
        float u, v;
        RasterUv(i, count, width, rng, u, v);
        const Vec3 d(u - 0.5f, v - 0.5f, -1.5f);  // through (u, v) on the open side z = 1
        float t = -eye.z / d.z;                     // the back wall
        if (d.x < 0.0f) t = std::min(t, -eye.x / d.x);
        if (d.x > 0.0f) t = std::min(t, (1.0f - eye.x) / d.x);
        if (d.y < 0.0f) t = std::min(t, -eye.y / d.y);
        if (d.y > 0.0f) t = std::min(t, (1.0f - eye.y) / d.y);
        queries[i] = eye + d * t;
    }
    if (!coherent) Shuffle(queries, seed);
    return queries;
}

}  // namespace caustica
