// Readback on the CPU backend: the bytes of the last Start or of the pass that wrote them itself,
// and a copy larger than the room asked for is refused.
#include <gtest/gtest.h>

#include <cstdint>

#include "core/error.h"
#include "core/readback.h"

namespace caustica {
namespace {

TEST(Readback, ReturnsTheBytesOfTheLastStart) {
    Readback readback(MemorySpace::Host, sizeof(uint64_t));
    const uint64_t first = 0x0123456789abcdefull, second = 42;
    readback.Start(&first, sizeof(first));
    EXPECT_EQ(readback.Wait<uint64_t>(), first);
    readback.Start(&second, sizeof(second));
    EXPECT_EQ(readback.Wait<uint64_t>(), second);
}

TEST(Readback, ReturnsTheBytesAPassWroteItself) {
    Readback readback(MemorySpace::Host, sizeof(uint64_t));
    for (const uint64_t value : {uint64_t(0x0123456789abcdefull), uint64_t(42)}) {
        readback.StartFromPass(sizeof(uint64_t), [value](const ReadbackTarget& to_host) { to_host.Write(value); });
        EXPECT_EQ(readback.Wait<uint64_t>(), value);
    }
}

TEST(Readback, RefusesMoreBytesThanItsRoom) {
    Readback readback(MemorySpace::Host, sizeof(uint32_t));
    const uint64_t value = 7;
    EXPECT_THROW(readback.Start(&value, sizeof(value)), RuntimeError);
    EXPECT_THROW(readback.StartFromPass(sizeof(value), [](const ReadbackTarget&) {}), RuntimeError);
}

}  // namespace
}  // namespace caustica
