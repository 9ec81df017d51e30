// Runs a CUB device algorithm with its temporary storage in the backend's scratch memory, so a warm
// frame allocates nothing. Internal to the CUB callers (CUDA sources only).
#pragma once

#include <cstddef>

#include "core/backend.h"
#include "core/cuda_check.h"
#include "core/primitives_impl.h"

namespace caustica::gpu {

// Runs a CUB call twice, as CUB expects: first to size its temporary storage (own == nullptr), then
// for real, with extra_bytes of the caller's own scratch ('own') carved off in front of CUB's.
template <class Call>
void* RunCub(const Backend& backend, size_t extra_bytes, const Call& call) {
    size_t temp_bytes = 0;
    CA_CUDA_CHECK(call(nullptr, nullptr, temp_bytes));
    const size_t extra = ScratchCarver::Round(extra_bytes);
    char* own = static_cast<char*>(backend.Scratch(extra + temp_bytes));
    CA_CUDA_CHECK(call(own, own + extra, temp_bytes));
    return own;
}

}  // namespace caustica::gpu
