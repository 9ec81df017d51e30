// FrameRenderer's sample sum downloaded in two steps (StartSampleSumDownload, then
// FinishSampleSumDownload) with the next frame queued between them: the image is the sum as it was
// at Start, bit for bit SampleSum's, and an image of the frame's size keeps its storage. Frames of
// 64x36 and 16x9 pixels: on the GPU a copy engine's copy and the read-back kernel's.
#pragma once

#include <gtest/gtest.h>

#include <cstring>

#include "renderer/frame_renderer.h"
#include "renderer/scene/scene_loader.h"
#include "renderer/scene_to_frame.h"
#include "tests/renderer/render_still.h"

namespace caustica::testing {

inline void ExpectDownloadedSumsBehindTheNextFrames(const Backend& backend) {
    const Scene scene = LoadScene(std::string(CAUSTICA_SOURCE_DIR) + "/scenes/pool.yaml");
    for (const auto& [width, height] : {std::pair{64, 36}, std::pair{16, 9}}) {
        const RenderOptions options = SmallFrame(20000, width, height);
        FrameRenderer renderer(backend);
        renderer.SetMaterials(ToSceneMaterials(scene));
        const RenderSettings settings = MakeRenderSettings(scene, options, backend);
        SceneFrames frames(scene, MakeImageSize(options));
        Image downloaded;
        const Rgb* storage = nullptr;
        for (int f = 0; f < 3; ++f) {
            renderer.Prepare(frames.At(f * 0.5), settings);
            renderer.AddSample();
            renderer.AddSample();
            const Image expected = renderer.SampleSum();
            renderer.StartSampleSumDownload();
            renderer.Prepare(frames.At(f * 0.5 + 0.25), settings);  // clears the sum on the device
            renderer.AddSample();
            renderer.FinishSampleSumDownload(downloaded);
            ASSERT_EQ(downloaded.width, width);
            ASSERT_EQ(downloaded.height, height);
            ASSERT_EQ(downloaded.pixels.size(), expected.pixels.size());
            EXPECT_EQ(std::memcmp(downloaded.pixels.data(), expected.pixels.data(),
                                  expected.pixels.size() * sizeof(Rgb)),
                      0)
                << width << "x" << height << ", frame " << f;
            EXPECT_NE(std::memcmp(renderer.SampleSum().pixels.data(), expected.pixels.data(),
                                  expected.pixels.size() * sizeof(Rgb)),
                      0)
                << "the frame queued behind the download should have changed the sum";
            if (storage) {
                EXPECT_EQ(downloaded.pixels.data(), storage) << "the image's storage was not reused";
            }
            storage = downloaded.pixels.data();
        }
    }
}

}  // namespace caustica::testing
