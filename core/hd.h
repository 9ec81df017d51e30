// The host/device annotation: one source compiles for the CPU (g++) and, in a CUDA build, for the
// GPU (nvcc). Outside nvcc the macros vanish, so a CPU-only build needs no CUDA toolkit at all.
#pragma once

#if defined(__CUDACC__)
#define CA_HD __host__ __device__
#define CA_DEVICE __device__
#define CA_INLINE __forceinline__
#else
#define CA_HD
#define CA_DEVICE
#define CA_INLINE inline
#endif

// True while compiling device code (the GPU pass of nvcc), for the few places that use intrinsics.
#if defined(__CUDA_ARCH__)
#define CA_DEVICE_CODE 1
#else
#define CA_DEVICE_CODE 0
#endif
