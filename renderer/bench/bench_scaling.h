// caustica bench frame --gpus: how rendering scales over several devices, by the render command's
// own code (cli/shared_render.h): a sequence whose frames go to the devices through the shared
// queue, and a still whose samples are shared out, each on the first device alone and then on all.
#pragma once

#include <string>
#include <vector>

#include "renderer/cli/render_devices.h"
#include "renderer/scene/scene.h"
#include "renderer/scene_to_frame.h"

namespace caustica {

struct ScalingRun {
    std::string workload;  // "sequence" or "still"
    int devices = 0;
    double seconds = 0;
    double rate = 0;      // frames or samples per second
    double speedup = 1;   // over the first device alone
};

// Times 'frames' frames of 'samples' samples each (by render's code: each frame encoded as PNG in
// memory on the writer threads, as render would write it) and one frame of 'still_samples'
// samples, on devices[0] alone and on all the devices, after a warm-up frame on each device.
std::vector<ScalingRun> MeasureScaling(const Scene& scene, const RenderOptions& options,
                                       const std::vector<RenderDevice>& devices, int frames, int samples,
                                       int still_samples);

}  // namespace caustica
