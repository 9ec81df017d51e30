// Frame ranges, shards, sample ranges and --gpus lists as the render command reads them.
#include <gtest/gtest.h>

#include <set>

#include "core/error.h"
#include "renderer/cli/frame_range.h"
#include "renderer/cli/render_devices.h"
#include "tests/test_support.h"

namespace caustica {
namespace {

TEST(FrameRange, ParsesRangesAndSingleFrames) {
    EXPECT_EQ(ParseFrames("3:7").first, 3);
    EXPECT_EQ(ParseFrames("3:7").last, 7);
    EXPECT_EQ(ParseFrames("5").count(), 1);
    for (const char* bad : {"", ":", "7:3", "-1:2", "a:b", "1:2:3", "+1:2", "1:", "99999999999"})
        EXPECT_THROW(ParseFrames(bad), InputError) << bad;
}

TEST(Shard, EveryFrameInExactlyOneShardInOrder) {
    for (const FrameRange frames : {FrameRange{0, 0}, FrameRange{0, 300}, FrameRange{5, 11}, FrameRange{10, 12}})
        for (const int n : {1, 2, 3, 7, 64}) {
            int next = frames.first, longest = 0, shortest = 1 << 30;
            for (int i = 0; i < n; ++i) {
                const FrameRange part = ShardOf(frames, {i, n});
                EXPECT_EQ(part.first, next) << "shard " << i << "/" << n;
                EXPECT_GE(part.count(), longest == 0 ? 0 : part.count());
                longest = std::max(longest, part.count());
                shortest = std::min(shortest, part.count());
                next = part.last + 1;
            }
            EXPECT_EQ(next, frames.last + 1);
            EXPECT_LE(longest - shortest, 1) << n << " shards";
        }
    EXPECT_EQ(ShardOf({0, 2}, {0, 5}).count(), 0) << "fewer frames than shards: the first shards are empty";
    EXPECT_EQ(ShardOf({0, 9}, {3, 4}).first, 7);
    EXPECT_EQ(ShardOf({0, 9}, {3, 4}).last, 9);
}

TEST(Shard, ParsesIOverN) {
    EXPECT_EQ(ParseShard("0/1").count, 1);
    EXPECT_EQ(ParseShard("3/8").index, 3);
    for (const char* bad : {"", "1", "8/8", "1/0", "-1/4", "a/b", "1/2/3", "1:4"})
        EXPECT_THROW(ParseShard(bad), InputError) << bad;
    EXPECT_EQ(testing::InputErrorOf([] { ParseShard("4/4"); }),
              "--shard \"4/4\": expected I/N with 0 <= I < N (shard I of N, from 0)");
}

TEST(SampleRangeArg, HalfOpenWithinTheSamples) {
    EXPECT_EQ(ParseSampleRange("0:16", 64).first, 0u);
    EXPECT_EQ(ParseSampleRange("16:64", 64).end, 64u);
    for (const char* bad : {"", "3", "4:4", "5:3", "0:65", "a:3"}) EXPECT_THROW(ParseSampleRange(bad, 64), InputError) << bad;
    EXPECT_EQ(testing::InputErrorOf([] { ParseSampleRange("0:65", 64); }),
              "--sample-range \"0:65\": expected A:B with 0 <= A < B <= 64 (samples A to B-1 of --samples 64)");
}

TEST(FrameRuns, ListsRuns) {
    EXPECT_EQ(FrameRuns({0, 1, 2, 5, 8, 9, 10, 11, 12}), "0-2, 5, 8-12");
    EXPECT_EQ(FrameRuns({4}), "4");
}

TEST(Gpus, AllACountOrAList) {
    EXPECT_EQ(ParseGpus("all", 3), (std::vector<int>{0, 1, 2}));
    EXPECT_EQ(ParseGpus("2", 3), (std::vector<int>{0, 1}));
    EXPECT_EQ(ParseGpus("0,2", 3), (std::vector<int>{0, 2}));
    EXPECT_EQ(ParseGpus("2,0", 3), (std::vector<int>{2, 0}));
    EXPECT_EQ(testing::InputErrorOf([] { ParseGpus("4", 2); }),
              "--gpus 4: expected a count from 1 to 2 (this machine has 2 CUDA devices)");
    EXPECT_EQ(testing::InputErrorOf([] { ParseGpus("0,3", 2); }),
              "--gpus 0,3: there is no CUDA device 3 (this machine has 2 CUDA devices)");
    EXPECT_EQ(testing::InputErrorOf([] { ParseGpus("1,1", 2); }), "--gpus 1,1: device 1 is named twice");
    EXPECT_EQ(testing::InputErrorOf([] { ParseGpus("all", 0); }),
              "--gpus all: no CUDA device is available on this machine");
    for (const char* bad : {"", "0", "-1", "1,", ",1", "a", "1;2", "1, 2"}) EXPECT_THROW(ParseGpus(bad, 4), InputError) << bad;
}

TEST(Gpus, CannotBeAskedWithTheCpuDevice) {
    EXPECT_EQ(testing::InputErrorOf([] { SelectRenderDevices("cpu", "2"); }),
              "--gpus 2: chooses CUDA devices; it cannot be used with --device cpu");
    EXPECT_EQ(SelectRenderDevices("cpu", "").size(), 1u);
    EXPECT_FALSE(SelectRenderDevices("cpu", "")[0].gpu);
}

}  // namespace
}  // namespace caustica
