// Where a pass writes a read-back's bytes itself (Readback::StartFromPass, core/readback.h), so
// that a one-block pass that computes a count hands it to the host without a copy kernel after
// it. On the GPU the bytes and then the copy's number go to mapped page-locked memory, which the
// host watches; on the CPU the bytes go to the read-back's host memory.
#pragma once

#include <cstdint>

#include "core/hd.h"

namespace caustica {

struct ReadbackTarget {
    void* bytes = nullptr;
    uint32_t* number = nullptr;  // null on the CPU
    uint32_t copy = 0;

    // From one thread, once the value is final.
    template <class T>
    CA_HD void Write(const T& value) const {
        *static_cast<T*>(bytes) = value;
#if CA_DEVICE_CODE
        __threadfence_system();  // the bytes reach the host before the number does
        *reinterpret_cast<volatile uint32_t*>(number) = copy;
#endif
    }
};

}  // namespace caustica
