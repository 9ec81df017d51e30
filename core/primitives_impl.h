// The two implementations behind core/primitives.h. Internal to core/.
#pragma once

#include "core/primitives.h"

namespace caustica {

// Splits one scratch allocation into aligned pieces, so a primitive asks the backend once.
class ScratchCarver {
public:
    static constexpr size_t kAlign = 256;
    static size_t Round(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }
    explicit ScratchCarver(void* base) : next_(static_cast<char*>(base)) {}
    template <class T>
    T* Take(size_t count) {
        T* p = reinterpret_cast<T*>(next_);
        next_ += Round(count * sizeof(T));
        return p;
    }

private:
    char* next_;
};

// The same declarations in namespace cpu (oneTBB) and namespace gpu (CUB, in CUDA builds only).
#define CA_DECLARE_PRIMITIVE_IMPLEMENTATION                                                                     \
    template <class T> void ExclusiveScan(const Backend&, Span<const T> in, Span<T> out);                     \
    template <class T> T Reduce(const Backend&, Span<const T> in, ReduceOp op);                               \
    template <class T> size_t Compact(const Backend&, Span<const T> in, Span<const uint8_t> flags, Span<T> out); \
    template <class K> void RadixSortPairs(const Backend&, Span<K> keys, Span<uint32_t> values, int begin_bit,  \
                                           int end_bit);                                                       \
    template <class K> Span<uint32_t> SortValuesByKey(const Backend&, Span<K> keys, Span<uint32_t> values,      \
                                                      Span<uint32_t> values_alt, int begin_bit, int end_bit);   \
    template <class T> void SegmentedReduce(const Backend&, Span<const T> in, Span<const uint32_t> offsets,     \
                                            Span<T> out, ReduceOp op);

namespace cpu {
CA_DECLARE_PRIMITIVE_IMPLEMENTATION
}  // namespace cpu

#if CAUSTICA_WITH_CUDA
namespace gpu {
CA_DECLARE_PRIMITIVE_IMPLEMENTATION
}  // namespace gpu
#endif

// Instantiates a template for every element type the primitives provide.
#define CA_FOR_EACH_PRIMITIVE_TYPE(X) X(uint32_t) X(int32_t) X(uint64_t) X(float)
#define CA_FOR_EACH_SORT_KEY(X) X(uint32_t) X(uint64_t)

// Instantiates one implementation (inside its namespace) for every type.
#define CA_INSTANTIATE_PRIMITIVE_FOR_TYPE(T)                                                  \
    template void ExclusiveScan<T>(const Backend&, Span<const T>, Span<T>);                   \
    template T Reduce<T>(const Backend&, Span<const T>, ReduceOp);                            \
    template size_t Compact<T>(const Backend&, Span<const T>, Span<const uint8_t>, Span<T>);   \
    template void SegmentedReduce<T>(const Backend&, Span<const T>, Span<const uint32_t>, Span<T>, ReduceOp);
#define CA_INSTANTIATE_SORT_FOR_KEY(K)                                                  \
    template void RadixSortPairs<K>(const Backend&, Span<K>, Span<uint32_t>, int, int); \
    template Span<uint32_t> SortValuesByKey<K>(const Backend&, Span<K>, Span<uint32_t>, Span<uint32_t>, int, int);
#define CA_INSTANTIATE_PRIMITIVE_IMPLEMENTATION                   \
    CA_FOR_EACH_PRIMITIVE_TYPE(CA_INSTANTIATE_PRIMITIVE_FOR_TYPE) \
    CA_FOR_EACH_SORT_KEY(CA_INSTANTIATE_SORT_FOR_KEY)

}  // namespace caustica
