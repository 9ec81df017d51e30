// Raw memory on the host or on the CUDA device, with byte counters for peak-memory reports.
#pragma once

#include <cstddef>
#include <cstdint>

namespace caustica {

enum class MemorySpace { Host, Device };

// Allocation failures throw RuntimeError naming the bytes asked for and, on the GPU, those free.
void* AllocateBytes(MemorySpace space, size_t bytes);
void FreeBytes(MemorySpace space, void* pointer);
// Copies between any two spaces; synchronous (waits for queued GPU work first).
void CopyBytes(void* dst, MemorySpace dst_space, const void* src, MemorySpace src_space, size_t bytes);
// Fills bytes with a byte value (asynchronously on the calling thread's default stream).
void FillBytes(MemorySpace space, void* pointer, int value, size_t bytes);

struct MemoryCounters {
    size_t current_device_bytes = 0;
    size_t peak_device_bytes = 0;
};
MemoryCounters DeviceMemoryCounters();
// Starts a new peak measurement from the bytes in use now.
void ResetPeakDeviceBytes();

}  // namespace caustica
