// The photon map's leaf order on the GPU, and the same arrivals in the same places as the CPU's.
// Label gpu.
#include <gtest/gtest.h>

#include <cstring>

#include "tests/photon/photon_map_check.h"
#include "tests/test_support.h"

namespace caustica::testing {
namespace {

TEST(PhotonMapGpu, SameLeafOrderAsCpu) {
    CA_REQUIRE_GPU(gpu);
    const Backend cpu = Backend::Cpu();
    std::vector<Vec3> normals;
    const std::vector<Photon> photons = IndexedPhotons(200000, &normals);
    std::vector<PhotonArrival> ordered[2];
    for (int b = 0; b < 2; ++b) {
        const Backend& backend = b == 0 ? gpu : cpu;
        const UploadedPhotons uploaded(backend, photons, normals);
        PhotonMap map(backend);
        map.Build(uploaded.photons.span(), uploaded.normals.span(), 50, KnnMethod::Exact);
        ordered[b] = ExpectLeafOrder(backend, map, photons, normals);
    }
    ASSERT_EQ(ordered[0].size(), ordered[1].size());
    EXPECT_EQ(std::memcmp(ordered[0].data(), ordered[1].data(), ordered[0].size() * sizeof(PhotonArrival)), 0);
}

}  // namespace
}  // namespace caustica::testing
