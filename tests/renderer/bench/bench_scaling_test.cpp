// bench frame --gpus's measurement, with two CPU backends standing in for GPUs: every run is
// timed and reported (the CPU's speed-up means nothing: both share its cores).
#include <gtest/gtest.h>

#include "core/error.h"
#include "renderer/bench/bench_frame.h"
#include "renderer/bench/bench_scaling.h"
#include "renderer/cli/render_devices.h"
#include "renderer/scene/scene_loader.h"
#include "tests/test_support.h"

namespace caustica {
namespace {

TEST(BenchScaling, TimesTheSequenceAndTheStillAloneAndShared) {
    const Scene scene = LoadScene(std::string(CAUSTICA_SOURCE_DIR) + "/scenes/pool.yaml");
    RenderOptions options;
    options.device = "cpu";
    options.width = 32;
    options.photons = 2000;
    const std::vector<ScalingRun> runs = MeasureScaling(scene, options, CpuDevices(2), 3, 2, 4);
    ASSERT_EQ(runs.size(), 4u);
    const char* workloads[] = {"sequence", "sequence", "still", "still"};
    for (size_t i = 0; i < runs.size(); ++i) {
        EXPECT_EQ(runs[i].workload, workloads[i]);
        EXPECT_EQ(runs[i].devices, i % 2 == 0 ? 1 : 2);
        EXPECT_GT(runs[i].seconds, 0.0);
        EXPECT_NEAR(runs[i].rate, (i < 2 ? 3 : 4) / runs[i].seconds, 1e-9);
    }
    EXPECT_EQ(runs[0].speedup, 1.0);
    EXPECT_NEAR(runs[1].speedup, runs[0].seconds / runs[1].seconds, 1e-12);
}

TEST(BenchScaling, OptionsThatGoWithGpusAloneAreInputErrors) {
    EXPECT_EQ(testing::InputErrorOf([] { BenchFrameMain({"--device", "cpu", "--samples", "4"}); }),
              "caustica bench frame: --samples and --still-samples go with --gpus (the per-pass times are of one "
              "sample)");
    EXPECT_EQ(testing::InputErrorOf([] { BenchFrameMain({"--device", "cpu", "--gpus", "2"}); }),
              "--gpus 2: chooses CUDA devices; it cannot be used with --device cpu");
    EXPECT_EQ(testing::InputErrorOf([] { BenchFrameMain({"--device", "cpu", "--gpus", "2", "--ahead-sms", "8"}); }),
              "caustica bench frame: --ahead-sms goes without --gpus (the scaling runs the render command's frames, "
              "each of several samples)");
    EXPECT_EQ(testing::InputErrorOf([] { BenchFrameMain({"--device", "cpu", "--gpus", "2", "--display"}); }),
              "caustica bench frame: --display goes without --gpus (the scaling runs the render command's frames, "
              "each of several samples)");
}

// The next frame's geometry ahead on a share of the SMs needs a GPU.
TEST(BenchFrame, SmsForTheGeometryAheadOnTheCpuAreInputErrors) {
    EXPECT_EQ(testing::InputErrorOf([] { BenchFrameMain({"--device", "cpu", "--frames", "1", "--ahead-sms", "8"}); }),
              "--ahead-sms 8: expected 0 on the CPU, which has no SMs to share");
    EXPECT_EQ(testing::InputErrorOf([] { BenchFrameMain({"--device", "cpu", "--frames", "1", "--ahead-sms", "-1"}); }),
              "--ahead-sms -1: expected 0 on the CPU, which has no SMs to share");
}

}  // namespace
}  // namespace caustica
