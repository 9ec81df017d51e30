// CPU implementations of the parallel primitives, with oneTBB. Every result is independent of how
// the threads are scheduled: the work is cut into fixed chunks and combined in chunk order.
#include <algorithm>
#include <cstring>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/parallel_scan.h>

#include "core/primitives_impl.h"

namespace caustica::cpu {
namespace {

constexpr size_t kChunk = 1 << 16;

size_t ChunkCount(size_t n) { return (n + kChunk - 1) / kChunk; }

template <class F>
void ForEachChunk(size_t n, const F& f) {
    tbb::parallel_for(size_t(0), ChunkCount(n), [&](size_t c) { f(c, c * kChunk, std::min(n, (c + 1) * kChunk)); });
}

template <class T>
T Combine(T a, T b, ReduceOp op) {
    switch (op) {
        case ReduceOp::Min: return std::min(a, b);
        case ReduceOp::Max: return std::max(a, b);
        case ReduceOp::Sum: break;
    }
    return a + b;
}

}  // namespace

template <class T>
void ExclusiveScan(const Backend&, Span<const T> in, Span<T> out) {
    // Chunk sums, a serial scan over them, then each chunk scanned from its offset.
    const size_t n = in.size();
    std::vector<T> chunk_offset(ChunkCount(n));
    ForEachChunk(n, [&](size_t c, size_t begin, size_t end) {
        T sum = T(0);
        for (size_t i = begin; i < end; ++i) sum += in[i];
        chunk_offset[c] = sum;
    });
    T running = T(0);
    for (T& v : chunk_offset) {
        const T sum = v;
        v = running;
        running += sum;
    }
    // Within a chunk the sum starts from zero and the chunk's offset is added to each result:
    // for floats, adding small items one by one to a large running total would lose them.
    ForEachChunk(n, [&](size_t c, size_t begin, size_t end) {
        const T offset = chunk_offset[c];
        T sum = T(0);
        for (size_t i = begin; i < end; ++i) {
            const T v = in[i];  // in and out may alias
            out[i] = offset + sum;
            sum += v;
        }
    });
}

template <class T>
T Reduce(const Backend&, Span<const T> in, ReduceOp op) {
    return tbb::parallel_deterministic_reduce(
        tbb::blocked_range<size_t>(0, in.size(), kChunk), ReduceIdentity<T>(op),
        [&](const tbb::blocked_range<size_t>& r, T acc) {
            for (size_t i = r.begin(); i != r.end(); ++i) acc = Combine(acc, in[i], op);
            return acc;
        },
        [op](T a, T b) { return Combine(a, b, op); });
}

template <class T>
size_t Compact(const Backend&, Span<const T> in, Span<const uint8_t> flags, Span<T> out) {
    const size_t n = in.size();
    std::vector<size_t> chunk_offset(ChunkCount(n) + 1, 0);
    ForEachChunk(n, [&](size_t c, size_t begin, size_t end) {
        size_t count = 0;
        for (size_t i = begin; i < end; ++i) count += flags[i] != 0;
        chunk_offset[c + 1] = count;
    });
    for (size_t c = 1; c < chunk_offset.size(); ++c) chunk_offset[c] += chunk_offset[c - 1];
    ForEachChunk(n, [&](size_t c, size_t begin, size_t end) {
        size_t o = chunk_offset[c];
        for (size_t i = begin; i < end; ++i)
            if (flags[i]) out[o++] = in[i];
    });
    return chunk_offset.back();
}

template <class K>
void RadixSortPairs(const Backend& backend, Span<K> keys, Span<uint32_t> values, int begin_bit, int end_bit) {
    // Least-significant-digit radix sort, 8 bits a pass. Each pass: per-chunk digit histograms,
    // offsets in (digit, chunk) order, then a stable scatter of each chunk: the same order a
    // serial stable sort gives.
    constexpr int kBits = 8;
    constexpr int kDigits = 1 << kBits;
    const size_t n = keys.size();
    const size_t chunks = ChunkCount(n);
    ScratchCarver carve(backend.Scratch(ScratchCarver::Round(n * sizeof(K)) + ScratchCarver::Round(n * sizeof(uint32_t))));
    Span<K> keys_alt(carve.Take<K>(n), n);
    Span<uint32_t> values_alt(carve.Take<uint32_t>(n), n);
    std::vector<size_t> offsets(chunks * kDigits);

    Span<K> src_k = keys, dst_k = keys_alt;
    Span<uint32_t> src_v = values, dst_v = values_alt;
    for (int shift = begin_bit; shift < end_bit; shift += kBits) {
        const int bits = std::min(kBits, end_bit - shift);
        const K mask = K((1u << bits) - 1);
        ForEachChunk(n, [&](size_t c, size_t begin, size_t end) {
            size_t* h = &offsets[c * kDigits];
            std::fill(h, h + kDigits, 0);
            for (size_t i = begin; i < end; ++i) ++h[(src_k[i] >> shift) & mask];
        });
        // A pass where every key has the same digit would only copy: skip it.
        bool single_digit = false;
        for (int d = 0; d < kDigits && !single_digit; ++d) {
            size_t total = 0;
            for (size_t c = 0; c < chunks; ++c) total += offsets[c * kDigits + d];
            single_digit = total == n;
        }
        if (single_digit) continue;
        size_t running = 0;
        for (int d = 0; d < kDigits; ++d)
            for (size_t c = 0; c < chunks; ++c) {
                const size_t count = offsets[c * kDigits + d];
                offsets[c * kDigits + d] = running;
                running += count;
            }
        ForEachChunk(n, [&](size_t c, size_t begin, size_t end) {
            size_t* o = &offsets[c * kDigits];
            for (size_t i = begin; i < end; ++i) {
                const size_t at = o[(src_k[i] >> shift) & mask]++;
                dst_k[at] = src_k[i];
                dst_v[at] = src_v[i];
            }
        });
        std::swap(src_k, dst_k);
        std::swap(src_v, dst_v);
    }
    if (src_k.data() != keys.data()) {
        std::memcpy(keys.data(), src_k.data(), n * sizeof(K));
        std::memcpy(values.data(), src_v.data(), n * sizeof(uint32_t));
    }
}

// Sorted in place: the copy back is a small part of a CPU sort.
template <class K>
Span<uint32_t> SortValuesByKey(const Backend& backend, Span<K> keys, Span<uint32_t> values, Span<uint32_t>,
                               int begin_bit, int end_bit) {
    cpu::RadixSortPairs(backend, keys, values, begin_bit, end_bit);
    return values;
}

template <class T>
void SegmentedReduce(const Backend&, Span<const T> in, Span<const uint32_t> offsets, Span<T> out, ReduceOp op) {
    tbb::parallel_for(size_t(0), offsets.size() - 1, [&](size_t s) {
        T acc = ReduceIdentity<T>(op);
        for (uint32_t i = offsets[s]; i < offsets[s + 1]; ++i) acc = Combine(acc, in[i], op);
        out[s] = acc;
    });
}

CA_INSTANTIATE_PRIMITIVE_IMPLEMENTATION

}  // namespace caustica::cpu
