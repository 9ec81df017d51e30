// A KNN search that a second launch can join (core/chunk_queue.h): given one, KnnForEach
// (knn_for_each.h) hands its exact search's queries out in chunks on the GPU, slowest first by the
// join's last search, and leaves here a launch of the same search, which a thread may queue on
// another stream (another share of the SMs, core/sm_share.h) to take the chunks still left.
#pragma once

#include <functional>
#include <utility>

#include "core/backend.h"
#include "core/chunk_queue.h"

namespace caustica {

class KnnJoin {
public:
    using Launch = std::function<void(const ChunkQueueView& chunks)>;

    explicit KnnJoin(const Backend& backend) : queue_(backend) {}

    // Queues the joining launch on the calling thread's stream, sized for the SMs it reaches (a
    // share's, core/thread_stream.h), where the last search left one (the GPU's exact search with its
    // heap on chip); then forgets it.
    void Join() {
        if (!launch_) return;
        queue_.RunJoining(launch_);
        launch_ = nullptr;
    }
    // Forgets the last search's joining launch without queueing it.
    void Clear() { launch_ = nullptr; }

    // For KnnForEach: the queue of the search's chunks, and the joining launch it leaves.
    ChunkQueue& queue() { return queue_; }
    void SetLaunch(Launch launch) { launch_ = std::move(launch); }

private:
    ChunkQueue queue_;
    Launch launch_;
};

}  // namespace caustica
