// Each kind of bad scene input gives a located error that says what was expected.
#include <gtest/gtest.h>

#include <string>

#include "renderer/scene/scene_loader.h"
#include "tests/renderer/scene/scene_test_util.h"

namespace caustica {
namespace {

using testing::LoadError;
using testing::TempDir;

TEST(SceneErrors, MalformedYamlIsLocated) {
    EXPECT_SCENE_ERROR("camera:\n  position: [0, 1, 2\n", "bad.yaml:3:1", "malformed YAML");
    EXPECT_SCENE_ERROR("camera: {fov: 40\nlights: []\n", "bad.yaml:2:7", "malformed YAML");
}

TEST(SceneErrors, UnknownKeySuggestsNearest) {
    EXPECT_SCENE_ERROR("camera:\n  positon: [0, 1, 2]\n", "bad.yaml:2:3", "unknown key \"positon\" (did you mean \"position\"?)");
    EXPECT_SCENE_ERROR("materials:\n  m: {type: diffuse, colr: [1, 1, 1]}\n", "bad.yaml:2:22",
                       "unknown key \"colr\" (did you mean \"color\"?)");
    EXPECT_SCENE_ERROR("camras: {}\n", "bad.yaml:1:1", "unknown key \"camras\" (did you mean \"camera\"?)");
    // Far from every known key: the list of known keys instead.
    EXPECT_SCENE_ERROR("settings: {zzzzzzzz: 1}\n", "bad.yaml:1:12", "(known: photons, k, ambient");
    // A key that belongs to another type of light.
    EXPECT_SCENE_ERROR("lights:\n  - {type: point, inner_angle: 10}\n", "bad.yaml:2:19", "unknown key \"inner_angle\"");
}

TEST(SceneErrors, UnknownWordsFromClosedLists) {
    EXPECT_SCENE_ERROR("materials:\n  m: {type: glas}\n", "bad.yaml:2:13", "unknown material type \"glas\" (did you mean \"glass\"?)");
    EXPECT_SCENE_ERROR("lights:\n  - {type: spto}\n", "bad.yaml:2:12", "unknown light type \"spto\" (did you mean \"spot\"?)");
    EXPECT_SCENE_ERROR("objects:\n  - {shape: {type: shpere}}\n", "bad.yaml:2:20", "unknown shape type \"shpere\" (did you mean \"sphere\"?)");
    EXPECT_SCENE_ERROR("materials:\n  gold: {type: metal}\nobjects:\n  - {shape: {type: box}, material: gld}\n",
                       "bad.yaml:4:36", "unknown material \"gld\" (did you mean \"gold\"?)");
}

TEST(SceneErrors, TextMustBeCleanUtf8) {
    EXPECT_SCENE_ERROR("objects:\n  - {name: \"a\\x01b\", shape: {type: box}}\n", "bad.yaml:2:12", "has control characters or is not UTF-8");
    EXPECT_SCENE_ERROR("lights:\n  - {name: caf\xe9}\n", "bad.yaml:2:12", "not UTF-8");
    EXPECT_EQ(LoadError("lights:\n  - {name: caf\xc3\xa9 \xe2\x98\x80}\n"), "");  // café ☀
}

TEST(SceneErrors, AreaLightsAreChecked) {
    EXPECT_SCENE_ERROR("lights:\n  - {type: rect, radius: 1}\n", "bad.yaml:2:18", "unknown key \"radius\"");
    EXPECT_SCENE_ERROR("lights:\n  - {type: sphere, rotate: [0, 0, 0]}\n", "bad.yaml:2:20", "unknown key \"rotate\"");
    EXPECT_SCENE_ERROR("lights:\n  - {type: disc, direction: [0, 1, 0]}\n", "bad.yaml:2:18", "unknown key \"direction\"");
    EXPECT_SCENE_ERROR("lights:\n  - {type: rect, width: 0}\n", "bad.yaml:2:25", "expected rect light width in");
    EXPECT_SCENE_ERROR("lights:\n  - {type: sphere, radius: -1}\n", "bad.yaml:2:28", "expected sphere light radius in");
    EXPECT_SCENE_ERROR("lights:\n  - {type: rectangle}\n", "bad.yaml:2:12",
                       "unknown light type \"rectangle\" (known: point, spot, directional, rect, disc, sphere)");
}

TEST(SceneErrors, EnvironmentIsChecked) {
    EXPECT_SCENE_ERROR("environment: {color: [1, 1, 1]}\n", "bad.yaml:1:14", "expected an environment map with a type");
    EXPECT_SCENE_ERROR("environment: {type: gradeint}\n", "bad.yaml:1:21",
                       "unknown environment type \"gradeint\" (did you mean \"gradient\"?)");
    EXPECT_SCENE_ERROR("environment: {type: gradient, color: [1, 1, 1]}\n", "bad.yaml:1:31", "unknown key \"color\"");
    EXPECT_SCENE_ERROR("environment: {type: constant, intensity: -1}\n", "bad.yaml:1:42", "intensity in [0, 1e+06], got -1");
    EXPECT_SCENE_ERROR("environment: {type: image}\n", "bad.yaml:1:14", "an image environment needs an image");
    EXPECT_SCENE_ERROR("environment: {type: image, image: none.hdr}\n", "bad.yaml:1:35",
                       "environment image \"none.hdr\" not found");
    TempDir dir;
    dir.File("bad.hdr", "#?RADIANCE\nnot really\n");
    const std::string path = dir.File("s.yaml", "environment: {type: image, image: bad.hdr}\n");
    try {
        LoadScene(path);
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(path + ":1:35: error: environment image"), std::string::npos) << e.what();
    }
}

TEST(SceneErrors, DuplicateKeys) {
    EXPECT_SCENE_ERROR("camera:\n  fov: 40\n  fov: 50\n", "bad.yaml:3:3", "duplicate key \"fov\"");
}

TEST(SceneErrors, NumbersAreChecked) {
    EXPECT_SCENE_ERROR("camera: {fov: .nan}\n", "bad.yaml:1:15", "expected a finite number for camera fov");
    EXPECT_SCENE_ERROR("camera: {position: [0, .inf, 1]}\n", "bad.yaml:1:24", "finite number");
    EXPECT_SCENE_ERROR("camera: {position: [0, 1e999, 1]}\n", "bad.yaml:1:24", "finite number");
    EXPECT_SCENE_ERROR("camera: {fov: wide}\n", "bad.yaml:1:15", "expected a number for camera fov, got \"wide\"");
    EXPECT_SCENE_ERROR("camera: {fov: 180}\n", "bad.yaml:1:15", "expected camera fov in [1, 179]");
    EXPECT_SCENE_ERROR("settings: {photons: -5}\n", "bad.yaml:1:21", "expected settings photons in [0, 100000000], got -5");
    EXPECT_SCENE_ERROR("settings: {photons: 1.5}\n", "bad.yaml:1:21", "expected a whole number");
    EXPECT_SCENE_ERROR("settings: {k: 99999999999999999999}\n", "bad.yaml:1:15", "expected settings k in [1, 1024]");
    EXPECT_SCENE_ERROR("camera: {resolution: [100000, 10]}\n", "bad.yaml:1:23", "resolution");
    EXPECT_SCENE_ERROR("camera: {resolution: [640]}\n", "bad.yaml:1:22", "expected a list of 2 numbers");
    EXPECT_SCENE_ERROR("materials:\n  m: {type: diffuse, color: [1, 2, 0]}\n", "bad.yaml:2:33", "in [0, 1]");
    EXPECT_SCENE_ERROR("materials:\n  g: {type: glass, ior: 0.5}\n", "bad.yaml:2:25", "expected material \"g\" ior in [1, 4]");
    EXPECT_SCENE_ERROR("lights:\n  - {power: -1}\n", "bad.yaml:2:13", "expected point light power in [0, 1e+09], got -1");
    EXPECT_SCENE_ERROR("objects:\n  - {shape: {type: box}, transform: {scale: 0}}\n", "bad.yaml:2:45", "scale must not be zero");
}

TEST(SceneErrors, AbsurdTessellationIsCapped) {
    EXPECT_SCENE_ERROR("objects:\n  - {shape: {type: sphere, segments: 100000}}\n", "bad.yaml:2:38", "segments in [3, 4096]");
    EXPECT_SCENE_ERROR("objects:\n  - {shape: {type: sphere, segments: 2}}\n", "bad.yaml:2:38", "segments in [3, 4096]");
    EXPECT_SCENE_ERROR("objects:\n  - {shape: {type: heightfield, resolution: [5000, 2]}}\n", "bad.yaml:2:46", "resolution [x, z] in [1, 2048], got 5000");
    // Each within its cap, but together too many triangles.
    EXPECT_SCENE_ERROR("objects:\n  - {shape: {type: sphere, segments: 4096, rings: 4096}}\n", "bad.yaml:2:5",
                       "more than 8388608 triangles");
}

TEST(SceneErrors, DegenerateVectors) {
    EXPECT_SCENE_ERROR("camera: {position: [1, 2, 3], look_at: [1, 2, 3]}\n", "bad.yaml:1:40", "look_at must differ from its position");
    EXPECT_SCENE_ERROR("camera: {up: [0, 0, 0]}\n", "bad.yaml:1:9", "up must not be the zero vector");
    EXPECT_SCENE_ERROR("camera: {position: [0, 5, 0], look_at: [0, 0, 0]}\n", "bad.yaml:1:40", "parallel to the view direction");
    EXPECT_SCENE_ERROR("lights:\n  - {type: directional, direction: [0, 0, 0]}\n", "bad.yaml:2:36", "must not be the zero vector");
    EXPECT_SCENE_ERROR("lights:\n  - {type: spot, position: [0, 1, 0], look_at: [0, 1, 0]}\n", "bad.yaml:2:48", "look_at must differ");
    EXPECT_SCENE_ERROR("objects:\n  - {shape: {type: box}, transform: {rotate: {axis: [0, 0, 0], angle: 3}}}\n", "bad.yaml:2:53",
                       "axis must not be the zero vector");
}

TEST(SceneErrors, ShapeParameters) {
    EXPECT_SCENE_ERROR("objects:\n  - {shape: {type: ring, inner_radius: 2, outer_radius: 1}}\n", "bad.yaml:2:57",
                       "outer_radius must be larger than its inner_radius");
    EXPECT_SCENE_ERROR("objects:\n  - {shape: {type: revolution, profile: [[0, 0]]}}\n", "bad.yaml:2:41", "at least 2 points");
    EXPECT_SCENE_ERROR("objects:\n  - {shape: {type: revolution, profile: [[-1, 0], [1, 1]]}}\n", "bad.yaml:2:43",
                       "radius must not be negative");
    EXPECT_SCENE_ERROR("objects:\n  - {shape: {type: revolution, profile: [[0, 0], [0, 1]]}}\n", "bad.yaml:2:50", "two profile points in a row lie on the axis");
    EXPECT_SCENE_ERROR("objects:\n  - {shape: {type: box}, mesh: a.obj}\n", "bad.yaml:2:5", "either a shape or a mesh");
    EXPECT_SCENE_ERROR("objects:\n  - {material: x}\n", "bad.yaml:2:5", "either a shape or a mesh");
}

TEST(SceneErrors, KeyframesMustIncrease) {
    EXPECT_SCENE_ERROR("objects:\n  - shape: {type: box}\n    animation:\n      - {time: 1}\n      - {time: 1}\n",
                       "bad.yaml:5:16", "keyframe times must increase: 1 after 1");
    EXPECT_SCENE_ERROR("lights:\n  - animation: [{position: [0, 1, 0]}]\n", "bad.yaml:2:17", "needs a time");
    EXPECT_SCENE_ERROR("lights:\n  - animation: []\n", "bad.yaml:2:16", "at least one keyframe");
}

TEST(SceneErrors, WrongNodeKinds) {
    EXPECT_SCENE_ERROR("- 1\n- 2\n", "bad.yaml:1:1", "expected a map for the scene, got a list");
    EXPECT_SCENE_ERROR("lights: {type: point}\n", "bad.yaml:1:9", "expected a list for lights");
    EXPECT_SCENE_ERROR("camera: {position: {x: 1}}\n", "bad.yaml:1:20", "expected a list of 3 numbers");
    EXPECT_SCENE_ERROR("camera:\n  position:\n", "bad.yaml:2:3", "expected a value after \"position:\" in camera");
    EXPECT_NE(LoadError(""), "");
}

TEST(SceneErrors, HostileYamlDoesNotCrash) {
    // Deep nesting: yaml-cpp's depth guard, reported as malformed YAML.
    EXPECT_NE(LoadError(std::string(100000, '[')).find("malformed YAML"), std::string::npos);
    // An alias used where a list of keyframes is expected, many times over.
    std::string yaml = "lights:\n  - &l {power: 1}\n";
    for (int i = 0; i < 1000; ++i) yaml += "  - *l\n";
    EXPECT_EQ(LoadError(yaml), "");
    // Aliases that multiply the work: refused once the reads outgrow the file.
    std::string laughs = "lights:\n  - &l {animation: [";
    for (int i = 0; i < 200; ++i) laughs += (i ? ", " : "") + std::string("{time: ") + std::to_string(i) + "}";
    laughs += "]}\n";
    for (int i = 0; i < 5000; ++i) laughs += "  - *l\n";
    EXPECT_NE(LoadError(laughs).find("repeats itself too much through YAML aliases"), std::string::npos);
    EXPECT_NE(LoadError("\x01\x02\xff\xfe: [\n"), "");
    EXPECT_NE(LoadError("camera: &a {position: *a}\n"), "");
}

TEST(SceneErrors, MissingMeshIsAnError) {
    TempDir dir;
    const std::string scene = dir.File("s.yaml", "objects:\n  - mesh: models/none.obj\n");
    try {
        LoadScene(scene);
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()), scene + ":2:11: error: mesh file \"" + dir.Path("models/none.obj") + "\" not found");
    }
    // A folder or a device is not a mesh (and /dev/zero must not be read forever).
    EXPECT_NE(LoadError("objects:\n  - mesh: /dev/zero\n").find("not a regular file"), std::string::npos);
    EXPECT_NE(LoadError("objects:\n  - mesh: /tmp\n").find("not a regular file"), std::string::npos);
    EXPECT_NE(LoadError("cannot read", "").find("error"), std::string::npos);
}

TEST(SceneErrors, MissingSceneFile) {
    try {
        LoadScene("no/such/scene.yaml");
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()), "no/such/scene.yaml: error: cannot read the scene file: not found");
    }
}

// OBJ problems name the OBJ file and its line.
std::string ObjError(const std::string& obj) {
    TempDir dir;
    dir.File("m.obj", obj);
    const std::string scene = dir.File("s.yaml", "objects:\n  - mesh: m.obj\n");
    try {
        SceneLoadOptions quiet;
        quiet.print_warnings = false;
        std::ifstream in(scene);
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        LoadSceneFromString(text, scene, quiet);
    } catch (const InputError& e) {
        std::string message = e.what();
        const std::string prefix = dir.Path("m.obj");
        if (message.rfind(prefix, 0) == 0) message = "m.obj" + message.substr(prefix.size());
        return message;
    }
    return "";
}

TEST(SceneErrors, ObjProblemsNameFileAndLine) {
    EXPECT_EQ(ObjError("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 4\n"),
              "m.obj:5:1: error: vertex index out of range: the face names vertex 4 but the file has 3");
    EXPECT_EQ(ObjError("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -9\n"),
              "m.obj:4:1: error: vertex index out of range: the face names vertex before the first but the file has 3");
    EXPECT_EQ(ObjError("v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 1\nf 1//1 2//1 3//2\n"),
              "m.obj:5:1: error: normal index out of range: the face names normal 2 but the file has 1");
    EXPECT_EQ(ObjError("v 0 0 0\nv 1 0 0\nv 0 1 0\n\nf 1 2 0\n").rfind("m.obj:5:1: error: malformed face", 0), 0u);
    EXPECT_EQ(ObjError("v 0 0 0\nv 1 0 0\n  f 1 2\n"), "m.obj:3:3: error: a face needs at least 3 vertices, this one has 2");
    EXPECT_EQ(ObjError("v 0 0 0\nv 1e39 0 0\nv 0 1 0\nf 1 2 3\n"),
              "m.obj:2:1: error: vertex coordinates must be finite numbers of at most 1e9");
    std::string big = "v 0 0 0\nf";
    for (int i = 0; i < 300; ++i) big += " 1";
    EXPECT_EQ(ObjError(big + "\n"), "m.obj:2:1: error: a face with 300 vertices: at most 255 are supported");
    EXPECT_EQ(ObjError("# nothing\n"), "m.obj: error: the mesh has no triangles (expected 'f' lines)");
    // Line endings of every kind count as lines.
    EXPECT_EQ(ObjError("v 0 0 0\r\nv 1 0 0\rv 0 1 0\nf 1 2 7\n").rfind("m.obj:4:1: error:", 0), 0u);
}

}  // namespace
}  // namespace caustica
