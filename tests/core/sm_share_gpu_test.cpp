// Two shares of the GPU's SMs (SmShares): the work a thread queues on a share's stream runs on that
// share's SMs alone, and the thread's own stream again reaches every SM once the scope ends. A
// launch unit: nvcc compiles it in a CUDA build.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "core/buffer.h"
#include "core/hd.h"
#include "core/parallel_for.h"
#include "core/sm_share.h"
#include "core/thread_stream.h"
#include "tests/test_support.h"

namespace caustica {
namespace {

struct RecordSm {
    Span<uint32_t> sm;
    CA_HD void operator()(int i) const {
#if defined(__CUDA_ARCH__)
        uint32_t id;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
        sm[i] = id;
#else
        sm[i] = 0;
#endif
    }
};

// The SMs that a grid of many short blocks, queued on the calling thread's stream, ran on.
std::set<uint32_t> SmsReached(const Backend& gpu) {
    Buffer<uint32_t> sm(gpu, size_t(1) << 22);
    ParallelFor(gpu, "record sm", sm.size(), RecordSm{sm.span()});
    const std::vector<uint32_t> ids = sm.Download();
    return std::set<uint32_t>(ids.begin(), ids.end());
}

TEST(SmSharesGpu, EachShareRunsOnItsOwnSms) {
    CA_REQUIRE_GPU(gpu);
    const int all = SmCount(gpu.device());
    const SmShares shares(gpu.device(), 16);
    EXPECT_GE(shares.FirstSms(), 16);
    EXPECT_EQ(shares.FirstSms() + shares.SecondSms(), all);
    std::set<uint32_t> first, second;
    {
        const ThreadStreamScope scope(shares.FirstStream());
        first = SmsReached(gpu);
    }
    {
        const ThreadStreamScope scope(shares.SecondStream());
        second = SmsReached(gpu);
    }
    EXPECT_LE(first.size(), size_t(shares.FirstSms()));
    EXPECT_LE(second.size(), size_t(shares.SecondSms()));
    EXPECT_GT(second.size(), first.size());
    for (uint32_t sm : first) EXPECT_EQ(second.count(sm), 0u) << "SM " << sm << " in both shares";
    EXPECT_GT(SmsReached(gpu).size(), second.size()) << "the thread's own stream reaches every SM";
}

TEST(SmSharesGpu, ImpossibleSplitsAreRefused) {
    CA_REQUIRE_GPU(gpu);
    EXPECT_THROW(SmShares(gpu.device(), SmCount(gpu.device())), RuntimeError);
}

}  // namespace
}  // namespace caustica
