// Rendering shared out between devices (render_devices.h): the frames of a sequence through a
// shared queue, so that a faster or less loaded device takes more of them; or the samples of a
// still in one contiguous part for each device, whose float sums are added in the devices' order.
// Each device renders with its own backend, renderer and buffers on its own host thread, by the
// same code as a single device. Random numbers are keyed by sample, pass and item, so a frame
// does not depend on the device that rendered it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "renderer/cli/progress.h"
#include "renderer/cli/render_devices.h"
#include "renderer/output/image.h"
#include "renderer/output/image_pool.h"
#include "renderer/scene/scene.h"
#include "renderer/scene_to_frame.h"

namespace caustica {

// Samples first to first + count - 1 of a frame (their random numbers are keyed by these indices).
struct SampleSpan {
    uint32_t first = 0, count = 1;
};

// 'span' cut into 'parts' contiguous parts in order, as equal as can be (some empty when
// count < parts).
std::vector<SampleSpan> SplitSamples(SampleSpan span, int parts);

// The images added pixel by pixel in float, in the order given: ((a + b) + c) + ...
Image SumInOrder(const std::vector<Image>& images);

// Called with a finished frame, one at a time for each device (on the device's hand-over thread):
// the device's index and the float sum of the frame's samples.
using FrameSink = std::function<void(int device, int frame, Image sum)>;

// Renders the span's samples of each frame of 'frames', the frames going to the devices through a
// shared queue, and hands each frame's sum to 'deliver' as it is done. Each device prepares its
// next frame's geometry while the frame's first sample runs (FrameRenderer::PrepareGeometryAhead;
// on a GPU of enough SMs on a share of them, DefaultGeometryAheadSms), and
// hands a frame's sum over while its next frame renders (FrameRenderer::StartSampleSumDownload);
// the frames are those of frames prepared in turn. The sums are downloaded into images taken from
// 'sums', to which 'deliver' may give them back.
void RenderFrames(const Scene& scene, const RenderOptions& options, const std::vector<int>& frames, SampleSpan span,
                  const std::vector<RenderDevice>& devices, ImagePool& sums, const FrameSink& deliver);

// Writer threads for a render's frames of frame_bytes each beside 'devices' devices: the cores
// that the devices' two host threads each leave (a frame's passes run in two chains; a third
// issues the next frame's geometry and a fourth hands the frames over, each a few ms a frame),
// from 1 to 16, and no more than keep kImageWriterBytes of frames in memory with the three of each
// device beside the writers' (one in the writers' queue, one its hand-over holds while the queue
// is full, one in its download buffer).
constexpr size_t kImageWriterBytes = size_t(4) << 30;
int ImageWriterThreads(int devices, size_t frame_bytes);

// Encodes and writes a finished frame's sum (on a writer thread), which is its own to change.
using FrameWriter = std::function<void(int frame, Image& sum)>;

// RenderFrames, each frame's sum handed to 'write' on writer threads of their own
// (core/background_jobs.h; ImageWriterThreads of them), so that the devices render the next frames while
// the last ones are encoded and written. progress (if any) advances by one for each frame written,
// on the device that rendered it. The first error, a device's or a writer's, stops the work and is
// rethrown once the frames being written are done.
void RenderAndWriteFrames(const Scene& scene, const RenderOptions& options, const std::vector<int>& frames,
                          SampleSpan span, const std::vector<RenderDevice>& devices, const FrameWriter& write,
                          ProgressBar* progress);

// Renders the span's samples of one frame, split by SplitSamples into one part for each device
// (in the devices' order), and returns their float sums added in that order. progress (if any)
// advances by one for each sample.
Image RenderStill(const Scene& scene, const RenderOptions& options, int frame, SampleSpan span,
                  const std::vector<RenderDevice>& devices, ProgressBar* progress);

}  // namespace caustica
