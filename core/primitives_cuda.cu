// GPU implementations of the parallel primitives, with CUB. Temporary storage comes from the
// backend's scratch memory, so a warm frame allocates nothing.
#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/device/device_select.cuh>

#include <utility>

#include "core/cuda_check.h"
#include "core/launch.h"
#include "core/memory.h"
#include "core/primitives_impl.h"

namespace caustica::gpu {
namespace {

// Runs a CUB call twice, as CUB expects: first to size its temporary storage (own == nullptr), then
// for real, with extra_bytes of the caller's own scratch ('own') carved off in front of CUB's, on the
// calling thread's stream.
template <class Call>
void* RunCub(const Backend& backend, size_t extra_bytes, const Call& call) {
    const cudaStream_t stream = ThreadCudaStream();
    size_t temp_bytes = 0;
    CA_CUDA_CHECK(call(nullptr, nullptr, temp_bytes, stream));
    const size_t extra = ScratchCarver::Round(extra_bytes);
    char* own = static_cast<char*>(backend.Scratch(extra + temp_bytes));
    CA_CUDA_CHECK(call(own, own + extra, temp_bytes, stream));
    return own;
}

// A value from device memory, in the calling thread's stream's order.
template <class T>
T ValueFromDevice(const void* on_device) {
    T value;
    CopyBytes(&value, MemorySpace::Host, on_device, MemorySpace::Device, sizeof(T));
    return value;
}

}  // namespace

// Scans of up to kSmallScanItems items, which the tree builders run several times per level: one
// block, one launch (CUB's device scan takes two, and the launches are most of the time).
constexpr int kSmallScanThreads = 256;
constexpr int kSmallScanItemsPerThread = 16;
constexpr size_t kSmallScanItems = size_t(kSmallScanThreads) * kSmallScanItemsPerThread;

// Every load happens before the block scan's barriers and every store after, so in may be out.
template <class T>
__global__ void __launch_bounds__(kSmallScanThreads) SmallExclusiveScanKernel(const T* in, T* out, int n) {
    detail::AfterPreviousKernel();
    using Load = cub::BlockLoad<T, kSmallScanThreads, kSmallScanItemsPerThread, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
    using Scan = cub::BlockScan<T, kSmallScanThreads>;
    using Store = cub::BlockStore<T, kSmallScanThreads, kSmallScanItemsPerThread, cub::BLOCK_STORE_WARP_TRANSPOSE>;
    __shared__ union {
        typename Load::TempStorage load;
        typename Scan::TempStorage scan;
        typename Store::TempStorage store;
    } temp;
    T items[kSmallScanItemsPerThread];
    Load(temp.load).Load(in, items, n, T(0));
    __syncthreads();
    Scan(temp.scan).ExclusiveSum(items, items);
    __syncthreads();
    Store(temp.store).Store(out, items, n);
}

template <class T>
void ExclusiveScan(const Backend& backend, Span<const T> in, Span<T> out) {
    if (in.size() <= kSmallScanItems) {
        detail::Launch(backend, "exclusive scan", SmallExclusiveScanKernel<T>, 1, kSmallScanThreads, 0, in.data(),
                       out.data(), int(in.size()));
        return;
    }
    RunCub(backend, 0, [&](void*, void* temp, size_t& bytes, cudaStream_t stream) {
        return cub::DeviceScan::ExclusiveSum(temp, bytes, in.data(), out.data(), int64_t(in.size()), stream);
    });
}

template <class T>
T Reduce(const Backend& backend, Span<const T> in, ReduceOp op) {
    const auto reduce = [&](void* own, void* temp, size_t& bytes, cudaStream_t stream) {
        T* result = static_cast<T*>(own);
        const int64_t n = int64_t(in.size());
        switch (op) {
            case ReduceOp::Min: return cub::DeviceReduce::Min(temp, bytes, in.data(), result, n, stream);
            case ReduceOp::Max: return cub::DeviceReduce::Max(temp, bytes, in.data(), result, n, stream);
            case ReduceOp::Sum: break;
        }
        return cub::DeviceReduce::Sum(temp, bytes, in.data(), result, n, stream);
    };
    void* result_on_device = RunCub(backend, sizeof(T), reduce);
    return ValueFromDevice<T>(result_on_device);
}

template <class T>
size_t Compact(const Backend& backend, Span<const T> in, Span<const uint8_t> flags, Span<T> out) {
    const auto select = [&](void* own, void* temp, size_t& bytes, cudaStream_t stream) {
        return cub::DeviceSelect::Flagged(temp, bytes, in.data(), flags.data(), out.data(),
                                          static_cast<int64_t*>(own), int64_t(in.size()), stream);
    };
    void* count_on_device = RunCub(backend, sizeof(int64_t), select);
    return size_t(ValueFromDevice<int64_t>(count_on_device));
}

namespace {

// CUB's sort of the pairs between two buffers each, the keys' second from scratch and the values'
// values_alt (from scratch too where null); returns the buffers its last pass wrote.
template <class K>
std::pair<K*, uint32_t*> SortPairsBetween(const Backend& backend, Span<K> keys, Span<uint32_t> values,
                                          uint32_t* values_alt, int begin_bit, int end_bit) {
    const size_t n = keys.size();
    const size_t alt_bytes =
        ScratchCarver::Round(n * sizeof(K)) + (values_alt ? 0 : ScratchCarver::Round(n * sizeof(uint32_t)));
    cub::DoubleBuffer<K> k(keys.data(), nullptr);
    cub::DoubleBuffer<uint32_t> v(values.data(), values_alt);
    RunCub(backend, alt_bytes, [&](void* own, void* temp, size_t& bytes, cudaStream_t stream) {
        if (own) {
            ScratchCarver carve(own);
            k.d_buffers[1] = carve.Take<K>(n);
            if (!values_alt) v.d_buffers[1] = carve.Take<uint32_t>(n);
        }
        return cub::DeviceRadixSort::SortPairs(temp, bytes, k, v, int64_t(n), begin_bit, end_bit, stream);
    });
    return {k.Current(), v.Current()};
}

}  // namespace

template <class K>
void RadixSortPairs(const Backend& backend, Span<K> keys, Span<uint32_t> values, int begin_bit, int end_bit) {
    const auto [sorted_keys, sorted_values] = SortPairsBetween(backend, keys, values, nullptr, begin_bit, end_bit);
    if (sorted_keys != keys.data()) {
        const size_t n = keys.size();
        const cudaStream_t stream = ThreadCudaStream();
        CA_CUDA_CHECK(cudaMemcpyAsync(keys.data(), sorted_keys, n * sizeof(K), cudaMemcpyDeviceToDevice, stream));
        CA_CUDA_CHECK(
            cudaMemcpyAsync(values.data(), sorted_values, n * sizeof(uint32_t), cudaMemcpyDeviceToDevice, stream));
    }
}

template <class K>
Span<uint32_t> SortValuesByKey(const Backend& backend, Span<K> keys, Span<uint32_t> values, Span<uint32_t> values_alt,
                               int begin_bit, int end_bit) {
    const uint32_t* sorted = SortPairsBetween(backend, keys, values, values_alt.data(), begin_bit, end_bit).second;
    return sorted == values.data() ? values : values_alt;
}

template <class T>
void SegmentedReduce(const Backend& backend, Span<const T> in, Span<const uint32_t> offsets, Span<T> out,
                     ReduceOp op) {
    const int64_t segments = int64_t(offsets.size() - 1);
    const uint32_t* begins = offsets.data();
    const uint32_t* ends = offsets.data() + 1;
    RunCub(backend, 0, [&](void*, void* temp, size_t& bytes, cudaStream_t stream) {
        switch (op) {
            case ReduceOp::Min:
                return cub::DeviceSegmentedReduce::Min(temp, bytes, in.data(), out.data(), segments, begins, ends,
                                                       stream);
            case ReduceOp::Max:
                return cub::DeviceSegmentedReduce::Max(temp, bytes, in.data(), out.data(), segments, begins, ends,
                                                       stream);
            case ReduceOp::Sum: break;
        }
        return cub::DeviceSegmentedReduce::Sum(temp, bytes, in.data(), out.data(), segments, begins, ends, stream);
    });
}

CA_INSTANTIATE_PRIMITIVE_IMPLEMENTATION

}  // namespace caustica::gpu
