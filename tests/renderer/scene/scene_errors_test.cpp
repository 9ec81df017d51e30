// Each kind of bad scene input gives a located error that says what was expected.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "renderer/scene/scene_loader.h"
#include "tests/renderer/scene/scene_test_util.h"
#include "tests/test_support.h"

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

TEST(SceneErrors, GlassDispersionIsChecked) {
    EXPECT_SCENE_ERROR("materials:\n  g: {type: glass, dispersion: {}}\n", "bad.yaml:2:32",
                       "expected one of abbe: V (with ior as n_d) or cauchy: [A, B]");
    EXPECT_SCENE_ERROR("materials:\n  g: {type: glass, dispersion: {abbe: 20, cauchy: [1.5, 0.004]}}\n", "bad.yaml:2:32",
                       "expected one of abbe: V");
    EXPECT_SCENE_ERROR("materials:\n  g: {type: glass, dispersion: {abbe: 0.5}}\n", "bad.yaml:2:39",
                       "dispersion abbe in [1, 1000], got 0.5");
    EXPECT_SCENE_ERROR("materials:\n  g: {type: glass, ior: 1.6, dispersion: {cauchy: [1.5, 0.004]}}\n", "bad.yaml:2:25",
                       "cauchy: [A, B] gives the index; leave out ior");
    EXPECT_SCENE_ERROR("materials:\n  g: {type: glass, dispersion: {cauchy: [0.9, 0.004]}}\n", "bad.yaml:2:42",
                       "cauchy A must be in [1, 4]");
    EXPECT_SCENE_ERROR("materials:\n  g: {type: glass, dispersion: {cauchy: [1.5, 0.5]}}\n", "bad.yaml:2:47",
                       "cauchy B must be in [0, 0.1]");
    EXPECT_SCENE_ERROR("materials:\n  g: {type: glass, dispersion: {cauchy: [1.5]}}\n", "bad.yaml:2:41",
                       "expected a list of 2 numbers");
    EXPECT_SCENE_ERROR("materials:\n  g: {type: glass, dispersion: {abe: 20}}\n", "bad.yaml:2:33",
                       "unknown key \"abe\" (did you mean \"abbe\"?)");
    EXPECT_SCENE_ERROR("materials:\n  g: {type: diffuse, dispersion: {abbe: 20}}\n", "bad.yaml:2:22",
                       "unknown key \"dispersion\"");
}

TEST(SceneErrors, TextMustBeCleanUtf8) {
    EXPECT_SCENE_ERROR("objects:\n  - {name: \"a\\x01b\", shape: {type: box}}\n", "bad.yaml:2:12", "has control characters or is not UTF-8");
    EXPECT_SCENE_ERROR("lights:\n  - {name: caf\xe9}\n", "bad.yaml:2:12", "not UTF-8");
    EXPECT_EQ(LoadError("lights:\n  - {name: caf\xc3\xa9 \xe2\x98\x80}\n"), "");  // café ☀
}

TEST(SceneErrors, NumbersAndTruthValuesAreNotText) {
    EXPECT_SCENE_ERROR("camera: {resolution: [\"64\", 36]}\n", "bad.yaml:1:23",
                       "expected a number for camera resolution [width, height], got the quoted text \"64\"");
    EXPECT_SCENE_ERROR("camera: {fov: !!str 40}\n", "bad.yaml:1:15", "expected a number for camera fov, got \"40\" tagged !!str");
    EXPECT_SCENE_ERROR("settings: {photons: '5'}\n", "bad.yaml:1:21", "expected a whole number for settings photons, got the quoted text");
    EXPECT_SCENE_ERROR("objects:\n  - {shape: {type: cylinder, caps: \"false\"}}\n", "bad.yaml:2:36",
                       "expected true or false for cylinder shape caps, got the quoted text \"false\"");
    // Tagged as what they are, and plain, they are numbers.
    EXPECT_EQ(LoadError("camera: {fov: !!int 40, resolution: [!!float 64, 36]}\nsettings: {photons: !!int 5}\n"), "");
}

TEST(SceneErrors, OneDocumentOfText) {
    EXPECT_SCENE_ERROR(std::string("camera: {fov: 4\0}\n", 18), "bad.yaml:1:16", "a NUL byte: this is not a text file");
    EXPECT_SCENE_ERROR(std::string("# scene\nlights: []\n\0\0", 21), "bad.yaml:3:1", "a NUL byte");
    EXPECT_SCENE_ERROR("camera: {fov: 40}\n---\nlights: []\n", "bad.yaml:2:1",
                       "a second YAML document (after --- or ...): a scene file holds one");
    EXPECT_SCENE_ERROR("--- # first\ncamera: {fov: 40}\n--- \n", "bad.yaml:3:1", "a second YAML document");
    EXPECT_EQ(LoadError("---\ncamera: {fov: 40}\n...\n# the end\n"), "");
    EXPECT_SCENE_ERROR("camera: {fov: 40}\n...\nlights: []\n", "bad.yaml:3:1", "a second YAML document");
    EXPECT_SCENE_ERROR("--- {camera: {fov: 40}}\n--- {lights: []}\n", "bad.yaml:2:1", "a second YAML document");
    EXPECT_NE(LoadError(","), "");  // yaml-cpp's LoadAll never returns on this
    std::string deep;
    for (int i = 0; i < 600; ++i) deep += std::string(size_t(i), ' ') + "a:\n";
    EXPECT_SCENE_ERROR(deep, "bad.yaml:499:501", "malformed YAML: nested more than 500 levels deep");
    EXPECT_NE(LoadError(std::string(600, '[')).find("nested more than 500 levels deep"), std::string::npos);
}

TEST(SceneErrors, ToneMapIsOneOfTheKnown) {
    EXPECT_SCENE_ERROR("settings:\n  tonemap: filmc\n", "bad.yaml:2:12",
                       "unknown settings tonemap \"filmc\" (did you mean \"filmic\"?)");
    EXPECT_SCENE_ERROR("settings: {tonemap: reinhard}\n", "bad.yaml:1:21",
                       "unknown settings tonemap \"reinhard\" (known: none, filmic, agx)");
    EXPECT_SCENE_ERROR("settings: {tonemap: 3}\n", "bad.yaml:1:21", "unknown settings tonemap \"3\"");
    EXPECT_SCENE_ERROR("settings: {tonemap: [agx]}\n", "bad.yaml:1:21", "settings tonemap");
    for (const char* name : {"none", "filmic", "agx"})
        EXPECT_EQ(LoadError(std::string("settings: {tonemap: ") + name + "}\n"), "") << name;
}

TEST(SceneErrors, ThinLensIsChecked) {
    EXPECT_SCENE_ERROR("camera:\n  aperture: -0.1\n", "bad.yaml:2:13", "expected camera aperture in [0, 1e+06], got -0.1");
    EXPECT_SCENE_ERROR("camera: {aperture: .nan}\n", "bad.yaml:1:20", "expected a finite number for camera aperture");
    EXPECT_SCENE_ERROR("camera:\n  focus_distance: 0\n", "bad.yaml:2:19",
                       "camera focus_distance must be positive (metres from the camera), got 0");
    EXPECT_SCENE_ERROR("camera: {focus_distance: -2.5}\n", "bad.yaml:1:26", "camera focus_distance must be positive");
    EXPECT_SCENE_ERROR("camera: {focus_distance: far}\n", "bad.yaml:1:26", "expected a number for camera focus_distance");
    EXPECT_SCENE_ERROR("camera: {aperture: 0.1, focus: 2}\n", "bad.yaml:1:25", "unknown key \"focus\"");
    EXPECT_EQ(LoadError("camera: {aperture: 0, focus_distance: 1e-3}\n"), "");
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
    EXPECT_SCENE_ERROR("settings: {global_photons: -1}\n", "bad.yaml:1:28",
                       "expected settings global_photons in [0, 100000000], got -1");
    EXPECT_SCENE_ERROR("settings: {global_k: 0}\n", "bad.yaml:1:22", "expected settings global_k in [1, 1024], got 0");
    EXPECT_SCENE_ERROR("settings: {indirect: sometimes}\n", "bad.yaml:1:22", "indirect");
    EXPECT_SCENE_ERROR("settings: {alpha: 0}\n", "bad.yaml:1:19", "expected settings alpha in [0.01, 1], got 0");
    EXPECT_SCENE_ERROR("settings: {progressive: 2}\n", "bad.yaml:1:25", "progressive");
    EXPECT_SCENE_ERROR("settings: {gather_rays: -1}\n", "bad.yaml:1:25", "gather_rays");
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

TEST(SceneErrors, AnimatedCameraThroughItsLookAt) {
    // Position and look_at keyframed: the view vector passes through zero at 1.5 s.
    EXPECT_SCENE_ERROR("camera:\n  animation:\n    - {time: 1, position: [0, 0, -2], look_at: [0, 0, 0]}\n"
                       "    - {time: 2, position: [0, 0, 2], look_at: [0, 0, 1.5]}\n",
                       "bad.yaml:4:7", "the camera reaches its look_at at 1.8 s, between the keyframes at 1 and 2 s");
    // Through the still look_at, taken from the camera's keys.
    EXPECT_SCENE_ERROR("camera:\n  look_at: [1, 1, 1]\n  animation:\n    - {time: 0, position: [1, 1, 0]}\n"
                       "    - {time: 4, position: [1, 1, 3]}\n",
                       "bad.yaml:5:7", "reaches its look_at at 1.3333");
    // Passing close by (and over the top, along up) is fine.
    EXPECT_EQ(LoadError("camera:\n  animation:\n    - {time: 0, position: [-1, 5, 0]}\n    - {time: 2, position: [1, 5, 0]}\n"), "");
    EXPECT_EQ(LoadError("camera:\n  animation:\n    - {time: 0, position: [-1, 0, 0.01]}\n    - {time: 2, position: [1, 0, 0.01]}\n"), "");
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

// The message of the InputError that LoadScene(path) throws.
std::string LoadSceneError(const std::string& path) {
    return testing::InputErrorOf([&] { LoadScene(path); });
}

TEST(SceneErrors, UnreadableSceneFilesSayWhy) {
    TempDir dir;
    std::filesystem::create_symlink("b.yaml", dir.Path("a.yaml"));
    std::filesystem::create_symlink("a.yaml", dir.Path("b.yaml"));
    EXPECT_EQ(LoadSceneError(dir.Path("a.yaml")),
              dir.Path("a.yaml") + ": error: cannot read the scene file: Too many levels of symbolic links");
    // A file whose size the file system reports as 0 is read to its end, and its text judged (a
    // link with a scene's extension leads to it: the type is the name's).
    std::filesystem::create_symlink("/proc/self/status", dir.Path("status.yaml"));
    EXPECT_EQ(LoadSceneError(dir.Path("status.yaml")),
              dir.Path("status.yaml") +
                  ":1:1: error: unknown key \"Name\" (known: camera, settings, materials, lights, objects, "
                  "environment) in the scene");
    EXPECT_EQ(LoadSceneError("/proc/self/status"),
              "/proc/self/status: error: a scene file name needs its type's extension (supported: .yaml, .yml, .gltf, .glb)");
}

// A PNG header that declares this size (and nothing after it).
std::string PngHeader(unsigned width, unsigned height) {
    std::string bytes("\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR", 16);
    for (unsigned v : {width, height})
        for (int shift = 24; shift >= 0; shift -= 8) bytes += char((v >> shift) & 0xff);
    return bytes + std::string("\x08\x02\0\0\0\0\0\0\0", 9);
}

TEST(SceneErrors, TexturesNamedInAnMtlFileAreLocatedThere) {
    TempDir dir;
    dir.File("m.obj", "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl t\nf 1 2 3\n");
    const std::string scene = dir.File("s.yaml", "objects:\n  - mesh: m.obj\n");
    dir.File("m.mtl", "newmtl t\nKd 1 1 1\n  map_Kd tex/broken.png\n");
    dir.File("tex/broken.png", "not an image");
    const std::string broken = LoadSceneError(scene);
    EXPECT_EQ(broken.rfind(dir.Path("m.mtl") + ":3:3: error: texture \"" + dir.Path("tex/broken.png") +
                               "\": not a PNG or JPG image",
                           0),
              0u)
        << broken;
    // A PNG whose header declares more pixels than allowed says so.
    dir.File("m.mtl", "# one material\nnewmtl t\nmap_Kd huge.png\n");
    dir.File("huge.png", PngHeader(100000, 100000));
    EXPECT_EQ(LoadSceneError(scene), dir.Path("m.mtl") + ":3:1: error: texture \"" + dir.Path("huge.png") +
                                         "\": image of 100000x100000 pixels: each side must be 1 to 8192");
    // A missing texture is a warning at the same place.
    dir.File("m.mtl", "newmtl t\nmap_Kd missing.png\n");
    SceneLoadOptions quiet;
    quiet.print_warnings = false;
    const Scene loaded = LoadSceneFromString(testing::ReadFileBytes(scene), scene, quiet);
    ASSERT_EQ(loaded.warnings.size(), 1u);
    EXPECT_EQ(loaded.warnings[0].rfind(dir.Path("m.mtl") + ":2:1: warning: texture", 0), 0u) << loaded.warnings[0];
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
    EXPECT_EQ(ObjError("v 0 0 0\nv 1 0 0\nv 2 0 0\n# a line\nf 1 2 3\nf 3 2 1\n"),
              "m.obj:5:1: error: all 2 triangles of the mesh are degenerate (zero area): none is left to draw");
    // Line endings of every kind count as lines.
    EXPECT_EQ(ObjError("v 0 0 0\r\nv 1 0 0\rv 0 1 0\nf 1 2 7\n").rfind("m.obj:4:1: error:", 0), 0u);
}

TEST(SceneErrors, ObjIndicesBeyond32BitsAreOutOfRange) {
    const std::string triangle = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\n";
    // 4294967299 is 3 once cut to 32 bits: it must not pass for "f 1 2 3".
    EXPECT_EQ(ObjError(triangle + "f 1 2 4294967299\n"),
              "m.obj:6:1: error: vertex index out of range: the face names vertex 4294967299 but the file has 3");
    EXPECT_EQ(ObjError(triangle + "f 1 2 99999999999\n"),
              "m.obj:6:1: error: vertex index out of range: the face names vertex 99999999999 but the file has 3");
    EXPECT_EQ(ObjError(triangle + "f 1 2 -99999999999\n"),
              "m.obj:6:1: error: vertex index out of range: the face names vertex -99999999999 but the file has 3");
    EXPECT_EQ(ObjError(triangle + "f 1/1 2/2147483648 3/1\n"),
              "m.obj:6:1: error: texture coordinate index out of range: the face names texture coordinate 2147483648 but "
              "the file has 1");
    EXPECT_EQ(ObjError(triangle + "f 1//1 2//1 3//00000000004294967296\n"),
              "m.obj:6:1: error: normal index out of range: the face names normal 00000000004294967296 but the file has 1");
    // The largest 32-bit index is only out of range.
    EXPECT_EQ(ObjError(triangle + "f 1 2 2147483647\n"),
              "m.obj:6:1: error: vertex index out of range: the face names vertex 2147483647 but the file has 3");
}

}  // namespace
}  // namespace caustica
