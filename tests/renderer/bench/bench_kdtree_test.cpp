// The kd-tree benchmark end to end on a small generated scene (CPU, exact builder), and its usage
// errors.
#include "renderer/bench/bench_kdtree.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "kdtree/triangle/traversal_variant.h"

namespace caustica {
namespace {

std::string ReadFile(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// Runs the benchmark with args and --json into a temporary file named name; text gets the file.
void RunWritingJson(std::vector<std::string> args, const char* name, std::string* text) {
    const std::string json = (std::filesystem::temp_directory_path() / name).string();
    args.push_back("--json");
    args.push_back(json);
    ASSERT_EQ(BenchKdTreeMain(args), 0);
    *text = ReadFile(json);
    std::remove(json.c_str());
}

size_t Occurrences(const std::string& text, const std::string& part) {
    size_t count = 0;
    for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
    return count;
}

TEST(BenchKdTree, SmallRunWritesEveryField) {
    std::string text;
    ASSERT_NO_FATAL_FAILURE(RunWritingJson({"--triangles", "3000", "--device", "cpu", "--builder", "exact", "--reference",
                                            "--repeat", "2", "--rays", "4000"},
                                           "caustica_bench_kdtree_test.json", &text));
    for (const char* key : {"\"device\"", "\"triangles\"", "\"build_ms\"", "\"median\"", "\"min\"", "\"max\"", "\"nodes\"",
                            "\"leaves\"", "\"max_depth\"", "\"sah_cost\"", "\"reference_sah_cost\"",
                            "\"reference_primary_mrays_per_s\"", "\"peak_device_bytes\"", "\"primary_mrays_per_s\"",
                            "\"shadow_mrays_per_s\"", "\"incoherent_mrays_per_s\"", "\"surface_rays\": 4000,",
                            "\"surface_mrays_per_s\"", "\"hits_checked\"",
                            "\"hit_mismatches\": 0,", "\"commit\"", "\"date\""})
        EXPECT_NE(text.find(key), std::string::npos) << key << " missing in\n" << text;
}

TEST(BenchKdTree, EveryTraversalOnTheSameRaysAgrees) {
    std::string text;
    ASSERT_NO_FATAL_FAILURE(RunWritingJson({"--triangles", "3000", "--device", "cpu", "--traversal", "all", "--repeat",
                                            "1", "--rays", "4000"},
                                           "caustica_bench_kdtree_traversals_test.json", &text));
    const std::string entries = Concat("\"short_stack_entries\": ", kShortStackEntries);
    for (const std::string key : {"\"traversal\": \"stack\"", "\"traversals\"", "\"traversal\": \"push-down\"",
                                  "\"traversal\": \"short-stack\"", entries.c_str(), "\"primary_nodes_per_ray\"",
                                  "\"incoherent_restarts_per_ray\"", "\"surface_nodes_per_ray\"",
                                  "\"surface_restarts_per_ray\"", "\"hit_mismatches\": 0,",
                                  "\"traversal_differences\": 0,"})
        EXPECT_NE(text.find(key), std::string::npos) << key << " missing in\n" << text;
    // The stack walk comes first; the two others compared every ray with its result: no difference.
    EXPECT_EQ(Occurrences(text, "\"rays_compared\": 0,"), 1u) << text;
    EXPECT_EQ(Occurrences(text, "\"differences\": 0\n"), 3u) << text;
}

TEST(BenchKdTree, CoincidentDistributionNamesItsScene) {
    std::string text;
    ASSERT_NO_FATAL_FAILURE(RunWritingJson({"--triangles", "1200", "--distribution", "coincident", "--device", "cpu",
                                            "--repeat", "1", "--rays", "400"},
                                           "caustica_bench_kdtree_coincident_test.json", &text));
    for (const char* key : {"\"scene\": \"generated (coincident boxes)\"", "\"triangles\": 1200,", "\"hit_mismatches\": 0,"})
        EXPECT_NE(text.find(key), std::string::npos) << key << " missing in\n" << text;
}

TEST(BenchKdTree, UsageErrorsAreInputErrors) {
    EXPECT_THROW(BenchKdTreeMain({"--traversal", "restart"}), InputError);
    EXPECT_THROW(BenchKdTreeMain({"--builder", "median"}), InputError);
    EXPECT_THROW(BenchKdTreeMain({"--scene", "a.obj", "--triangles", "5"}), InputError);
    EXPECT_THROW(BenchKdTreeMain({"--scene", "a.obj", "--distribution", "coincident"}), InputError);
    EXPECT_THROW(BenchKdTreeMain({"--distribution", "stacked"}), InputError);
    EXPECT_THROW(BenchKdTreeMain({"--scene", "/nonexistent/mesh.obj", "--device", "cpu", "--builder", "exact"}), InputError);
    EXPECT_THROW(BenchKdTreeMain({"--repeat", "0"}), InputError);
    EXPECT_THROW(BenchKdTreeMain({"--large-levels-in-one-block", "-1"}), InputError);
    EXPECT_THROW(BenchKdTreeMain({"--small-node-threshold", "65"}), InputError);
    EXPECT_THROW(BenchKdTreeMain({"--binned-sah-max-entries", "-1"}), InputError);
    EXPECT_THROW(BenchKdTreeMain({"--median-or-sah-max-entries", "-1"}), InputError);
    EXPECT_THROW(BenchKdTreeMain({"--median-weight", "0"}), InputError);
    EXPECT_THROW(BenchKdTreeMain({"--median-weight", "1.5"}), InputError);
    EXPECT_THROW(BenchKdTreeMain({"--empty-space-area-ratio", "-0.1"}), InputError);
    EXPECT_THROW(BenchKdTreeMain({"--empty-space-area-ratio", "1"}), InputError);
    EXPECT_THROW(BenchKdTreeMain({"--small-stage-batch-entries", "63"}), InputError);
    EXPECT_THROW(BenchKdTreeMain({"--cost-traversal", "0"}), InputError);
    EXPECT_THROW(BenchKdTreeMain({"--cost-intersection", "-1"}), InputError);
    EXPECT_THROW(BenchKdTreeMain({"--cost-intersection", "inf"}), InputError);
    EXPECT_THROW(BenchKdTreeMain({"--small-stage-straddler-test", "yes"}), InputError);
}

TEST(BenchKdTree, BuilderParametersReachTheBuilder) {
    std::string text;
    // The JSON gives the parameters the builder holds (BfsSahBuilder::params), not the options' copy.
    ASSERT_NO_FATAL_FAILURE(RunWritingJson({"--triangles", "3000", "--device", "cpu", "--repeat", "1", "--rays", "400",
                                            "--children-in-one-block", "0", "--large-levels-in-one-block", "77",
                                            "--small-levels-in-one-block", "5", "--small-node-threshold", "64",
                                            "--binned-sah-max-entries", "0", "--median-or-sah-max-entries", "2000",
                                            "--median-weight", "0.5", "--empty-space-area-ratio", "0.25",
                                            "--small-stage-straddler-test", "off",
                                            "--small-stage-batch-entries", "1000", "--cost-traversal", "2.5",
                                            "--cost-intersection", "1.5"},
                                           "caustica_bench_kdtree_block_test.json", &text));
    for (const char* key : {"\"children_in_one_block_max\": 0,", "\"large_levels_in_one_block_max\": 77,",
                            "\"small_levels_in_one_block_max\": 5,", "\"small_node_threshold\": 64,",
                            "\"binned_sah_max_entries\": 0,", "\"median_or_sah_max_entries\": 2000,",
                            "\"median_weight\": 0.5,", "\"empty_space_area_ratio\": 0.25,",
                            "\"cost_traversal\": 2.5,", "\"cost_intersection\": 1.5,",
                            "\"test_small_stage_straddlers\": false,",
                            "\"small_stage_batch_entries\": 1000,", "\"hit_mismatches\": 0,"})
        EXPECT_NE(text.find(key), std::string::npos) << key << " missing in\n" << text;
}

}  // namespace
}  // namespace caustica
