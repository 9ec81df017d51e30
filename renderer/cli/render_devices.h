// The devices a render uses (--device, --gpus) and one host thread for each: every GPU gets its
// own thread, backend and buffers, running the same code as a single device. CPU backends can
// stand in for GPUs (CpuDevices), so that the sharing of work is tested where there is no GPU.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "core/backend.h"

namespace caustica {

struct RenderDevice {
    std::string name;         // "GPU 1", or "CPU"
    std::string description;  // what it is (Backend::Describe)
    bool gpu = false;
    std::function<Backend()> make;  // called on the device's own host thread
};

// The CUDA device numbers that --gpus names out of 'device_count': "all", a count N (the first N
// devices), or a list of numbers "0,2,3". Anything else, a number out of range or named twice is
// an InputError.
std::vector<int> ParseGpus(const std::string& text, int device_count);

// Without --gpus (gpus empty): the one device that --device picks. With it: those CUDA devices.
std::vector<RenderDevice> SelectRenderDevices(const std::string& device, const std::string& gpus);

// 'count' CPU backends standing in for GPUs (each uses all the CPU's threads).
std::vector<RenderDevice> CpuDevices(int count);

// Runs work(index, backend, stop) for each device on a host thread of its own (the backend is made
// there) and returns when every one has. When one throws, 'stop' turns true for the others, which
// should return at their next item; the first error is then rethrown.
using DeviceWork = std::function<void(int index, const Backend& backend, const std::atomic<bool>& stop)>;
void RunOnDevices(const std::vector<RenderDevice>& devices, const DeviceWork& work);

// "GPU 0 (NVIDIA H100 ...)" for one device, "2 GPUs (0: ..., 1: ...)" for several.
std::string DescribeDevices(const std::vector<RenderDevice>& devices);

}  // namespace caustica
