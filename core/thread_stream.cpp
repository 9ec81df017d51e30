#include "core/thread_stream.h"

#if CAUSTICA_WITH_CUDA
#include <cuda_runtime.h>
#endif

namespace caustica {
namespace {
thread_local void* thread_stream = nullptr;  // null: the thread's default stream
}  // namespace

void* ThreadStream() {
#if CAUSTICA_WITH_CUDA
    if (!thread_stream) return static_cast<void*>(cudaStreamPerThread);
#endif
    return thread_stream;
}

ThreadStreamScope::ThreadStreamScope(void* stream) : previous_(thread_stream) { thread_stream = stream; }
ThreadStreamScope::~ThreadStreamScope() { thread_stream = previous_; }

}  // namespace caustica
