// What the benchmarks share: timing summaries, repeated timed runs, and the facts every report
// carries (device, commit, date).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/backend.h"
#include "renderer/cli/version.h"  // BuildCommit
#include "renderer/frame_renderer.h"
#include "renderer/output/json_writer.h"
#include "renderer/output/output_file.h"

namespace caustica {

struct Timing {
    double median = 0, min = 0, max = 0;
};

Timing Summarize(std::vector<double> ms);

// Runs f once to warm up, then repeat times, and returns the wall time of each timed run (the
// backend is synchronized around each).
std::vector<double> TimeRuns(const Backend& backend, int repeat, const std::function<void()>& f);

// "2026-11-22T01:23:45Z".
std::string UtcNow();

// Writes "name": {"median": .., "min": .., "max": ..}.
void WriteTiming(JsonWriter& json, const std::string& name, const Timing& t);

// Writes "device", "device_name", "commit" and "date".
void WriteBenchHeader(JsonWriter& json, const Backend& backend);

// The --json target, checked before the benchmark runs; none when the option was not given.
std::optional<OutputFile> CheckJsonTarget(const std::string& path);

// Writes what a rendering benchmark's frames were: "scene", "width", "height", "photons", "k",
// "knn", "specular_splits" and "shadow_samples".
void WriteFrameSettings(JsonWriter& json, const std::string& scene, int width, int height,
                        const RenderSettings& settings);

}  // namespace caustica
