// `caustica bench photons` on a small CPU run: it succeeds, checks its queries and writes every
// JSON field the issue asks for; bad options are usage errors.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "renderer/bench/bench_photons.h"

namespace caustica {
namespace {

TEST(BenchPhotons, SmallCpuRunWritesJson) {
    const std::string path = ::testing::TempDir() + "bench_photons_test.json";
    for (const char* distribution : {"uniform", "clustered", "plane", "room"}) {
        SCOPED_TRACE(distribution);
        ASSERT_EQ(BenchPhotonsMain({"--points", "5000", "--distribution", distribution, "--queries", "3000", "--k", "20",
                                    "--device", "cpu", "--repeat", "2", "--check", "50", "--work", "20", "--json",
                                    path}),
                  0);
        std::ifstream in(path);
        std::stringstream text;
        text << in.rdbuf();
        const std::string json = text.str();
        for (const char* key : {"\"device\": \"cpu\"", "\"points\": 5000", "\"queries\": 3000", "\"k\": 20",
                                "\"build_ms\": {", "\"node_radii_ms\": {", "\"median\": ", "\"knn_ms\": {", "\"exact_knn_ms\": {",
                                "\"coherent\": {", "\"random\": {", "\"commit\": ", "\"date\": ",
                                "\"work\": {", "\"query_points\": ", "\"estimate_points\": ",
                                "\"radius_max_rel_error\": 0", "\"exact_radius_max_rel_error\": 0",
                                "\"exact_count_mismatches\": 0", "\"exact_knn_r0_ms\": {", "\"queries_checked\": 50", "\"peak_device_bytes\"",
                                "\"nanoflann_build_ms\": {", "\"nanoflann_knn_ms\": {"})
            EXPECT_NE(json.find(key), std::string::npos) << key << " not in " << json;
    }
    std::remove(path.c_str());
}

TEST(BenchPhotons, BadOptionsAreInputErrors) {
    EXPECT_THROW(BenchPhotonsMain({"--distribution", "spiral"}), InputError);
    EXPECT_THROW(BenchPhotonsMain({"--k", "0"}), InputError);
    EXPECT_THROW(BenchPhotonsMain({"--points", "-3"}), InputError);
    for (const char* threshold : {"-1", "31", "2049"})
        EXPECT_THROW(BenchPhotonsMain({"--medium-threshold", threshold}), InputError) << threshold;
}

}  // namespace
}  // namespace caustica
