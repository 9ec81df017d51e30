#include "core/worker_thread.h"

#include <utility>

#if CAUSTICA_WITH_CUDA
#include "core/cuda_check.h"
#endif

namespace caustica {
namespace {

int CurrentCudaDevice() {
#if CAUSTICA_WITH_CUDA
    int device = -1;
    if (cudaGetDevice(&device) == cudaSuccess) return device;
    cudaGetLastError();  // no driver or no device: the CPU backend's worker
#endif
    return -1;
}

// Spins, yielding the core, until ready() or WorkerThread::kSpin has passed.
template <class Ready>
void SpinUntil(Ready ready) {
    const auto end = std::chrono::steady_clock::now() + WorkerThread::kSpin;
    while (!ready() && std::chrono::steady_clock::now() < end) std::this_thread::yield();
}

}  // namespace

WorkerThread::WorkerThread() : cuda_device_(CurrentCudaDevice()), thread_([this] { Loop(); }) {}

WorkerThread::~WorkerThread() {
    {
        std::unique_lock<std::mutex> lock(mutex_);
        WaitIdle(lock);
        stopping_ = true;
    }
    changed_.notify_all();
    thread_.join();
}

void WorkerThread::WaitIdle(std::unique_lock<std::mutex>& lock) {
    changed_.wait(lock, [this] { return !busy_; });
}

void WorkerThread::Start(std::function<void()> task) {
    {
        std::unique_lock<std::mutex> lock(mutex_);
        WaitIdle(lock);
        task_ = std::move(task);
        error_ = nullptr;
        busy_ = true;
    }
    changed_.notify_all();
}

void WorkerThread::Wait() {
    SpinUntil([this] { return !busy_; });
    std::exception_ptr error;
    {
        std::unique_lock<std::mutex> lock(mutex_);
        WaitIdle(lock);
        std::swap(error, error_);
    }
    if (error) std::rethrow_exception(error);
}

void WorkerThread::Loop() {
    std::exception_ptr device_error;  // every task fails with it: its work would go to another device
#if CAUSTICA_WITH_CUDA
    try {
        if (cuda_device_ >= 0) CA_CUDA_CHECK(cudaSetDevice(cuda_device_));
    } catch (...) {
        device_error = std::current_exception();
    }
#endif
    std::unique_lock<std::mutex> lock(mutex_, std::defer_lock);
    for (;;) {
        SpinUntil([this] { return busy_ || stopping_; });
        lock.lock();
        changed_.wait(lock, [this] { return busy_ || stopping_; });
        if (!busy_) return;  // stopping, and nothing left to run
        std::function<void()> task = std::move(task_);
        lock.unlock();
        std::exception_ptr error = device_error;
        if (!error) {
            try {
                task();
            } catch (...) {
                error = std::current_exception();
            }
        }
        lock.lock();
        error_ = error;
        busy_ = false;
        lock.unlock();
        changed_.notify_all();
    }
}

}  // namespace caustica
