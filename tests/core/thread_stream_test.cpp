// The stream a host thread queues on (ThreadStream): a scope sets it for the calling thread alone,
// and scopes nest.
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

}  // namespace
}  // namespace caustica
