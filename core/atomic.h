// Atomic add, min and max in host (oneTBB threads) and device code.
#pragma once

#include <cstdint>

#include "core/hd.h"

namespace caustica {

CA_HD inline uint32_t AtomicAdd(uint32_t* p, uint32_t v) {
#if CA_DEVICE_CODE
    return atomicAdd(p, v);
#else
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
#endif
}

#if !CA_DEVICE_CODE
namespace detail {
// Stores v where keep(v, old) holds for the value there: a compare-exchange loop.
template <class Keep>
inline void AtomicKeep(uint32_t* p, uint32_t v, Keep keep) {
    uint32_t old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (keep(v, old) && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}
}  // namespace detail
#endif

CA_HD inline void AtomicMin(uint32_t* p, uint32_t v) {
#if CA_DEVICE_CODE
    atomicMin(p, v);
#else
    detail::AtomicKeep(p, v, [](uint32_t a, uint32_t b) { return a < b; });
#endif
}

CA_HD inline void AtomicMax(uint32_t* p, uint32_t v) {
#if CA_DEVICE_CODE
    atomicMax(p, v);
#else
    detail::AtomicKeep(p, v, [](uint32_t a, uint32_t b) { return a > b; });
#endif
}

}  // namespace caustica
