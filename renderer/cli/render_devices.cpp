#include "renderer/cli/render_devices.h"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>

#include "core/error.h"

namespace caustica {
namespace {

RenderDevice GpuDevice(int number) {
    return {Concat("GPU ", number), DescribeCudaDevice(number), true, [number] { return Backend::Gpu(number); }};
}

}  // namespace

std::vector<int> ParseGpus(const std::string& text, int device_count) {
    const auto fail = [&](const std::string& what) -> std::vector<int> {
        throw InputError(Concat("--gpus ", text, ": ", what));
    };
    if (device_count < 1) return fail("no CUDA device is available on this machine");
    const std::string machine = Concat(" (this machine has ", device_count, " CUDA device",
                                       device_count == 1 ? "" : "s", ")");
    if (text == "all") {
        std::vector<int> all(size_t(device_count), 0);
        for (int d = 0; d < device_count; ++d) all[size_t(d)] = d;
        return all;
    }
    std::vector<int> numbers;
    size_t start = 0;
    for (;;) {
        const size_t comma = text.find(',', start);
        const std::string word = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (word.empty() || word.size() > 4 || word.find_first_not_of("0123456789") != std::string::npos)
            return fail("expected all, a count N, or device numbers such as 0,2,3");
        numbers.push_back(std::atoi(word.c_str()));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    if (numbers.size() == 1) {  // a count
        const int count = numbers[0];
        if (count < 1 || count > device_count)
            return fail(Concat("expected a count from 1 to ", device_count, machine));
        numbers.resize(size_t(count));
        for (int d = 0; d < count; ++d) numbers[size_t(d)] = d;
        return numbers;
    }
    for (size_t i = 0; i < numbers.size(); ++i) {
        if (numbers[i] >= device_count)
            return fail(Concat("there is no CUDA device ", numbers[i], machine));
        if (std::find(numbers.begin(), numbers.begin() + long(i), numbers[i]) != numbers.begin() + long(i))
            return fail(Concat("device ", numbers[i], " is named twice"));
    }
    return numbers;
}

std::vector<RenderDevice> SelectRenderDevices(const std::string& device, const std::string& gpus) {
    if (gpus.empty()) {
        // The one device of --device, as a single-device render always had it.
        if (device == "cpu" || (device == "auto" && !CudaDeviceAvailable())) return CpuDevices(1);
        if (!CudaDeviceAvailable()) Backend::Create(device);  // --device cuda without one: its InputError
        return {{"GPU", DescribeCudaDevice(0), true, [device] { return Backend::Create(device); }}};
    }
    if (device == "cpu")
        throw InputError(Concat("--gpus ", gpus, ": chooses CUDA devices; it cannot be used with --device cpu"));
#if !CAUSTICA_WITH_CUDA
    throw InputError(Concat("--gpus ", gpus, ": this build of caustica has no CUDA backend "
                            "(rebuild with the CUDA toolkit)"));
#endif
    std::vector<RenderDevice> devices;
    for (const int number : ParseGpus(gpus, CudaDeviceCount())) devices.push_back(GpuDevice(number));
    return devices;
}

std::vector<RenderDevice> CpuDevices(int count) {
    const std::string description = Backend::Cpu().Describe();
    std::vector<RenderDevice> devices;
    for (int i = 0; i < count; ++i)
        devices.push_back({count == 1 ? std::string("CPU") : Concat("CPU ", i), description, false, &Backend::Cpu});
    return devices;
}

void RunOnDevices(const std::vector<RenderDevice>& devices, const DeviceWork& work) {
    std::atomic<bool> stop{false};
    std::mutex mutex;
    std::exception_ptr first_error;
    std::vector<std::thread> threads;
    for (size_t i = 0; i < devices.size(); ++i) {
        threads.emplace_back([&, i] {
            try {
                const Backend backend = devices[i].make();
                work(int(i), backend, stop);
            } catch (...) {
                const std::lock_guard<std::mutex> lock(mutex);
                if (!first_error) first_error = std::current_exception();
                stop = true;
            }
        });
    }
    for (std::thread& thread : threads) thread.join();
    if (first_error) std::rethrow_exception(first_error);
}

std::string DescribeDevices(const std::vector<RenderDevice>& devices) {
    if (devices.size() == 1) return devices[0].description;
    std::string text = Concat(devices.size(), devices[0].gpu ? " GPUs (" : " CPU workers (");
    for (size_t i = 0; i < devices.size(); ++i)
        text += Concat(i == 0 ? "" : ", ", devices[i].name, ": ", devices[i].description);
    return text + ")";
}

}  // namespace caustica
