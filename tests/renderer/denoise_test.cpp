// The edge-aware a-trous filter of indirect light (shaders_cuda/denoise.h) on made-up visible points:
// a noisy flat field gets smoother, an edge in each guide stays; and in whole frames it leaves
// images alone where it is off.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "core/rng.h"
#include "shaders_cuda/indirect_passes.h"
#include "tests/renderer/render_still.h"

namespace caustica {
namespace {

constexpr int kSide = 48;

// A kSide x kSide image of visible diffuse points, point(x, y) each, with indirect irradiance
// value(x, y), filtered; the result row by row.
std::vector<Rgb> Filter(const std::function<DiffusePoint(int, int)>& point,
                        const std::function<Rgb(int, int)>& value) {
    const Backend& cpu = Backend::Cpu();
    EyeState eye(cpu);
    IndirectState state(cpu);
    eye.order = PixelOrder{kSide, kSide};
    eye.pixels = kSide * kSide;
    std::vector<DiffusePoint> diffuse(eye.pixels);
    std::vector<uint32_t> end_node(eye.pixels);
    std::vector<Rgb> irradiance(eye.pixels);
    for (uint32_t i = 0; i < eye.pixels; ++i) {
        uint32_t x, y;
        eye.order.Pixel(i, x, y);
        diffuse[i] = point(int(x), int(y));
        end_node[i] = i;  // one end per pixel, in the pixels' order
        irradiance[i] = value(int(x), int(y));
    }
    eye.diffuse.Upload(Span<const DiffusePoint>(diffuse));
    eye.end_node.Upload(Span<const uint32_t>(end_node));
    eye.end_count = eye.pixels;
    state.irradiance.Upload(Span<const Rgb>(irradiance));
    const CameraView camera = CameraView::LookAt(Vec3(0, 0, 5), Vec3(0, 0, 0), Vec3(0, 1, 0), 40, kSide, kSide);
    RunDenoisePasses(cpu, camera, eye, state);
    const std::vector<Rgb> filtered = state.irradiance.Download();
    std::vector<Rgb> rows(eye.pixels);
    for (uint32_t i = 0; i < eye.pixels; ++i) rows[eye.order.Linear(i)] = filtered[i];
    return rows;
}

// A point of the plane z = 0 facing the camera, a centimetre a pixel.
DiffusePoint Flat(int x, int y) {
    const Vec3 n(0, 0, 1);
    return {Vec3(0.01f * float(x), 0.01f * float(y), 0.0f), n, n, Rgb(0.5f)};
}

double Variance(const std::vector<Rgb>& v) {
    double sum = 0, square = 0;
    for (const Rgb& c : v) {
        sum += c.x;
        square += double(c.x) * c.x;
    }
    const double mean = sum / double(v.size());
    return square / double(v.size()) - mean * mean;
}

TEST(Denoise, SmoothsANoisyFlatField) {
    const auto noisy = [](int x, int y) {
        Rng rng(7, 0, 0, uint64_t(y) * kSide + x);
        return Rgb(2.0f * rng.NextFloat());
    };
    std::vector<Rgb> before(kSide * kSide);
    for (int y = 0; y < kSide; ++y)
        for (int x = 0; x < kSide; ++x) before[y * kSide + x] = noisy(x, y);
    const std::vector<Rgb> after = Filter(Flat, noisy);
    EXPECT_LT(Variance(after), 0.02 * Variance(before));
    double mean = 0;
    for (const Rgb& c : after) mean += c.x;
    EXPECT_NEAR(mean / double(after.size()), 1.0, 0.05);  // the light's mean stays
}

// An edge down the middle between irradiance 1 (left) and 0 (right): the filter keeps both sides
// as they were next to the edge too, when the edge is in the guide that `right` changes.
void ExpectEdgeKept(const char* guide, const std::function<DiffusePoint(DiffusePoint)>& right) {
    const std::vector<Rgb> after = Filter(
        [&](int x, int y) { return x < kSide / 2 ? Flat(x, y) : right(Flat(x, y)); },
        [](int x, int) { return Rgb(x < kSide / 2 ? 1.0f : 0.0f); });
    for (int y = 0; y < kSide; ++y)
        for (int x = kSide / 2 - 2; x < kSide / 2 + 2; ++x)
            EXPECT_NEAR(after[y * kSide + x].x, x < kSide / 2 ? 1.0 : 0.0, 0.01) << guide << " at " << x << ", " << y;
}

TEST(Denoise, KeepsEdgesInNormalDepthAndAlbedo) {
    ExpectEdgeKept("normal", [](DiffusePoint d) {
        d.normal = d.offset_normal = Normalize(Vec3(1, 0, 1));
        return d;
    });
    ExpectEdgeKept("depth", [](DiffusePoint d) {
        d.position.z -= 0.5f;
        return d;
    });
    ExpectEdgeKept("albedo", [](DiffusePoint d) {
        d.weight = Rgb(0.5f, 0.1f, 0.1f);
        return d;
    });
    // Without an edge in any guide the same step is blurred.
    const std::vector<Rgb> blurred = Filter(Flat, [](int x, int) { return Rgb(x < kSide / 2 ? 1.0f : 0.0f); });
    EXPECT_LT(blurred[kSide / 2 * kSide + kSide / 2 - 1].x, 0.9f);
}

// Off, the image is the one without the filter, bit for bit; on, only indirect light changes: with
// indirect light off it changes nothing (direct light and caustics are not blurred).
TEST(Denoise, OffIsTheSameImageAndOnTouchesOnlyIndirectLight) {
    const Scene scene = LoadScene(std::string(CAUSTICA_SOURCE_DIR) + "/scenes/cornell-glass.yaml");
    RenderOptions options = testing::SmallFrameWithIndirectLight(5000, 32, 32, 20000);
    const Image plain = testing::RenderStill(Backend::Cpu(), scene, options, 2)->CurrentImage();
    options.denoise = "off";
    EXPECT_EQ(testing::RenderStill(Backend::Cpu(), scene, options, 2)->CurrentImage().pixels, plain.pixels);
    options.denoise = "on";
    EXPECT_NE(testing::RenderStill(Backend::Cpu(), scene, options, 2)->CurrentImage().pixels, plain.pixels);
    options.indirect = "off";
    const Image direct = testing::RenderStill(Backend::Cpu(), scene, options, 2)->CurrentImage();
    options.denoise = "off";
    EXPECT_EQ(testing::RenderStill(Backend::Cpu(), scene, options, 2)->CurrentImage().pixels, direct.pixels);
}

}  // namespace
}  // namespace caustica
