// The sample sum downloaded while the next frame is queued, on the CPU backend (the GPU's in
// frame_gpu_test.cpp).
#include <gtest/gtest.h>

#include "tests/renderer/sample_sum_download.h"

namespace caustica {
namespace {

TEST(SampleSumDownload, IsTheSumAtItsStartInTheImagesStorage) {
    testing::ExpectDownloadedSumsBehindTheNextFrames(Backend::Cpu());
}

TEST(SampleSumDownload, OneAtATime) {
    const Backend cpu = Backend::Cpu();
    const auto renderer = testing::RenderStill(
        cpu, LoadScene(std::string(CAUSTICA_SOURCE_DIR) + "/scenes/pool.yaml"), testing::SmallFrame(2000, 8, 8), 1);
    Image sum;
    EXPECT_THROW(renderer->FinishSampleSumDownload(sum), RuntimeError);
    renderer->StartSampleSumDownload();
    EXPECT_THROW(renderer->StartSampleSumDownload(), RuntimeError);
    renderer->FinishSampleSumDownload(sum);
    EXPECT_EQ(sum.pixels, renderer->SampleSum().pixels);
}

}  // namespace
}  // namespace caustica
