#include "renderer/bench/bench_support.h"

#include <algorithm>
#include <ctime>

#include "core/timer.h"

namespace caustica {

Timing Summarize(std::vector<double> ms) {
    if (ms.empty()) return {};
    std::sort(ms.begin(), ms.end());
    const size_t n = ms.size();
    return {n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]), ms.front(), ms.back()};
}

std::vector<double> TimeRuns(const Backend& backend, int repeat, const std::function<void()>& f) {
    f();
    std::vector<double> ms;
    for (int r = 0; r < repeat; ++r) {
        Stopwatch watch(backend);
        f();
        ms.push_back(watch.ElapsedMs());
    }
    return ms;
}

std::string UtcNow() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buf[32];
    std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

void WriteTiming(JsonWriter& json, const std::string& name, const Timing& t) {
    json.Key(name).BeginObject().Key("median").Number(t.median).Key("min").Number(t.min).Key("max").Number(t.max).EndObject();
}

void WriteBenchHeader(JsonWriter& json, const Backend& backend) {
    json.Key("device").String(backend.Name());
    json.Key("device_name").String(backend.Describe());
    json.Key("commit").String(BuildCommit());
    json.Key("date").String(UtcNow());
}

std::optional<OutputFile> CheckJsonTarget(const std::string& path) {
    if (path.empty()) return std::nullopt;
    return CheckOutputFile("--json", path);
}

void WriteFrameSettings(JsonWriter& json, const std::string& scene, int width, int height,
                        const RenderSettings& settings) {
    json.Key("scene").String(scene);
    json.Key("width").Integer(width).Key("height").Integer(height);
    json.Key("photons").Integer(settings.photons);
    json.Key("k").Integer(settings.k).Key("knn").String(KnnMethodName(settings.knn));
    json.Key("specular_splits").Integer(settings.specular_splits);
    json.Key("shadow_samples").Integer(settings.shadow_samples);
    json.Key("indirect").Bool(settings.indirect);
    json.Key("global_photons").Integer(settings.global_photons).Key("global_k").Integer(settings.global_k);
    json.Key("gather_rays").Integer(settings.gather_rays);
    json.Key("progressive").Bool(settings.progressive).Key("alpha").Number(settings.alpha);
}

}  // namespace caustica
