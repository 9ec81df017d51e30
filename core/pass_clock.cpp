#include "core/pass_clock.h"

#include "core/error.h"

#if CAUSTICA_WITH_CUDA
#include "core/cuda_check.h"
#endif

namespace caustica {

PassClock::PassClock(const Backend& backend) : gpu_(backend.IsGpu()) {}

PassClock::~PassClock() {
#if CAUSTICA_WITH_CUDA
    for (void* e : events_) cudaEventDestroy(static_cast<cudaEvent_t>(e));  // never throws: a destructor
#endif
}

void PassClock::Clear() { marks_ = 0; }

int PassClock::Mark() {
    const int mark = marks_++;
    if (!gpu_) {
        if (size_t(mark) == times_.size()) times_.emplace_back();
        times_[size_t(mark)] = std::chrono::steady_clock::now();
        return mark;
    }
#if CAUSTICA_WITH_CUDA
    if (size_t(mark) == events_.size()) {
        cudaEvent_t event = nullptr;
        CA_CUDA_CHECK(cudaEventCreate(&event));
        events_.push_back(event);
    }
    CA_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(events_[size_t(mark)]), ThreadCudaStream()));
#endif
    return mark;
}

double PassClock::Ms(int from, int to) const {
    CA_CHECK_MSG(0 <= from && from <= to && to < marks_, "pass clock: no marks ", from, " to ", to, " of ", marks_);
    if (!gpu_)
        return std::chrono::duration<double, std::milli>(times_[size_t(to)] - times_[size_t(from)]).count();
    float ms = 0;
#if CAUSTICA_WITH_CUDA
    const auto end = static_cast<cudaEvent_t>(events_[size_t(to)]);
    CA_CUDA_CHECK(cudaEventSynchronize(end));
    CA_CUDA_CHECK(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(events_[size_t(from)]), end));
#endif
    return ms;
}

QueuePoint PassClock::Point(int mark) const {
    CA_CHECK_MSG(0 <= mark && mark < marks_, "pass clock: no mark ", mark, " of ", marks_);
    QueuePoint point;
    if (gpu_) point.event_ = events_[size_t(mark)];
    return point;
}

void QueuePoint::WaitHere() const {
#if CAUSTICA_WITH_CUDA
    if (event_) CA_CUDA_CHECK(cudaStreamWaitEvent(ThreadCudaStream(), static_cast<cudaEvent_t>(event_), 0));
#endif
}

}  // namespace caustica
