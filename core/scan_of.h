// An exclusive scan of values made on the fly: out[i] = value(0) + ... + value(i - 1) for i < n,
// where value(j) is a CA_HD functor returning uint32_t. The values are never stored: a pass that
// only exists to feed a scan (the point tree's left flags) costs neither its launch nor its writes
// and reads. A launch unit only, as ParallelFor.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/parallel_for.h"
#include "core/primitives.h"
#include "core/span.h"

#if defined(__CUDACC__)
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cub/device/device_scan.cuh>

#include "core/cub_call.h"
#endif

namespace caustica {

namespace detail {
template <class Value>
struct StoreValues {
    Value value;
    Span<uint32_t> out;
    CA_HD void operator()(int i) const { out[i] = value(uint32_t(i)); }
};
}  // namespace detail

template <class Value>
void ExclusiveScanOf(const Backend& backend, size_t n, const Value& value, Span<uint32_t> out) {
    CA_CHECK_LE(n, out.size());
    if (n == 0) return;
    if (backend.IsGpu()) {
#if defined(__CUDACC__)
        const auto values = thrust::make_transform_iterator(thrust::counting_iterator<uint32_t>(0), value);
        gpu::RunCub(backend, 0, [&](void*, void* temp, size_t& bytes) {
            return cub::DeviceScan::ExclusiveSum(temp, bytes, values, out.data(), int64_t(n));
        });
        return;
#endif
    }
    // The CPU stores the values and scans them in place.
    ParallelFor(backend, "scan values", n, detail::StoreValues<Value>{value, out});
    ExclusiveScan(backend, Span<const uint32_t>(out.first(n)), out.first(n));
}

}  // namespace caustica
