// The GPU's timeline of a program, for finding where in a frame the GPU waits: every kernel, copy
// and fill the GPU ran and every CUDA runtime call the host made, with their start and end in the
// GPU's clock, written as tab-separated lines when the program exits. The CUDA driver loads this
// library into any CUDA program named in CUDA_INJECTION64_PATH (tools/gpu-timeline.sh); the file
// is $CAUSTICA_TIMELINE_OUT. tools/gpu-timeline.py reads it.
#include <cupti.h>
#include <cxxabi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct Record {
    const char* kind;  // kernel, copy, fill or api
    uint64_t start, end;
    uint32_t stream;  // the GPU stream, or the host thread of an API call
    std::string name;
};

std::mutex records_mutex;
std::vector<Record> records;
bool failed = false;

void Check(CUptiResult r, const char* what) {
    if (r == CUPTI_SUCCESS) return;
    const char* text = "?";
    cuptiGetResultString(r, &text);
    std::fprintf(stderr, "cupti_timeline: %s failed: %s\n", what, text);
    failed = true;
}

// CUpti_ActivityMemcpyKind's names.
const char* CopyKind(uint8_t kind) {
    switch (kind) {
        case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
        case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
        case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DtoD";
        case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "HtoH";
        case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "PtoP";
        default: return "array";
    }
}

std::string Demangled(const char* name) {
    int status = 0;
    char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    std::string s = status == 0 && d ? d : name;
    std::free(d);
    return s;
}

constexpr size_t kBufferBytes = size_t(8) << 20;

void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
    *size = kBufferBytes;
    *max_records = 0;  // as many as fit
}

void CUPTIAPI BufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
    std::vector<Record> batch;
    CUpti_Activity* a = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &a) == CUPTI_SUCCESS) {
        switch (a->kind) {
            case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
                const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(a);
                batch.push_back({"kernel", k->start, k->end, k->streamId, Demangled(k->name)});
                break;
            }
            case CUPTI_ACTIVITY_KIND_MEMCPY: {
                const auto* c = reinterpret_cast<const CUpti_ActivityMemcpy6*>(a);
                batch.push_back({"copy", c->start, c->end, c->streamId,
                                 std::string(CopyKind(c->copyKind)) + " " + std::to_string(c->bytes) + " bytes"});
                break;
            }
            case CUPTI_ACTIVITY_KIND_MEMSET: {
                const auto* f = reinterpret_cast<const CUpti_ActivityMemset4*>(a);
                batch.push_back({"fill", f->start, f->end, f->streamId, std::to_string(f->bytes) + " bytes"});
                break;
            }
            case CUPTI_ACTIVITY_KIND_RUNTIME: {
                const auto* r = reinterpret_cast<const CUpti_ActivityAPI*>(a);
                const char* name = "?";
                cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, r->cbid, &name);
                batch.push_back({"api", r->start, r->end, r->threadId, name});
                break;
            }
            default:
                break;
        }
    }
    size_t dropped = 0;
    cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped);
    if (dropped != 0) {
        std::fprintf(stderr, "cupti_timeline: %zu records dropped\n", dropped);
        failed = true;
    }
    std::free(buffer);
    std::lock_guard<std::mutex> lock(records_mutex);
    for (Record& r : batch) records.push_back(std::move(r));
}

void WriteRecords() {
    Check(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
    const char* path = std::getenv("CAUSTICA_TIMELINE_OUT");
    if (!path) path = "timeline.tsv";
    const std::string partial = std::string(path) + ".partial";
    FILE* f = std::fopen(partial.c_str(), "w");
    if (!f) {
        std::fprintf(stderr, "cupti_timeline: cannot write %s\n", partial.c_str());
        return;
    }
    std::fprintf(f, "kind\tstart_ns\tend_ns\tstream\tname\n");
    std::lock_guard<std::mutex> lock(records_mutex);
    for (const Record& r : records)
        std::fprintf(f, "%s\t%llu\t%llu\t%u\t%s\n", r.kind, (unsigned long long)r.start, (unsigned long long)r.end,
                     r.stream, r.name.c_str());
    // A timeline with records lost would show idle time that was not there: none is written.
    if (std::fclose(f) != 0 || failed || std::rename(partial.c_str(), path) != 0) {
        std::fprintf(stderr, "cupti_timeline: %s not written\n", path);
        std::remove(partial.c_str());
        return;
    }
    std::fprintf(stderr, "cupti_timeline: %zu records in %s\n", records.size(), path);
}

}  // namespace

// Called by the CUDA driver when it initialises, before the program's first CUDA call returns.
extern "C" int InitializeInjection() {
    Check(cuptiActivityRegisterCallbacks(BufferRequested, BufferCompleted), "cuptiActivityRegisterCallbacks");
    for (CUpti_ActivityKind kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                    CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_RUNTIME})
        Check(cuptiActivityEnable(kind), "cuptiActivityEnable");
    // Registered after the CUDA runtime's own exit handler, so it runs first, with the context alive.
    std::atexit(WriteRecords);
    return failed ? 0 : 1;
}
