// Which frames and samples a render covers: --frames A:B, --shard I/N (a deterministic part of the
// frames for another scheduler's array jobs) and --sample-range A:B.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace caustica {

struct FrameRange {
    int first = 0, last = 0;  // inclusive; last < first for no frames (an empty shard)
    int count() const { return last - first + 1; }
};

// "A:B" (frames A through B) or "A" (one frame); anything else is an InputError naming --frames.
FrameRange ParseFrames(const std::string& text);

struct Shard {
    int index = 0, count = 1;  // shard 'index' of 'count', from 0
};

// "I/N" with 0 <= I < N; anything else is an InputError naming --shard.
Shard ParseShard(const std::string& text);

// Shard I of N of the frames: the I-th of N contiguous runs as equal as can be (earlier runs are
// never longer), the same for every shard asked with the same frames and N. Empty (count() == 0)
// when there are fewer frames than shards and this one has none.
FrameRange ShardOf(FrameRange frames, Shard shard);

// "A:B" with 0 <= A < B <= total: samples A to B - 1 of total. Anything else is an InputError
// naming --sample-range.
struct SampleRangeArg {
    uint32_t first = 0, end = 0;
};
SampleRangeArg ParseSampleRange(const std::string& text, int total);

// Frame numbers as runs: "0-2, 5, 8-12".
std::string FrameRuns(const std::vector<int>& frames);

}  // namespace caustica
