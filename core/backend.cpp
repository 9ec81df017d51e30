#include "core/backend.h"

#include <tbb/info.h>

#include "core/buffer.h"
#include "core/error.h"

#if CAUSTICA_WITH_CUDA
#include "core/cuda_check.h"
#endif

namespace caustica {

struct Backend::ScratchMemory {
    Buffer<unsigned char> bytes;
    Buffer<unsigned long long> lookback;
    uint32_t lookback_tag = 0;
    unsigned long long tiles_handed_out = 0;
};

Backend::Backend(DeviceKind kind, Priority priority, int device)
    : kind_(kind), device_(device), background_(priority == Priority::Lowest),
      scratch_(std::make_unique<ScratchMemory>()) {
    if (kind == DeviceKind::Cuda) {
        const StreamPriorities range = CurrentDeviceStreamPriorities();
        launch_priority_ = priority == Priority::Highest ? range.highest : range.lowest;
    }
    const MemorySpace space = SpaceOf(*this);
    scratch_->bytes = Buffer<unsigned char>(space);
    scratch_->lookback = Buffer<unsigned long long>(space);
}
Backend::Backend(Backend&&) noexcept = default;
Backend& Backend::operator=(Backend&&) noexcept = default;
Backend::~Backend() = default;

int CudaDeviceCount() {
#if CAUSTICA_WITH_CUDA
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return count;
#else
    return 0;
#endif
}

StreamPriorities CurrentDeviceStreamPriorities() {
    StreamPriorities range;
#if CAUSTICA_WITH_CUDA
    CA_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&range.lowest, &range.highest));
#endif
    return range;
}

bool CudaDeviceAvailable() { return CudaDeviceCount() > 0; }

Backend Backend::Cpu() { return Backend(DeviceKind::Cpu, Priority::Highest, -1); }

Backend Backend::Background() const { return Backend(kind_, Priority::Lowest, device_); }

Backend Backend::Sibling() const {
    return Backend(kind_, background_ ? Priority::Lowest : Priority::Highest, device_);
}

#if CAUSTICA_WITH_CUDA
namespace {
int CurrentDevice() {
    int device = 0;
    CA_CUDA_CHECK(cudaGetDevice(&device));
    return device;
}
}  // namespace
#endif

Backend Backend::Gpu(int device) {
#if CAUSTICA_WITH_CUDA
    const int count = CudaDeviceCount();
    if (device < 0 || device >= count)
        throw InputError(count == 0 ? std::string("--gpus: no CUDA device is available on this machine")
                                    : Concat("--gpus: there is no CUDA device ", device, " (this machine has ", count,
                                             ": 0 to ", count - 1, ")"));
    CA_CUDA_CHECK(cudaSetDevice(device));
    return Backend(DeviceKind::Cuda, Priority::Highest, device);
#else
    (void)device;
    throw InputError("--gpus: this build of caustica has no CUDA backend (rebuild with the CUDA toolkit)");
#endif
}

Backend Backend::Create(const std::string& choice) {
    if (choice == "cpu") return Cpu();
    if (choice == "auto") return CudaDeviceAvailable() ? Create("cuda") : Cpu();
    if (choice == "cuda") {
#if CAUSTICA_WITH_CUDA
        if (!CudaDeviceAvailable())
            throw InputError("--device cuda: no CUDA device is available on this machine (use --device cpu or auto)");
        return Backend(DeviceKind::Cuda, Priority::Highest, CurrentDevice());
#else
        throw InputError("--device cuda: this build of caustica has no CUDA backend "
                         "(rebuild with the CUDA toolkit, or use --device cpu or auto)");
#endif
    }
    throw InputError(Concat("--device: unknown device \"", choice, "\" (expected auto, cpu or cuda)"));
}

std::string Backend::Describe() const {
    if (!IsGpu()) return Concat("CPU (oneTBB, ", tbb::info::default_concurrency(), " threads)");
    return DescribeCudaDevice(device_);
}

std::string DescribeCudaDevice(int device) {
#if CAUSTICA_WITH_CUDA
    cudaDeviceProp prop{};
    CA_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    return Concat(prop.name, " (sm_", prop.major, prop.minor, ", ", prop.multiProcessorCount, " SMs, ",
                  prop.totalGlobalMem >> 20, " MiB)");
#else
    return Concat("CUDA device ", device);
#endif
}

void Backend::Synchronize() const {
#if CAUSTICA_WITH_CUDA
    if (IsGpu()) {
        CA_CUDA_CHECK(cudaGetLastError());
        CA_CUDA_CHECK(cudaStreamSynchronize(ThreadCudaStream()));
    }
#endif
}

void* Backend::Scratch(size_t bytes) const {
    scratch_->bytes.Resize(bytes, false);
    return scratch_->bytes.data();
}

Backend::LookbackStatus Backend::Lookback(size_t tiles) const {
    ScratchMemory& m = *scratch_;
    constexpr uint32_t kTags = 1u << 30;  // the status words keep 30 bits of the tag
    const size_t capacity = m.lookback.capacity();
    m.lookback.Resize(1 + tiles, false);
    // New memory, or tags about to repeat: clear the words (tag 0 is never handed out) and the
    // tile counter. The clearing is queued before the pass that uses them.
    if (m.lookback.capacity() != capacity || m.lookback_tag + 1 == kTags) {
        m.lookback.Resize(m.lookback.capacity(), false);
        m.lookback.FillBytes(0);
        m.lookback.Resize(1 + tiles, false);
        m.lookback_tag = 0;
        m.tiles_handed_out = 0;
    }
    const LookbackStatus status{m.lookback.data(), ++m.lookback_tag, m.tiles_handed_out};
    m.tiles_handed_out += tiles;
    return status;
}

}  // namespace caustica
