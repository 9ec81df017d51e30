// `caustica bench quality` on a small CPU run: it measures against a rendered or a given
// reference, writes its JSON, and rejects what it cannot read.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "renderer/bench/bench_quality.h"
#include "renderer/output/image.h"
#include "renderer/output/output_file.h"

namespace caustica {
namespace {

std::string ReadText(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<std::string> SmallRun(std::vector<std::string> extra) {
    std::vector<std::string> args = {std::string(CAUSTICA_SOURCE_DIR) + "/scenes/cornell-glass.yaml", "--device", "cpu",
                                     "--width", "24", "--height", "24", "--photons", "2000", "--frames", "2"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
}

TEST(BenchQuality, SmallCpuRunWritesJson) {
    const std::string json_path = ::testing::TempDir() + "bench_quality_test.json";
    ASSERT_EQ(BenchQualityMain(SmallRun({"--reference-samples", "4", "--json", json_path})), 0);
    const std::string json = ReadText(json_path);
    for (const char* key : {"\"device\": \"cpu\"", "\"commit\": ", "\"width\": 24", "\"samples\": 1", "\"frames\": 2",
                            "\"reference_samples\": 4", "\"specular_splits\": 3", "\"shadow_samples\": 4",
                            "\"errors\": {", "\"all\": {", "\"pixels\": 576", "\"diffuse\": {", "\"glass\": {",
                            "\"metal\": {", "\"mean_absolute\": ", "\"root_mean_square\": ", "\"far_fraction\": ",
                            "\"frame_ms\": {"})
        EXPECT_NE(json.find(key), std::string::npos) << key << " not in " << json;
    std::remove(json_path.c_str());
}

// The path tracer records what each camera ray meets first, as the photon mapper does: its frames'
// errors by material count every pixel once.
TEST(BenchQuality, PathTracedFramesAreMeasuredByMaterial) {
    const std::string json_path = ::testing::TempDir() + "bench_quality_path.json";
    ASSERT_EQ(BenchQualityMain(SmallRun({"--integrator", "path", "--reference-samples", "4", "--json", json_path})), 0);
    const std::string json = ReadText(json_path);
    size_t pixels = 0;
    for (const char* kind : {"\"diffuse\": {", "\"glass\": {", "\"metal\": {", "\"light\": {", "\"background\": {"}) {
        const size_t at = json.find(kind);
        ASSERT_NE(at, std::string::npos) << kind << " not in " << json;
        pixels += std::stoul(json.substr(json.find("\"pixels\": ", at) + 10));
    }
    EXPECT_EQ(pixels, 576u) << json;
    EXPECT_GT(std::stoul(json.substr(json.find("\"pixels\": ", json.find("\"diffuse\": {")) + 10)), 300u) << json;
    std::remove(json_path.c_str());
}

// A white reference against frames so overexposed that every lit pixel shows white: no error on
// the diffuse walls (the mirror ball shows the black world through the box's open side).
// Read as PNG (clamped sRGB) and as EXR (linear float, as render writes it).
class BenchQualityReference : public ::testing::TestWithParam<const char*> {};

TEST_P(BenchQualityReference, AGivenReferenceIsUsedAsIs) {
    const std::string png = ::testing::TempDir() + "bench_quality_reference" + GetParam();
    // Names of their own for each format: ctest runs the two at once.
    const std::string json_path = ::testing::TempDir() + "bench_quality_reference" + GetParam() + ".json";
    Image flat(24, 24);
    for (Rgb& c : flat.pixels) c = Rgb(2.0f);  // shown as white everywhere
    WriteImage(flat, CheckOutputFile("", png));
    ASSERT_EQ(BenchQualityMain(SmallRun({"--frames", "1", "--reference", png, "--exposure", "1000", "--json",
                                         json_path})),
              0);
    const std::string json = ReadText(json_path);
    EXPECT_NE(json.find("\"reference\": \"" + png + "\""), std::string::npos) << json;
    const size_t diffuse = json.find("\"diffuse\": {");
    ASSERT_NE(diffuse, std::string::npos) << json;
    EXPECT_EQ(json.find("\"mean_absolute\": 0,", diffuse), json.find("\"mean_absolute\"", diffuse)) << json;
    std::remove(json_path.c_str());
    std::remove(png.c_str());
}

// A series measures each frame after each count: the error shrinks from one sample to eight
// against a reference of 32, and the time grows.
TEST(BenchQuality, SamplesSeriesWritesTheErrorAfterEachCount) {
    const std::string json_path = ::testing::TempDir() + "bench_quality_series.json";
    ASSERT_EQ(BenchQualityMain(SmallRun({"--reference-samples", "32", "--samples-series", "1,2,8", "--json",
                                         json_path})),
              0);
    const std::string json = ReadText(json_path);
    std::vector<double> rmse, seconds;
    for (size_t at = json.find("\"series\": ["); (at = json.find("\"seconds\": ", at)) != std::string::npos;) {
        seconds.push_back(std::stod(json.substr(at + 11)));
        at = json.find("\"root_mean_square\": ", at);
        rmse.push_back(std::stod(json.substr(at + 20)));
    }
    ASSERT_EQ(rmse.size(), 3u) << json;
    EXPECT_LT(rmse[2], rmse[0]);
    EXPECT_LT(seconds[0], seconds[2]);
    EXPECT_NE(json.find("\"samples\": 8"), std::string::npos) << json;
    std::remove(json_path.c_str());
}

INSTANTIATE_TEST_SUITE_P(Formats, BenchQualityReference, ::testing::Values(".png", ".exr"));

TEST(BenchQuality, BadReferencesAndOptionsAreInputErrors) {
    const std::string png = ::testing::TempDir() + "bench_quality_small.png";
    WriteImage(Image(8, 8), CheckOutputFile("", png));
    EXPECT_THROW(BenchQualityMain(SmallRun({"--reference", png})), InputError);  // 8x8, not 24x24
    EXPECT_THROW(BenchQualityMain(SmallRun({"--reference", "reference.exr"})), InputError);  // not there
    EXPECT_THROW(BenchQualityMain(SmallRun({"--reference", "reference.tif"})), InputError);
    EXPECT_THROW(BenchQualityMain(SmallRun({"--reference", ::testing::TempDir() + "none.png"})), InputError);
    EXPECT_THROW(BenchQualityMain(SmallRun({"--samples", "0"})), InputError);
    EXPECT_THROW(BenchQualityMain(SmallRun({"--tonemap", "agx"})), InputError);  // it measures linear light
    EXPECT_THROW(BenchQualityMain(SmallRun({"--reference-samples", "0"})), InputError);
    EXPECT_THROW(BenchQualityMain(SmallRun({"--frames", "0"})), InputError);
    EXPECT_THROW(BenchQualityMain(SmallRun({"--specular-splits", "17"})), InputError);
    EXPECT_THROW(BenchQualityMain(SmallRun({"--shadow-samples", "-1"})), InputError);
    for (const char* series : {"", "0,1", "2,2", "4,2", "1,x", "1,,2", "1,70000"})
        EXPECT_THROW(BenchQualityMain(SmallRun({"--samples-series", series})), InputError) << series;
    std::remove(png.c_str());
}

}  // namespace
}  // namespace caustica
