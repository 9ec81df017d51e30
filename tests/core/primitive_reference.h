// Plain-loop references and random inputs for the primitive tests (CPU and GPU suites).
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/primitives.h"

namespace caustica::testing {

template <class T>
std::vector<T> RandomValues(size_t n, uint64_t seed, T lo, T hi) {
    std::mt19937_64 rng(seed);
    std::vector<T> v(n);
    if constexpr (std::is_floating_point_v<T>) {
        std::uniform_real_distribution<T> d(lo, hi);
        for (T& x : v) x = d(rng);
    } else {
        using Wide = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
        std::uniform_int_distribution<Wide> d{Wide(lo), Wide(hi)};
        for (T& x : v) x = T(d(rng));
    }
    return v;
}

template <class T>
std::vector<T> ReferenceExclusiveScan(const std::vector<T>& in) {
    std::vector<T> out(in.size());
    T sum = T(0);
    for (size_t i = 0; i < in.size(); ++i) {
        out[i] = sum;
        sum += in[i];
    }
    return out;
}

template <class T>
T ReferenceReduce(Span<const T> in, ReduceOp op) {
    T acc = ReduceIdentity<T>(op);
    for (T v : in) acc = op == ReduceOp::Sum ? acc + v : (op == ReduceOp::Min ? std::min(acc, v) : std::max(acc, v));
    return acc;
}

template <class T>
std::vector<T> ReferenceCompact(const std::vector<T>& in, const std::vector<uint8_t>& flags) {
    std::vector<T> out;
    for (size_t i = 0; i < in.size(); ++i)
        if (flags[i]) out.push_back(in[i]);
    return out;
}

template <class K>
std::pair<std::vector<K>, std::vector<uint32_t>> ReferenceSortPairs(const std::vector<K>& keys,
                                                                    const std::vector<uint32_t>& values) {
    std::vector<size_t> order(keys.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
    std::pair<std::vector<K>, std::vector<uint32_t>> out;
    for (size_t i : order) {
        out.first.push_back(keys[i]);
        out.second.push_back(values[i]);
    }
    return out;
}

// Segment offsets covering [0, n), with empty segments among them.
inline std::vector<uint32_t> RandomSegments(size_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<uint32_t> offsets = {0};
    while (offsets.back() < n) {
        const uint32_t length = uint32_t(rng() % 3 == 0 ? 0 : rng() % 2000);
        offsets.push_back(uint32_t(std::min<size_t>(n, offsets.back() + length)));
    }
    offsets.push_back(uint32_t(n));  // one more empty segment at the end
    return offsets;
}

template <class T>
std::vector<T> ReferenceSegmentedReduce(Span<const T> in, const std::vector<uint32_t>& offsets, ReduceOp op) {
    std::vector<T> out;
    for (size_t s = 0; s + 1 < offsets.size(); ++s)
        out.push_back(ReferenceReduce(Span<const T>(in.data() + offsets[s], offsets[s + 1] - offsets[s]), op));
    return out;
}

}  // namespace caustica::testing
