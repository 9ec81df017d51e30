// Work shared out between GPUs: each GPU's host thread, backend and renderer (and the renderer's
// second chain on its worker thread) stay on that GPU, so frames are bit for bit those of one GPU
// of the same kind. Skipped without a GPU; the two-GPU tests are skipped, with a message, on a
// machine with one.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>

#include "core/backend.h"
#include "renderer/cli/shared_render.h"
#include "renderer/scene/scene_loader.h"
#include "renderer/frame_renderer.h"
#include "tests/renderer/image_compare.h"
#include "tests/renderer/render_still.h"
#include "tests/test_support.h"

namespace caustica {
namespace {

RenderOptions Small() {
    RenderOptions o = testing::SmallFrame(100000, 320, 180);
    o.device = "cuda";
    return o;
}

std::vector<RenderDevice> Gpus(const std::vector<int>& numbers) {
    std::vector<RenderDevice> devices;
    for (const int n : numbers)
        devices.push_back({Concat("GPU ", n), DescribeCudaDevice(n), true, [n] { return Backend::Gpu(n); }});
    return devices;
}

bool SameBits(const Image& a, const Image& b) {
    return a.width == b.width && a.height == b.height &&
           std::memcmp(a.pixels.data(), b.pixels.data(), a.pixels.size() * sizeof(Rgb)) == 0;
}

std::map<int, Image> Sequence(const std::vector<RenderDevice>& devices) {
    const Scene scene = LoadScene(std::string(CAUSTICA_SOURCE_DIR) + "/scenes/pool.yaml");
    std::mutex mutex;
    std::map<int, Image> out;
    ImagePool sums;
    RenderFrames(scene, Small(), {0, 1, 2, 3, 4, 5}, {0, 2}, devices, sums, [&](int, int frame, Image sum) {
        const std::lock_guard<std::mutex> lock(mutex);
        out.emplace(frame, std::move(sum));
    });
    return out;
}

#define CA_REQUIRE_GPUS(count)                                                                             \
    if (CudaDeviceCount() < (count))                                                                        \
    GTEST_SKIP() << "needs " << (count) << " CUDA devices, this machine has " << CudaDeviceCount() \
                 << ": multi-GPU test skipped"

// On one GPU: the device chosen by number, from threads of its own, renders what --device cuda
// renders, and two host threads sharing that GPU give the same frames.
TEST(SharedRenderGpu, DeviceByNumberOnItsOwnThreadsRendersAsOneGpu) {
    CA_REQUIRE_GPUS(1);
    std::vector<RenderDevice> plain = {{"GPU", DescribeCudaDevice(0), true, [] { return Backend::Create("cuda"); }}};
    const std::map<int, Image> one = Sequence(plain), twice = Sequence(Gpus({0, 0}));
    for (const auto& [frame, image] : one) EXPECT_TRUE(SameBits(image, twice.at(frame))) << "frame " << frame;
}

// A sequence's frames on a GPU prepare each next frame's geometry on a share of the SMs while the
// frame's last sample is shaded (DefaultGeometryAheadSms): they are the frames prepared in turn
// (each rendered as a still) within the frame tests' tolerance.
TEST(SharedRenderGpu, FramesPreparedAheadAreThoseOfFramesPreparedInTurn) {
    CA_REQUIRE_GPUS(1);
    const std::vector<RenderDevice> gpu = Gpus({0});
    EXPECT_GT(DefaultGeometryAheadSms(gpu[0].make()), 0) << "this GPU prepares no geometry ahead: nothing tested";
    const Scene scene = LoadScene(std::string(CAUSTICA_SOURCE_DIR) + "/scenes/pool.yaml");
    int same_bits = 0;
    const std::map<int, Image> sequence = Sequence(gpu);
    for (const auto& [frame, image] : sequence) {
        const Image in_turn = RenderStill(scene, Small(), frame, {0, 2}, gpu, nullptr);
        EXPECT_TRUE(testing::CloseImages(ImageOfSum(image, 2, 1.0f), ImageOfSum(in_turn, 2, 1.0f)))
            << "frame " << frame;
        same_bits += SameBits(image, in_turn);
    }
    std::printf("%d of %zu frames prepared ahead are bit for bit those prepared in turn\n", same_bits, sequence.size());
}

TEST(SharedRenderGpu, SequenceOnTwoGpusEqualsOneGpu) {
    CA_REQUIRE_GPUS(2);
    const std::map<int, Image> one = Sequence(Gpus({0})), two = Sequence(Gpus({0, 1})), other = Sequence(Gpus({1}));
    for (const auto& [frame, image] : one) {
        EXPECT_TRUE(SameBits(image, two.at(frame))) << "frame " << frame;
        EXPECT_TRUE(SameBits(image, other.at(frame))) << "frame " << frame << " on GPU 1 alone";
    }
}

TEST(SharedRenderGpu, StillOnTwoGpusIsItsPartsAddedInOrder) {
    CA_REQUIRE_GPUS(2);
    const Scene scene = LoadScene(std::string(CAUSTICA_SOURCE_DIR) + "/scenes/pool.yaml");
    const SampleSpan span{0, 9};
    std::vector<Image> parts;
    for (const SampleSpan& part : SplitSamples(span, 2))
        parts.push_back(RenderStill(scene, Small(), 0, part, Gpus({0}), nullptr));
    EXPECT_TRUE(SameBits(RenderStill(scene, Small(), 0, span, Gpus({0, 1}), nullptr), SumInOrder(parts)));
}

}  // namespace
}  // namespace caustica
