// Atomic add in host (oneTBB threads) and device code.
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

}  // namespace caustica
