#include "renderer/bench/scene_triangles.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "tests/test_support.h"

namespace caustica {
namespace {

std::string WriteTemp(const std::string& name, const std::string& text) {
    const std::string path = (std::filesystem::temp_directory_path() / name).string();
    std::ofstream(path) << text;
    return path;
}

// The message of the InputError that loading path throws, or "" if none.
std::string LoadError(const std::string& path) {
    return testing::InputErrorOf([&] { LoadTrianglesForBench(path); });
}

TEST(SceneTriangles, ObjPolygonsAreTriangulated) {
    const std::string path = WriteTemp("caustica_st_ok.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\nf 1 2 3\n");
    const std::vector<Triangle> triangles = LoadTrianglesForBench(path);
    ASSERT_EQ(triangles.size(), 3u);
    EXPECT_EQ(triangles[2].v2, Vec3(1, 1, 0));
    std::remove(path.c_str());
}

TEST(SceneTriangles, BadInputNamesFileAndLine) {
    const std::string high = WriteTemp("caustica_st_high.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nf 1 2 3\n\nf 1 2 4\n");
    EXPECT_NE(LoadError(high).find(high + ":6:1: error:"), std::string::npos) << LoadError(high);
    const std::string negative = WriteTemp("caustica_st_neg.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nf 1 2 -7\n");
    EXPECT_NE(LoadError(negative).find(negative + ":4:1: error:"), std::string::npos) << LoadError(negative);
    EXPECT_NE(LoadError("/nonexistent/caustica.obj").find("/nonexistent/caustica.obj: error:"), std::string::npos);
    EXPECT_NE(LoadError("scene.txt").find("expected .obj or .yaml"), std::string::npos);
    const std::string empty = WriteTemp("caustica_st_empty.yaml", "lights: []\n");
    EXPECT_EQ(LoadError(empty), empty + ": error: the scene has no objects, so no triangles to build a tree over");
    std::remove(high.c_str());
    std::remove(negative.c_str());
    std::remove(empty.c_str());
}

}  // namespace
}  // namespace caustica
