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

CA_HD inline void AtomicMin(uint32_t* p, uint32_t v) {
#if CA_DEVICE_CODE
    atomicMin(p, v);
#else
    uint32_t old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (v < old && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
#endif
}

CA_HD inline void AtomicMax(uint32_t* p, uint32_t v) {
#if CA_DEVICE_CODE
    atomicMax(p, v);
#else
    uint32_t old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (v > old && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
#endif
}

}  // namespace caustica
