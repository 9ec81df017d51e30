// ParallelForLevels over levels of mixed widths, root first and deepest first: runs of small levels
// in one block and the large levels between them a launch each must still see each level in turn,
// as the CPU does. A launch unit: nvcc compiles it in a CUDA build.
#include <gtest/gtest.h>

#include <vector>

#include "core/buffer.h"
#include "core/parallel_for_levels.h"
#include "tests/test_support.h"

namespace caustica {
namespace {

// Item i of level l (level[i]) takes one more than an item of the level before it in the order, or
// 1 at the first level: every item of level l ends with its distance from the first level, plus 1.
struct CountFromFirstLevel {
    const uint32_t* level;
    const uint32_t* bounds;
    uint32_t* depth;
    uint32_t first_level;
    bool up;
    CA_HD void operator()(int ii) const {
        const uint32_t i = uint32_t(ii), l = level[i];
        if (l == first_level) {
            depth[i] = 1;
            return;
        }
        const uint32_t before = up ? l + 1 : l - 1;  // the level the order ran just before
        depth[i] = depth[bounds[before] + i % (bounds[before + 1] - bounds[before])] + 1;
    }
};

std::vector<uint32_t> RunLevels(const Backend& backend, const std::vector<uint32_t>& bounds, LevelOrder order) {
    std::vector<uint32_t> level(bounds.back());
    for (uint32_t l = 0; l + 1 < bounds.size(); ++l)
        for (uint32_t i = bounds[l]; i < bounds[l + 1]; ++i) level[i] = l;
    Buffer<uint32_t> levels(backend), bound_list(backend), depth(backend);
    levels.Upload(Span<const uint32_t>(level));
    bound_list.Upload(Span<const uint32_t>(bounds));
    depth.Resize(level.size());
    const bool up = order == LevelOrder::Up;
    const uint32_t first = up ? uint32_t(bounds.size() - 2) : 0u;
    ParallelForLevels(backend, "count from first level", bounds, order,
                      CountFromFirstLevel{levels.data(), bound_list.data(), depth.data(), first, up});
    return depth.Download();
}

TEST(ParallelForLevelsGpu, RunsOfSmallLevelsKeepTheOrder) {
    CA_REQUIRE_GPU(gpu);
    // Widths 1, 3, 9000 (above the one-block limit), 20000, 5, 2, 8192, 9: runs of small levels at
    // both ends and between the large ones.
    std::vector<uint32_t> bounds{0};
    for (uint32_t w : {1u, 3u, 9000u, 20000u, 5u, 2u, 8192u, 9u}) bounds.push_back(bounds.back() + w);
    for (const LevelOrder order : {LevelOrder::Down, LevelOrder::Up}) {
        const std::vector<uint32_t> cpu = RunLevels(Backend::Cpu(), bounds, order);
        const size_t levels = bounds.size() - 1;
        for (size_t l = 0; l < levels; ++l)
            EXPECT_EQ(cpu[bounds[l]], order == LevelOrder::Down ? l + 1 : levels - l) << l;
        EXPECT_EQ(RunLevels(gpu, bounds, order), cpu);
    }
}

}  // namespace
}  // namespace caustica
