// The stream a host thread queues on (ThreadStream) and the SMs it reaches (ThreadStreamSms): a
// scope sets them for the calling thread alone, scopes nest, and a named share stream brings its SMs.
#include <gtest/gtest.h>

#include <thread>

#include "core/thread_stream.h"

namespace caustica {
namespace {

TEST(ThreadStream, ScopesNestAndRestoreForTheirThreadAlone) {
    void* const own = ThreadStream();
    int a = 0, b = 0;
    {
        const ThreadStreamScope outer(&a);
        EXPECT_EQ(ThreadStream(), &a);
        {
            const ThreadStreamScope inner(&b);
            EXPECT_EQ(ThreadStream(), &b);
        }
        EXPECT_EQ(ThreadStream(), &a);
        void* other = &a;
        std::thread([&other] { other = ThreadStream(); }).join();
        EXPECT_EQ(other, own);
    }
    EXPECT_EQ(ThreadStream(), own);
}

TEST(ThreadStream, AShareStreamsScopeKnowsItsSmsUntilItEnds) {
    int share = 0, whole = 0;
    EXPECT_EQ(ThreadStreamSms(), 0) << "the thread's own stream reaches every SM";
    NameShareStream(&share, 116);
    {
        const ThreadStreamScope on_share(&share);
        EXPECT_EQ(ThreadStreamSms(), 116);
        {
            const ThreadStreamScope on_whole(&whole);
            EXPECT_EQ(ThreadStreamSms(), 0);
        }
        EXPECT_EQ(ThreadStreamSms(), 116);
        int other = -1;
        std::thread([&other] { other = ThreadStreamSms(); }).join();
        EXPECT_EQ(other, 0);
    }
    EXPECT_EQ(ThreadStreamSms(), 0);
    ForgetShareStream(&share);
    const ThreadStreamScope forgotten(&share);
    EXPECT_EQ(ThreadStreamSms(), 0) << "a stream no longer named is no share's";
}

}  // namespace
}  // namespace caustica
