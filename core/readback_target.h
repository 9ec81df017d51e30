// Where a pass writes a read-back's bytes itself (Readback::StartFromPass, core/readback.h), so
// that a one-block pass that computes a count hands it to the host without a copy kernel after
// it. On the GPU the bytes and then the copy's number go to mapped page-locked memory, which the
// host watches; on the CPU the bytes go to the read-back's host memory.
#pragma once

#include <cstdint>

#include "core/hd.h"

namespace caustica {

// A default target is no read-back: Write does nothing, so a pass that sometimes reports to the
// host takes one either way.
struct ReadbackTarget {
    void* bytes = nullptr;
    uint32_t* number = nullptr;  // null on the CPU
    uint32_t copy = 0;

    CA_HD explicit operator bool() const { return bytes != nullptr; }
    // Where the bytes go, for a pass that writes them bit by bit (then Done, from the same thread).
    template <class T>
    CA_HD T* Place() const {
        return static_cast<T*>(bytes);
    }
    // The bytes are written (by this thread): the host may read them.
    CA_HD void Done() const {
#if CA_DEVICE_CODE
        __threadfence_system();  // the bytes reach the host before the number does
        *reinterpret_cast<volatile uint32_t*>(number) = copy;
#endif
    }
    // From one thread, once the value is final.
    template <class T>
    CA_HD void Write(const T& value) const {
        if (!bytes) return;
        *Place<T>() = value;
        Done();
    }
};

}  // namespace caustica
