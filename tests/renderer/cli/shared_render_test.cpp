// Work shared out between devices, with CPU backends standing in for GPUs: a sequence's frames do
// not depend on how many devices rendered them or which one took a frame; a still's samples split
// between devices are keyed by their index in the whole, and their sums are added in a fixed order.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "core/error.h"
#include "core/srgb.h"
#include "renderer/cli/shared_render.h"
#include "renderer/frame_renderer.h"
#include "renderer/output/image.h"
#include "renderer/scene/scene_loader.h"
#include "tests/renderer/render_still.h"

namespace caustica {
namespace {

Scene Pool() { return LoadScene(std::string(CAUSTICA_SOURCE_DIR) + "/scenes/pool.yaml"); }

RenderOptions Small() {
    RenderOptions o = testing::SmallFrame(4000, 64, 36);
    o.device = "cpu";
    return o;
}

bool SameBits(const Image& a, const Image& b) {
    return a.width == b.width && a.height == b.height &&
           std::memcmp(a.pixels.data(), b.pixels.data(), a.pixels.size() * sizeof(Rgb)) == 0;
}

std::map<int, Image> Sequence(const Scene& scene, const std::vector<int>& frames, int devices, SampleSpan span) {
    std::mutex mutex;
    std::map<int, Image> out;
    ImagePool sums;
    RenderFrames(scene, Small(), frames, span, CpuDevices(devices), sums, [&](int, int frame, Image sum) {
        const std::lock_guard<std::mutex> lock(mutex);
        EXPECT_TRUE(out.emplace(frame, std::move(sum)).second) << "frame " << frame << " delivered twice";
    });
    return out;
}

Image Still(const Scene& scene, SampleSpan span, int devices) {
    return RenderStill(scene, Small(), 0, span, CpuDevices(devices), nullptr);
}

TEST(SplitSamples, ContiguousPartsInOrderCoverTheSpan) {
    for (const uint32_t count : {1u, 2u, 5u, 64u, 1000u})
        for (const int parts : {1, 2, 3, 8}) {
            const std::vector<SampleSpan> split = SplitSamples({7, count}, parts);
            ASSERT_EQ(split.size(), size_t(parts));
            uint32_t next = 7;
            for (const SampleSpan& p : split) {
                EXPECT_EQ(p.first, next);
                EXPECT_LE(p.count, count / uint32_t(parts) + 1);
                next += p.count;
            }
            EXPECT_EQ(next, 7 + count) << count << " samples in " << parts;
        }
}

TEST(ImageWriterThreads, LeaveTheDevicesTheirThreadsAndBoundTheFramesInMemory) {
    const size_t hd = size_t(1920) * 1080 * 12;  // a 1080p frame's float sum
    const int cores = int(std::thread::hardware_concurrency());
    for (const int devices : {1, 2, 8, 1000}) {
        EXPECT_GE(ImageWriterThreads(devices, hd), 1);
        EXPECT_LE(ImageWriterThreads(devices, hd), std::max(1, std::min(16, cores - 2 * devices)));
    }
    EXPECT_EQ(ImageWriterThreads(1000, hd), 1);
    // Frames of 1 GiB: four in memory, three of them the device's (queued, held by its hand-over,
    // downloading).
    const size_t huge = size_t(1) << 30;
    EXPECT_EQ(ImageWriterThreads(1, huge), 1);
    EXPECT_EQ(ImageWriterThreads(1, huge / 2), std::max(1, std::min(5, cores - 2)));
    EXPECT_EQ(ImageWriterThreads(1, kImageWriterBytes), 1);  // one at least, however large
}

TEST(SumInOrder, AddsInTheOrderGiven) {
    Image a(1, 1), b(1, 1), c(1, 1);
    a.pixels[0] = Rgb(1.0f);
    b.pixels[0] = Rgb(1e8f);
    c.pixels[0] = Rgb(-1e8f);
    EXPECT_EQ(SumInOrder({a, b, c}).pixels[0].x, (1.0f + 1e8f) + -1e8f);
    EXPECT_EQ(SumInOrder({b, c, a}).pixels[0].x, 1.0f);  // a different order, a different float sum
}

// The frames of a sequence are byte-identical whether one device or three rendered them.
TEST(SharedRender, SequenceFramesDoNotDependOnTheDevices) {
    const Scene scene = Pool();
    const std::vector<int> frames = {0, 1, 2, 3, 4, 5, 9};
    const std::map<int, Image> one = Sequence(scene, frames, 1, {0, 2});
    const std::map<int, Image> three = Sequence(scene, frames, 3, {0, 2});
    ASSERT_EQ(one.size(), frames.size());
    ASSERT_EQ(three.size(), frames.size());
    for (const int f : frames) EXPECT_TRUE(SameBits(one.at(f), three.at(f))) << "frame " << f;
    EXPECT_FALSE(SameBits(one.at(0), one.at(9))) << "the pool's waves move between frames";
}

// Each device prepares its next frame's geometry while it shades the last sample
// (FrameRenderer::PrepareGeometryAhead): the frames are bit for bit those of a renderer that
// prepares each frame in turn (a still of that frame), in order or not, on one device or three.
TEST(SharedRender, FramesPreparedAheadAreThoseOfFramesPreparedInTurn) {
    const Scene scene = Pool();
    const std::vector<int> frames = {5, 0, 1, 9, 2};
    for (const int devices : {1, 3}) {
        const std::map<int, Image> sequence = Sequence(scene, frames, devices, {0, 2});
        ASSERT_EQ(sequence.size(), frames.size());
        for (const int f : frames)
            EXPECT_TRUE(SameBits(sequence.at(f), RenderStill(scene, Small(), f, {0, 2}, CpuDevices(1), nullptr)))
                << "frame " << f << " on " << devices << " devices";
    }
}

// The frames written on the writer threads are the frames rendered, each written once, and the
// progress counts the frames written.
TEST(SharedRender, WritesEachFrameOnceOnTheWriterThreads) {
    const Scene scene = Pool();
    const std::vector<int> frames = {0, 1, 2, 3, 4, 5};
    std::mutex mutex;
    std::map<int, Image> written;
    std::set<std::thread::id> writers;
    ProgressBar progress("test", int(frames.size()), "frames", {"CPU 0", "CPU 1"});
    RenderAndWriteFrames(
        scene, Small(), frames, {0, 1}, CpuDevices(2),
        [&](int frame, const Image& sum) {
            const std::lock_guard<std::mutex> lock(mutex);
            EXPECT_TRUE(written.emplace(frame, sum).second) << "frame " << frame << " written twice";
            writers.insert(std::this_thread::get_id());
        },
        &progress);
    const std::map<int, Image> rendered = Sequence(scene, frames, 1, {0, 1});
    ASSERT_EQ(written.size(), frames.size());
    for (const int f : frames) EXPECT_TRUE(SameBits(written.at(f), rendered.at(f))) << "frame " << f;
    EXPECT_EQ(writers.count(std::this_thread::get_id()), 0u);
}

TEST(SharedRender, AFailingWriteStopsTheRenderAndItsErrorIsRethrown) {
    const Scene scene = Pool();
    std::vector<int> frames(40);
    for (int f = 0; f < 40; ++f) frames[size_t(f)] = f;
    std::atomic<int> written{0};
    try {
        RenderAndWriteFrames(
            scene, Small(), frames, {0, 1}, CpuDevices(2),
            [&](int frame, const Image&) {
                if (frame == 1) throw RuntimeError("out/f_0001.png: error: no space left on the device");
                ++written;
            },
            nullptr);
        FAIL() << "no error";
    } catch (const RuntimeError& e) {
        EXPECT_STREQ(e.what(), "out/f_0001.png: error: no space left on the device");
    }
    EXPECT_LT(written, 39) << "the render went on after the write failed";
}

// Samples are keyed by their index in the whole: sample s rendered alone (first_sample = s) is the
// s-th term of the one-device sum, which adds them in order, so the single samples added in order
// are that sum bit for bit.
TEST(SharedRender, SamplesAreKeyedByTheirIndexInTheWhole) {
    const Scene scene = Pool();
    std::vector<Image> singles;
    for (uint32_t s = 0; s < 4; ++s) singles.push_back(Still(scene, {s, 1}, 1));
    EXPECT_TRUE(SameBits(SumInOrder(singles), Still(scene, {0, 4}, 1)));
    EXPECT_FALSE(SameBits(singles[1], singles[2])) << "two samples drew the same random numbers";
}

// A still on three devices is the sum, in the devices' order, of the three parts SplitSamples makes:
// bit for bit the same as those parts rendered one at a time (by other processes, say).
TEST(SharedRender, StillOnSeveralDevicesIsItsPartsAddedInOrder) {
    const Scene scene = Pool();
    const SampleSpan span{0, 7};
    std::vector<Image> parts;
    for (const SampleSpan& part : SplitSamples(span, 3)) parts.push_back(Still(scene, part, 1));
    EXPECT_TRUE(SameBits(Still(scene, span, 3), SumInOrder(parts)));
    EXPECT_TRUE(SameBits(Still(scene, span, 3), Still(scene, span, 3))) << "not the same twice";
}

// Against one device, which adds all S samples in one float sum, the split sum differs by rounding
// only. All terms are non-negative, so either float sum of S terms is within (S - 1) * 2^-24
// (relative, to first order) of the exact sum; the two are within twice that of each other.
TEST(SharedRender, StillOnSeveralDevicesEqualsOneDeviceWithinRounding) {
    const Scene scene = Pool();
    const uint32_t samples = 8;
    const Image one = Still(scene, {0, samples}, 1), three = Still(scene, {0, samples}, 3);
    const double bound = 2.0 * (samples - 1) * std::ldexp(1.0, -24) * 1.0001;
    double worst = 0;
    size_t different = 0;
    for (size_t p = 0; p < one.pixels.size(); ++p)
        for (int c = 0; c < 3; ++c) {
            const double a = one.pixels[p][c], b = three.pixels[p][c];
            ASSERT_GE(a, 0.0);
            different += a != b;
            if (a > 0) worst = std::max(worst, std::abs(a - b) / a);
        }
    EXPECT_LE(worst, bound) << different << " of " << one.pixels.size() * 3 << " values differ";
    // In an 8-bit file (the values a PNG holds) they differ by at most one level.
    const Image mean_one = ImageOfSum(one, samples, 1.0f), mean_three = ImageOfSum(three, samples, 1.0f);
    for (size_t p = 0; p < one.pixels.size(); ++p)
        for (int c = 0; c < 3; ++c)
            EXPECT_LE(std::abs(int(EncodeSrgb8(mean_one.pixels[p][c])) - int(EncodeSrgb8(mean_three.pixels[p][c]))), 1);
}

TEST(SharedRender, MoreDevicesThanSamples) {
    const Scene scene = Pool();
    EXPECT_TRUE(SameBits(Still(scene, {0, 2}, 3), SumInOrder({Still(scene, {0, 1}, 1), Still(scene, {1, 1}, 1)})));
}

TEST(SharedRender, AFailingDeviceStopsTheRenderAndItsErrorIsRethrown) {
    std::vector<RenderDevice> devices = CpuDevices(3);
    devices[1].make = []() -> Backend { throw RuntimeError("device 1 is gone"); };
    const Scene scene = Pool();
    int delivered = 0;
    std::mutex mutex;
    try {
        ImagePool sums;
        RenderFrames(scene, Small(), {0, 1, 2, 3, 4, 5, 6, 7}, {0, 1}, devices, sums, [&](int, int, Image) {
            const std::lock_guard<std::mutex> lock(mutex);
            ++delivered;
        });
        FAIL() << "no error";
    } catch (const RuntimeError& e) {
        EXPECT_STREQ(e.what(), "device 1 is gone");
    }
    EXPECT_LE(delivered, 8);
}

}  // namespace
}  // namespace caustica
