#include "renderer/cli/frame_range.h"

#include <cstdlib>

#include "core/error.h"

namespace caustica {
namespace {

// Two whole numbers around 'separator' ("3:7"), or one when 'one_allowed' (then both are it).
// False when the text is anything else.
bool ParsePair(const std::string& text, char separator, bool one_allowed, long* a, long* b) {
    const size_t at = text.find(separator);
    if (at == std::string::npos && !one_allowed) return false;
    const std::string first = text.substr(0, at), second = at == std::string::npos ? first : text.substr(at + 1);
    const auto whole = [](const std::string& word, long* value) {
        if (word.empty() || !(word[0] >= '0' && word[0] <= '9') || word.size() > 9) return false;
        char* end = nullptr;
        *value = std::strtol(word.c_str(), &end, 10);
        return *end == '\0';
    };
    return whole(first, a) && whole(second, b);
}

}  // namespace

FrameRange ParseFrames(const std::string& text) {
    long first = 0, last = 0;
    if (!ParsePair(text, ':', true, &first, &last) || last < first || last > 10000000)
        throw InputError(Concat("--frames \"", text, "\": expected A:B with 0 <= A <= B (frames A through B)"));
    return {int(first), int(last)};
}

Shard ParseShard(const std::string& text) {
    long index = 0, count = 0;
    if (!ParsePair(text, '/', false, &index, &count) || count < 1 || index >= count || count > 1000000)
        throw InputError(Concat("--shard \"", text, "\": expected I/N with 0 <= I < N (shard I of N, from 0)"));
    return {int(index), int(count)};
}

FrameRange ShardOf(FrameRange frames, Shard shard) {
    const long total = frames.count();
    const long begin = total * shard.index / shard.count, end = total * (shard.index + 1) / shard.count;
    return {frames.first + int(begin), frames.first + int(end) - 1};
}

SampleRangeArg ParseSampleRange(const std::string& text, int total) {
    long first = 0, end = 0;
    if (!ParsePair(text, ':', false, &first, &end) || first >= end || end > total)
        throw InputError(Concat("--sample-range \"", text, "\": expected A:B with 0 <= A < B <= ", total,
                                " (samples A to B-1 of --samples ", total, ")"));
    return {uint32_t(first), uint32_t(end)};
}

std::string FrameRuns(const std::vector<int>& frames) {
    std::string text;
    for (size_t i = 0; i < frames.size();) {
        size_t j = i;
        while (j + 1 < frames.size() && frames[j + 1] == frames[j] + 1) ++j;
        text += Concat(text.empty() ? "" : ", ", frames[i]);
        if (j > i) text += Concat("-", frames[j]);
        i = j + 1;
    }
    return text;
}

}  // namespace caustica
