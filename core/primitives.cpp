// Chooses the CPU or GPU implementation of each primitive.
#include <algorithm>
#include <limits>

#include "core/error.h"
#include "core/primitives_impl.h"
#include "core/readback.h"

namespace caustica {

// Picks the GPU implementation in a CUDA build, and otherwise reports the impossible case.
#if CAUSTICA_WITH_CUDA
#define CA_DISPATCH(backend, call) return (backend).IsGpu() ? gpu::call : cpu::call
#else
#define CA_DISPATCH(backend, call) \
    CA_CHECK(!(backend).IsGpu());  \
    return cpu::call
#endif

template <class T>
T ReduceIdentity(ReduceOp op) {
    switch (op) {
        case ReduceOp::Min: return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                                          : std::numeric_limits<T>::max();
        case ReduceOp::Max: return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                                          : std::numeric_limits<T>::lowest();
        case ReduceOp::Sum: break;
    }
    return T(0);
}

template <class T>
void ExclusiveScan(const Backend& backend, Span<const T> in, Span<T> out) {
    CA_CHECK_LE(in.size(), out.size());
    if (in.empty()) return;
    CA_DISPATCH(backend, ExclusiveScan(backend, in, out));
}

template <class T>
T ExclusiveScanTotal(const Backend& backend, Span<T> counts, Readback& total) {
    CA_CHECK_MSG(!counts.empty(), "ExclusiveScanTotal: counts needs an item for the total");
    ExclusiveScan(backend, Span<const T>(counts), counts);
    total.Start(&counts[counts.size() - 1], sizeof(T));
    return total.Wait<T>();
}

template <class T>
T Reduce(const Backend& backend, Span<const T> in, ReduceOp op) {
    if (in.empty()) return ReduceIdentity<T>(op);
    CA_DISPATCH(backend, Reduce(backend, in, op));
}

template <class T>
size_t Compact(const Backend& backend, Span<const T> in, Span<const uint8_t> flags, Span<T> out) {
    CA_CHECK_EQ(in.size(), flags.size());
    CA_CHECK_LE(in.size(), out.size());
    if (in.empty()) return 0;
    CA_DISPATCH(backend, Compact(backend, in, flags, out));
}

namespace {

// Checks a sort's arguments; false where there is nothing to sort.
template <class K>
bool SortNeeded(Span<const K> keys, size_t values, int begin_bit, int end_bit) {
    CA_CHECK_EQ(keys.size(), values);
    CA_CHECK(0 <= begin_bit && begin_bit <= end_bit && end_bit <= int(sizeof(K) * 8));
    return keys.size() >= 2 && begin_bit < end_bit;
}

}  // namespace

template <class K>
void RadixSortPairs(const Backend& backend, Span<K> keys, Span<uint32_t> values, int begin_bit, int end_bit) {
    if (!SortNeeded(Span<const K>(keys), values.size(), begin_bit, end_bit)) return;
    CA_DISPATCH(backend, RadixSortPairs(backend, keys, values, begin_bit, end_bit));
}

template <class K>
Span<uint32_t> SortValuesByKey(const Backend& backend, Span<K> keys, Span<uint32_t> values, Span<uint32_t> values_alt,
                               int begin_bit, int end_bit) {
    CA_CHECK_LE(values.size(), values_alt.size());
    if (!SortNeeded(Span<const K>(keys), values.size(), begin_bit, end_bit)) return values;
    CA_DISPATCH(backend,
                SortValuesByKey(backend, keys, values, values_alt.subspan(0, values.size()), begin_bit, end_bit));
}

template <class T>
void SegmentedReduce(const Backend& backend, Span<const T> in, Span<const uint32_t> offsets, Span<T> out,
                     ReduceOp op) {
    if (offsets.size() < 2) return;
    CA_CHECK_LE(offsets.size() - 1, out.size());
    CA_DISPATCH(backend, SegmentedReduce(backend, in, offsets, out, op));
}

#define CA_INSTANTIATE(T)                                                                           \
    template T ReduceIdentity<T>(ReduceOp);                                                         \
    template void ExclusiveScan<T>(const Backend&, Span<const T>, Span<T>);                         \
    template T ExclusiveScanTotal<T>(const Backend&, Span<T>, Readback&);                            \
    template T Reduce<T>(const Backend&, Span<const T>, ReduceOp);                                  \
    template size_t Compact<T>(const Backend&, Span<const T>, Span<const uint8_t>, Span<T>);        \
    template void SegmentedReduce<T>(const Backend&, Span<const T>, Span<const uint32_t>, Span<T>, ReduceOp);
CA_FOR_EACH_PRIMITIVE_TYPE(CA_INSTANTIATE)
#undef CA_INSTANTIATE

#define CA_INSTANTIATE(K)                                                              \
    template void RadixSortPairs<K>(const Backend&, Span<K>, Span<uint32_t>, int, int); \
    template Span<uint32_t> SortValuesByKey<K>(const Backend&, Span<K>, Span<uint32_t>, Span<uint32_t>, int, int);
CA_FOR_EACH_SORT_KEY(CA_INSTANTIATE)
#undef CA_INSTANTIATE

}  // namespace caustica
