// Readback on the CPU backend: the bytes of the last Start, and a copy larger than the room
// asked for is refused.
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

TEST(Readback, RefusesMoreBytesThanItsRoom) {
    Readback readback(MemorySpace::Host, sizeof(uint32_t));
    const uint64_t value = 7;
    EXPECT_THROW(readback.Start(&value, sizeof(value)), RuntimeError);
}

}  // namespace
}  // namespace caustica
