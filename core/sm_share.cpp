#include "core/sm_share.h"

#include "core/error.h"
#include "core/thread_stream.h"

#if CAUSTICA_WITH_CUDA
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include "core/backend.h"
#include "core/cuda_check.h"
#include "core/once_per_device.h"
#endif

namespace caustica {

#if CAUSTICA_WITH_CUDA
namespace {

// The driver's green-context calls, found through the runtime so that the program does not link
// the driver library (a CUDA build still starts, and renders on the CPU, where there is no driver).
struct GreenApi {
    PFN_cuGetErrorString_v6000 error_string = nullptr;
    PFN_cuDeviceGetDevResource_v12040 device_resource = nullptr;
    PFN_cuDevSmResourceSplitByCount_v12040 split = nullptr;
    PFN_cuDevResourceGenerateDesc_v12040 describe = nullptr;
    PFN_cuGreenCtxCreate_v12040 create = nullptr;
    PFN_cuGreenCtxDestroy_v12040 destroy = nullptr;
    PFN_cuGreenCtxStreamCreate_v12050 stream_create = nullptr;
    PFN_cuStreamDestroy_v4000 stream_destroy = nullptr;

    template <class F>
    static void Find(const char* symbol, unsigned version, F* fn) {
        cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
        void* p = nullptr;
        if (cudaGetDriverEntryPointByVersion(symbol, &p, version, cudaEnableDefault, &found) != cudaSuccess ||
            found != cudaDriverEntryPointSuccess || !p) {
            cudaGetLastError();
            throw RuntimeError(Concat("splitting the GPU's SMs needs the CUDA driver's ", symbol,
                                      " (a driver for CUDA 12.5 or later)"));
        }
        *fn = reinterpret_cast<F>(p);
    }
    GreenApi() {
        Find("cuGetErrorString", 6000, &error_string);
        Find("cuDeviceGetDevResource", 12040, &device_resource);
        Find("cuDevSmResourceSplitByCount", 12040, &split);
        Find("cuDevResourceGenerateDesc", 12040, &describe);
        Find("cuGreenCtxCreate", 12040, &create);
        Find("cuGreenCtxDestroy", 12040, &destroy);
        Find("cuGreenCtxStreamCreate", 12050, &stream_create);
        Find("cuStreamDestroy", 4000, &stream_destroy);
    }
    void Check(CUresult r, const char* call) const {
        if (r == CUDA_SUCCESS) return;
        const char* text = "unknown error";
        error_string(r, &text);
        throw RuntimeError(Concat("splitting the GPU's SMs: ", call, " failed: ", text));
    }
};

}  // namespace

struct SmShares::Impl {
    GreenApi api;
    CUgreenCtx contexts[2] = {};
    CUstream streams[2] = {};
    int sms[2] = {};

    ~Impl() {
        for (CUstream s : streams)
            if (s) cudaStreamSynchronize(static_cast<cudaStream_t>(s));  // never throws: a destructor
        for (CUstream s : streams)
            if (s) {
                ForgetShareStream(s);
                api.stream_destroy(s);
            }
        for (CUgreenCtx c : contexts)
            if (c) api.destroy(c);
    }
};

SmShares::SmShares(int device, int first_sms) : impl_(std::make_unique<Impl>()) {
    Impl& m = *impl_;
    CA_CUDA_CHECK(cudaSetDevice(device));  // the primary context first, which the shares keep
    CUdevResource all{}, parts[2]{};
    m.api.Check(m.api.device_resource(CUdevice(device), &all, CU_DEV_RESOURCE_TYPE_SM), "cuDeviceGetDevResource");
    unsigned groups = 1;
    m.api.Check(m.api.split(&parts[0], &groups, &all, &parts[1], 0, unsigned(first_sms)),
                "cuDevSmResourceSplitByCount");
    if (groups != 1 || parts[1].sm.smCount == 0)
        throw RuntimeError(Concat("splitting the GPU's SMs: ", all.sm.smCount, " SMs cannot give ", first_sms,
                                  " to one share and keep some for the other"));
    // The shares' streams at the highest priority, as PriorityStream's: launches that name no
    // priority of their own (CUB's, copies) take the stream's, and at the lowest a CUB scan of the
    // tree built ahead waited 2 ms for a background chain's blocks to leave the SMs (the Cornell box
    // with the median-or-SAH choice, H200, docs/notes/frame-performance.md).
    const int priority = CurrentDeviceStreamPriorities().highest;
    for (int i = 0; i < 2; ++i) {
        CUdevResourceDesc desc{};
        m.api.Check(m.api.describe(&desc, &parts[i], 1), "cuDevResourceGenerateDesc");
        m.api.Check(m.api.create(&m.contexts[i], desc, CUdevice(device), CU_GREEN_CTX_DEFAULT_STREAM),
                    "cuGreenCtxCreate");
        m.api.Check(m.api.stream_create(&m.streams[i], m.contexts[i], CU_STREAM_NON_BLOCKING, priority),
                    "cuGreenCtxStreamCreate");
        m.sms[i] = int(parts[i].sm.smCount);
        NameShareStream(m.streams[i], m.sms[i]);
    }
}

int SmShares::FirstSms() const { return impl_->sms[0]; }
int SmShares::SecondSms() const { return impl_->sms[1]; }
void* SmShares::FirstStream() const { return impl_->streams[0]; }
void* SmShares::SecondStream() const { return impl_->streams[1]; }
void SmShares::Synchronize() const {
    for (CUstream s : impl_->streams) CA_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(s)));
}

int SmCount(int device) {
    // Asked once a device: grids sized by it are launched several times a frame.
    return OnceForDevice(device, [device] {
        int sms = 0;
        CA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        return sms;
    });
}
#else

struct SmShares::Impl {};
SmShares::SmShares(int, int) { throw RuntimeError("splitting the GPU's SMs needs a build with CUDA"); }
int SmShares::FirstSms() const { return 0; }
int SmShares::SecondSms() const { return 0; }
void* SmShares::FirstStream() const { return nullptr; }
void* SmShares::SecondStream() const { return nullptr; }
void SmShares::Synchronize() const {}

int SmCount(int) { return 0; }
#endif

int ThreadStreamSmCount(int device) { return ThreadStreamSms() > 0 ? ThreadStreamSms() : SmCount(device); }

SmShares::~SmShares() = default;

}  // namespace caustica
