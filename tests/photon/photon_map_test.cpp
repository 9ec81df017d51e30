// The photon map keeps its photons in the tree's leaf order, and the tree's indices name them.
#include <gtest/gtest.h>

#include "tests/photon/photon_map_check.h"

namespace caustica::testing {
namespace {

TEST(PhotonMap, KeepsPhotonsAndNormalsInLeafOrder) {
    const Backend cpu = Backend::Cpu();
    for (uint32_t n : {0u, 1u, 37u, 20000u}) {
        SCOPED_TRACE(std::to_string(n) + " photons");
        std::vector<Vec3> normals;
        const std::vector<Photon> photons = IndexedPhotons(n, &normals);
        const UploadedPhotons uploaded(cpu, photons, normals);
        PhotonMap map(cpu);
        map.Build(uploaded.photons.span(), uploaded.normals.span(), 50, KnnMethod::Exact);
        ExpectLeafOrder(cpu, map, photons, normals);
        map.Build(uploaded.photons.span(), {}, 50, KnnMethod::Histogram);  // no normals; a rebuild
        ExpectLeafOrder(cpu, map, photons, {});
    }
}

TEST(PhotonMap, RefusesNormalsOfAnotherCount) {
    const Backend cpu = Backend::Cpu();
    std::vector<Vec3> normals;
    const std::vector<Photon> photons = IndexedPhotons(10, &normals);
    normals.pop_back();
    PhotonMap map(cpu);
    EXPECT_THROW(map.Build(Span<const Photon>(photons), Span<const Vec3>(normals), 5, KnnMethod::Exact), RuntimeError);
}

}  // namespace
}  // namespace caustica::testing
