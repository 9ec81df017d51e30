// Parallel primitives over arrays in the backend's memory, with a CPU implementation (oneTBB) and
// a GPU implementation (CUB) that compute the same result. Inputs and outputs are spans of memory
// in the backend's space (Buffer<T>(backend)). Functions that return a host value wait for the GPU.
//
// Provided for the element types the trees and the renderer use: uint32_t, int32_t, uint64_t and
// float (radix sort: uint32_t or uint64_t keys with uint32_t values).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/backend.h"
#include "core/span.h"

namespace caustica {

class Readback;

enum class ReduceOp { Sum, Min, Max };

// out[i] = in[0] + ... + in[i-1]; out[0] = 0. in and out may be the same span. Returns nothing;
// the total is ExclusiveScanTotal's job when needed.
template <class T>
void ExclusiveScan(const Backend& backend, Span<const T> in, Span<T> out);

// ExclusiveScan of counts in place, where counts holds one item more than the items it counts: the
// sum of them all lands in that last item (whatever it held is not added in) and is returned,
// read back through total (core/readback.h; its capacity at least sizeof(T)): one small copy that
// the host watches, behind the scan, so the host waits for the GPU once.
template <class T>
T ExclusiveScanTotal(const Backend& backend, Span<T> counts, Readback& total);

// Sum, minimum or maximum of all items; the identity (0, +max, lowest) for an empty span.
template <class T>
T Reduce(const Backend& backend, Span<const T> in, ReduceOp op);

// Copies the items whose flag is non-zero to out, in order; returns how many (waits for the GPU).
// out must have room for in.size() items.
template <class T>
size_t Compact(const Backend& backend, Span<const T> in, Span<const uint8_t> flags, Span<T> out);

// Stable sort of (key, value) pairs by the key bits [begin_bit, end_bit), in place.
template <class K>
void RadixSortPairs(const Backend& backend, Span<K> keys, Span<uint32_t> values, int begin_bit = 0,
                    int end_bit = int(sizeof(K) * 8));

// RadixSortPairs where only the values are wanted in key order: they end in values or in values_alt
// (at least as long; overwritten), whichever the sort's last pass wrote, and the span holding them
// is returned; the keys are left in any order. On the GPU an odd number of passes ends in the other
// buffers, which RadixSortPairs copies back.
template <class K>
Span<uint32_t> SortValuesByKey(const Backend& backend, Span<K> keys, Span<uint32_t> values, Span<uint32_t> values_alt,
                               int begin_bit = 0, int end_bit = int(sizeof(K) * 8));

// out[s] = op over in[offsets[s] .. offsets[s + 1]) for each of the offsets.size() - 1 segments;
// the identity for an empty segment.
template <class T>
void SegmentedReduce(const Backend& backend, Span<const T> in, Span<const uint32_t> offsets, Span<T> out,
                     ReduceOp op);

// The identity element of op for T.
template <class T>
T ReduceIdentity(ReduceOp op);

}  // namespace caustica
