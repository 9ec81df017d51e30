#include "core/thread_stream.h"

#include <algorithm>
#include <mutex>
#include <utility>
#include <vector>

#include "core/backend.h"

#if CAUSTICA_WITH_CUDA
#include <cuda_runtime.h>

#include "core/cuda_check.h"
#endif

namespace caustica {
namespace {
thread_local void* thread_stream = nullptr;  // null: the thread's default stream
thread_local int thread_stream_sms = 0;       // 0: every SM

// The named share streams and their SMs: a few at a time, looked up as a scope begins.
std::mutex share_streams_mutex;
std::vector<std::pair<void*, int>> share_streams;

int ShareStreamSms(void* stream) {
    const std::lock_guard<std::mutex> lock(share_streams_mutex);
    for (const auto& [named, sms] : share_streams)
        if (named == stream) return sms;
    return 0;
}
}  // namespace

void* ThreadStream() {
#if CAUSTICA_WITH_CUDA
    if (!thread_stream) return static_cast<void*>(cudaStreamPerThread);
#endif
    return thread_stream;
}

int ThreadStreamSms() { return thread_stream_sms; }

void NameShareStream(void* stream, int sms) {
    const std::lock_guard<std::mutex> lock(share_streams_mutex);
    share_streams.emplace_back(stream, sms);
}

void ForgetShareStream(void* stream) {
    const std::lock_guard<std::mutex> lock(share_streams_mutex);
    share_streams.erase(std::remove_if(share_streams.begin(), share_streams.end(),
                                       [stream](const auto& named) { return named.first == stream; }),
                        share_streams.end());
}

PriorityStream::PriorityStream(bool gpu) {
#if CAUSTICA_WITH_CUDA
    if (!gpu) return;
    cudaStream_t stream = nullptr;
    CA_CUDA_CHECK(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking,
                                               CurrentDeviceStreamPriorities().highest));
    stream_ = stream;
#else
    (void)gpu;
#endif
}

PriorityStream::~PriorityStream() {
#if CAUSTICA_WITH_CUDA
    if (!stream_) return;
    cudaStreamSynchronize(static_cast<cudaStream_t>(stream_));  // never throws: a destructor
    cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
#endif
}

ThreadStreamScope::ThreadStreamScope(void* stream) : previous_(thread_stream), previous_sms_(thread_stream_sms) {
    thread_stream = stream;
    thread_stream_sms = ShareStreamSms(stream);
}
ThreadStreamScope::~ThreadStreamScope() {
    thread_stream = previous_;
    thread_stream_sms = previous_sms_;
}

}  // namespace caustica
