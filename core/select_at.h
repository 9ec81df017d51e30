// values[i] for an i known only at run time, by a chain of selects. Indexing the array itself
// makes a GPU thread copy the whole struct that holds it into slow local memory wherever that
// struct is a local variable (a view that a pass makes from its run's state on the device); the
// selects read the elements where they are.
#pragma once

#include "core/hd.h"

namespace caustica {

template <class T, int N>
CA_HD CA_INLINE T SelectAt(const T (&values)[N], int i) {
    T value = values[0];
#if CA_DEVICE_CODE
#pragma unroll
#endif
    for (int k = 1; k < N; ++k) value = i == k ? values[k] : value;
    return value;
}

}  // namespace caustica
