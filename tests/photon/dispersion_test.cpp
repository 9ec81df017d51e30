// Dispersion against known answers (CPU backend): the Abbe fit, prism deviation by Snell's law at
// three wavelengths, white light that stays white, photons and eye rays of one wavelength that take
// the same path, and frames without dispersive glass that stay as they were.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/rng.h"
#include "kdtree/triangle/bfs_builder.h"
#include "photon/global_photon_tracer.h"
#include "photon/photon_tracer.h"
#include "photon/scatter.h"
#include "photon/spectrum.h"
#include "renderer/frame_renderer.h"
#include "renderer/scene/scene_eval.h"
#include "renderer/scene/scene_loader.h"
#include "renderer/scene_to_frame.h"
#include "shaders_cuda/eye_state.h"
#include "tests/renderer/render_still.h"

namespace caustica {
namespace {

constexpr double kDegrees = 180.0 / M_PI;

// n(l) of glass with n_d and Abbe number V, from the definitions (Cauchy's n = A + B / l^2 through
// n_d with n_F - n_C = (n_d - 1) / V), in double precision.
double AbbeIndex(double nd, double abbe, double nm) {
    const double f = 0.4861, c = 0.6563, d = 0.5876, l = nm * 1e-3;
    const double b = (nd - 1.0) / abbe / (1.0 / (f * f) - 1.0 / (c * c));
    return nd - b / (d * d) + b / (l * l);
}

// The u in [0, 1) for which SampleVisibleWavelength gives nm (its inverse).
float WavelengthU(float nm) { return float((0.85691062 - std::tanh((538.0 - nm) / 138.888889)) / 1.82750197); }

// A scene's geometry, materials and colour table in CPU memory, as the passes see them.
struct CpuScene {
    Backend backend = Backend::Cpu();
    Buffer<Triangle> triangles{backend};
    Buffer<TriangleShading> shading{backend};
    Buffer<SurfaceMaterial> materials{backend};
    Buffer<Rgb> spectrum{backend};
    SahTree tree{backend};
    FrameInput frame;

    explicit CpuScene(const Scene& scene) {
        frame = ToFrameInput(scene, EvaluateScene(scene, 0.0), ImageSize{});
        triangles.Upload(frame.triangles);
        shading.Upload(frame.shading);
        materials.Upload(ToSceneMaterials(scene).materials);
        spectrum.Upload(SpectralRgbTable());
        BfsSahBuilder(backend).Build(triangles.span(), tree);
    }
    SceneView View() const {
        SceneView view;
        view.triangles = triangles.span();
        view.shading = shading.span();
        view.materials = materials.span();
        view.tree = tree.View();
        view.spectrum = SpectrumView{spectrum.span()};
        return view;
    }
};

Scene ShippedScene(const std::string& file) { return LoadScene(std::string(CAUSTICA_SOURCE_DIR) + "/scenes/" + file); }

// Follows a ray of one wavelength through glass as an eye path does (SplitSpecular), taking the
// refraction at every glass surface, until it meets a diffuse surface or leaves the scene; returns
// its last ray.
Ray Refracting(const SceneView& scene, Ray ray, float wavelength) {
    for (int bounce = 0; bounce < 8; ++bounce) {
        const Hit hit = scene.Closest(ray);
        if (!hit.Valid()) break;
        const SurfacePoint p = scene.Describe(ray, hit);
        if (p.material->type == SurfaceType::Diffuse) break;
        const SpecularBranches b = SplitSpecular(p, ray.direction, hit.t, wavelength);
        EXPECT_LT(b.reflectance, 1.0f) << "total internal reflection at " << wavelength << " nm";
        ray = Ray(OffsetOrigin(p.position, p.geometric_normal, b.refracted), b.refracted);
    }
    return ray;
}

TEST(Dispersion, AbbeFitGivesNdAndTheAbbeNumber) {
    SurfaceMaterial flint;
    flint.type = SurfaceType::Glass;
    flint.ior = 1.75f;
    flint.dispersion = CauchyBFromAbbe(1.75f, 18.0f);
    EXPECT_NEAR(flint.IorAt(587.6f), 1.75f, 1e-6f);
    for (const float nm : {400.0f, 486.1f, 656.3f, 700.0f}) EXPECT_NEAR(flint.IorAt(nm), AbbeIndex(1.75, 18, nm), 1e-5);
    const float abbe = (flint.IorAt(587.6f) - 1.0f) / (flint.IorAt(486.1f) - flint.IorAt(656.3f));
    EXPECT_NEAR(abbe, 18.0f, 1e-3f);
    EXPECT_EQ(flint.IorAt(0.0f), 1.75f);  // light of all wavelengths: n_d
}

// Follows one photon as the photon pass does (StepPhoton until it is stored or lost); true when it
// is stored in *stored.
bool TracePhoton(const SceneView& scene, const EmittedPhoton& photon, float wavelength_u, const Rng& rng,
                 int max_bounces, Photon* stored) {
    PhotonPath path(photon, wavelength_u, rng);
    PhotonFate fate;
    while ((fate = StepPhoton<true>(scene, path, max_bounces, stored)) == PhotonFate::Travels) {
    }
    return fate == PhotonFate::Stored;
}

// A ray crosses scenes/prism.obj (apex angle 60 degrees) in the plane of its cross-section, meeting
// the left face at 60 degrees: its deviation is theta1 + theta4 - A, where sin theta2 = sin theta1 / n,
// theta3 = A - theta2, sin theta4 = n sin theta3 (Snell's law at both faces).
TEST(Dispersion, PrismDeviationFollowsSnellsLaw) {
    const Scene scene = testing::SceneFromYaml(R"(
materials: {flint: {type: glass, ior: 1.75, dispersion: {abbe: 18}}}
objects: [{mesh: prism.obj, material: flint}]
)",
                                               std::string(CAUSTICA_SOURCE_DIR) + "/scenes/test.yaml");
    const CpuScene cpu(scene);
    const double apex = 60.0, incidence = 60.0;
    // The left face's outward normal points 150 degrees from +x; the ray travels incidence degrees
    // off its inward normal (-30 degrees), upward.
    const double heading = (-30.0 + incidence) / kDegrees;
    const Vec3 d(float(std::cos(heading)), float(std::sin(heading)), 0.0f);
    const Vec3 face_middle(-0.075f, 0.1299f, 0.0f);
    std::vector<double> deviations;
    for (const float nm : {450.0f, 550.0f, 650.0f}) {
        const Ray out = Refracting(cpu.View(), Ray(face_middle - d * 2.0f, d), nm);
        const double measured = std::acos(std::min(1.0, double(Dot(out.direction, d)))) * kDegrees;
        const double n = AbbeIndex(1.75, 18, nm), a = apex / kDegrees, t1 = incidence / kDegrees;
        const double t2 = std::asin(std::sin(t1) / n), t4 = std::asin(n * std::sin(a - t2));
        const double expected = (t1 + t4 - a) * kDegrees;
        EXPECT_NEAR(measured, expected, 0.1) << nm << " nm";
        EXPECT_LT(out.direction.y, d.y) << nm << " nm: bent toward the base";
        deviations.push_back(measured);
    }
    EXPECT_GT(deviations[0] - deviations[1], 1.0) << "blue is bent more than green";
    EXPECT_GT(deviations[1] - deviations[2], 0.5) << "green is bent more than red";
}

// Wavelengths drawn as a sample's photons draw them (the golden-ratio sequence, the visible
// density) carry, on average, the light's own colour: white stays white.
TEST(Dispersion, SampledWavelengthsAddUpToWhite) {
    const std::vector<Rgb> table = SpectralRgbTable();
    const SpectrumView spectrum{table};
    for (const uint32_t count : {1000u, 100000u}) {
        double sum[3] = {0, 0, 0};
        for (uint32_t i = 0; i < count; ++i) {
            const Rgb w = spectrum.SampledWeight(SampleVisibleWavelength(PhotonWavelengthU(i, 12345u)));
            sum[0] += w.x;
            sum[1] += w.y;
            sum[2] += w.z;
        }
        for (int c = 0; c < 3; ++c) EXPECT_NEAR(sum[c] / count, 1.0, 0.01) << count << " photons, channel " << c;
    }
    // Single wavelengths have their colours.
    const Rgb blue = spectrum.At(450.0f), green = spectrum.At(530.0f), red = spectrum.At(640.0f);
    EXPECT_GT(blue.z, 2.0f * std::max(blue.x, blue.y));
    EXPECT_GT(green.y, 2.0f * std::max(green.x, green.z));
    EXPECT_GT(red.x, 2.0f * std::max(red.y, red.z));
}

// White light falling straight down through a glass slab, dispersive or not, lands on the floor
// white: the photons' wavelengths spread, but their colours sum to the light's (within 1%), and to
// what a slab of n_d passes (the Fresnel loss changes little with the wavelength).
TEST(Dispersion, WhiteLightThroughASlabStaysWhite) {
    const auto stored_power = [](const std::string& dispersion) {
        const Scene scene = testing::SceneFromYaml(R"(
lights: [{type: directional, direction: [0, -1, 0], power: 1000}]
materials:
  floor: {type: diffuse}
  glass: {type: glass, ior: 1.5)" + dispersion + R"(}
objects:
  - {shape: {type: plane, size: [6, 6]}, material: floor}
  - {shape: {type: box, size: [1, 0.1, 1]}, material: glass, transform: {translate: [0, 1, 0]}}
)",
                                                   "slab.yaml");
        double sum[3] = {0, 0, 0};
        for (const Photon& p : testing::RenderStill(Backend::Cpu(), scene, testing::SmallFrame(400000, 8, 8), 1)
                                   ->StoredPhotons()) {
            sum[0] += p.power.x;
            sum[1] += p.power.y;
            sum[2] += p.power.z;
        }
        return Rgb(float(sum[0]), float(sum[1]), float(sum[2]));
    };
    const Rgb plain = stored_power(""), dispersed = stored_power(", dispersion: {abbe: 30}");
    ASSERT_GT(plain.x, 0.0f);
    EXPECT_EQ(plain.x, plain.y);
    EXPECT_EQ(plain.x, plain.z);
    for (const float c : {dispersed.x, dispersed.y, dispersed.z}) EXPECT_NEAR(c / plain.x, 1.0f, 0.01f);
}

// Global photons (indirect light) take a wavelength at dispersive glass too: photons sent down
// from under a ceiling through a slab to the floor, scattered back up and stored on the ceiling,
// sum to white through a dispersive slab, to what a slab of n_d passes (within 2%), and spread their
// colours: single stored photons are not white.
TEST(Dispersion, GlobalPhotonsThroughADispersiveSlabStayWhite) {
    const auto stored = [](const std::string& dispersion, int* coloured) {
        const CpuScene cpu(testing::SceneFromYaml(R"(
lights: [{type: point, position: [0, 1.5, 0], power: 1}]
materials:
  white: {type: diffuse, color: [0.8, 0.8, 0.8]}
  glass: {type: glass, ior: 1.5)" + dispersion + R"(}
objects:
  - {shape: {type: plane, size: [40, 40]}, material: white}
  - {shape: {type: plane, size: [40, 40]}, material: white, transform: {translate: [0, 2, 0], rotate: [180, 0, 0]}}
  - {shape: {type: box, size: [40, 0.1, 40]}, material: glass, transform: {translate: [0, 1, 0]}}
)",
                                                  "slab.yaml"));
        const SceneView scene = cpu.View();
        double sum[3] = {0, 0, 0};
        *coloured = 0;
        for (uint64_t i = 0; i < 200000; ++i) {
            Rng rng(7, 0, 0, i);
            const EmittedPhoton photon{Vec3(0.0f, 1.9f, 0.0f), Vec3(0.0f, -1.0f, 0.0f), Rgb(1.0f)};
            const auto store = [&](const Photon& p, Vec3) {
                if (p.position.y < 1.9f) return;  // the ceiling's only
                sum[0] += p.power.x;
                sum[1] += p.power.y;
                sum[2] += p.power.z;
                *coloured += p.power.x != p.power.y || p.power.y != p.power.z;
            };
            TraceGlobalPhoton(scene, photon, rng, 8, store);
        }
        return Rgb(float(sum[0]), float(sum[1]), float(sum[2]));
    };
    int plain_coloured = 0, dispersed_coloured = 0;
    const Rgb plain = stored("", &plain_coloured), dispersed = stored(", dispersion: {abbe: 30}", &dispersed_coloured);
    ASSERT_GT(plain.x, 0.0f);
    EXPECT_EQ(plain_coloured, 0);
    EXPECT_GT(dispersed_coloured, 10000);
    for (const float c : {dispersed.x, dispersed.y, dispersed.z}) EXPECT_NEAR(c / plain.x, 1.0f, 0.02f);
}

// A photon of one wavelength from the prism scene's spot light crosses the prism and lands on the
// table (as the photon pass traces it); an eye ray of the same wavelength from that point, looking
// back along the photon's last direction, crosses the prism back to the light. At another
// wavelength it misses the light.
TEST(Dispersion, PhotonAndEyeRayOfOneWavelengthTakeTheSamePath) {
    const CpuScene cpu(ShippedScene("prism.yaml"));
    const SceneView scene = cpu.View();
    const LightSource& spot = cpu.frame.lights[0];
    ASSERT_EQ(spot.kind, LightKind::Spot);
    for (const float nm : {450.0f, 550.0f, 650.0f}) {
        const float u = WavelengthU(nm);
        const float wavelength = SampleVisibleWavelength(u);
        ASSERT_NEAR(wavelength, nm, 0.01f);
        int returned = 0, returned_elsewhere = 0, on_table = 0;
        for (uint64_t seed = 0; seed < 32; ++seed) {
            Rng rng(seed, 0, 0, 0);
            const EmittedPhoton photon{spot.position, spot.direction, Rgb(1.0f)};
            Photon landed;
            if (!TracePhoton(scene, photon, u, rng, 8, &landed)) continue;
            if (landed.position.y > 1e-3f) continue;  // it reflected inside and fell on the stand
            ++on_table;
            const auto back_to_light = [&](float eye_nm) {
                const Ray eye(landed.position + Vec3(0, 1e-4f, 0), -landed.direction);
                const Ray last = Refracting(scene, eye, eye_nm);
                return Length(Cross(spot.position - last.origin, last.direction));  // the light's distance from it
            };
            returned += back_to_light(wavelength) < 1e-3f;
            returned_elsewhere += back_to_light(wavelength + 40.0f) < 1e-2f;
        }
        // Photons that reflected off a face (Fresnel's share, about 1 in 5) went another way.
        EXPECT_GE(on_table, 20) << nm << " nm";
        EXPECT_EQ(returned, on_table) << nm << " nm";
        EXPECT_EQ(returned_elsewhere, 0) << nm << " nm";
    }
}

// An eye path keeps its wavelength in 15 bits beside its id: every code names one wavelength of the
// sampled range, a wavelength moves by at most half a code's step, and the ids of the deepest tree
// fit their bits.
TEST(Dispersion, EyePathsKeepTheirWavelengthAndId) {
    const uint32_t last = (1u << (32 - kPathIdBits)) - 1u;
    EXPECT_EQ(EyePath::WavelengthOfCode(0), 0.0f);
    EXPECT_EQ(EyePath::WavelengthOfCode(1), kWavelengthMin);
    EXPECT_NEAR(EyePath::WavelengthOfCode(last), kWavelengthMax, 1e-3f);
    for (uint32_t code = 1; code <= last; ++code) ASSERT_EQ(EyePath::WavelengthCode(EyePath::WavelengthOfCode(code)), code);
    for (float u = 0.0f; u < 1.0f; u += 1.0f / 1024.0f) {
        const float nm = SampleVisibleWavelength(u);
        EXPECT_NEAR(EyePath::WavelengthOfCode(EyePath::WavelengthCode(nm)), nm, 0.5f * EyePath::kCodeNm + 1e-4f);
    }
    const uint32_t deepest_id = (2u << SceneLimits::kMaxSpecularSplits) - 2u;  // always the refracted child
    EyePath path{};
    path.id = deepest_id;
    path.wavelength_code = last;
    EXPECT_EQ(path.id, deepest_id);
    EXPECT_EQ(path.wavelength_code, last);
}

// Glass that does not disperse leaves the frame as it was: a scene with an unused dispersive
// material, or one whose Cauchy B is 0, renders the same pixels as without.
TEST(Dispersion, FramesWithoutDispersiveGlassStayTheSame) {
    const std::string base = R"(
camera: {position: [0, 2, 3], look_at: [0, 0.3, 0], resolution: [48, 36]}
lights: [{type: point, position: [1, 2, 1], power: 80}]
objects:
  - {shape: {type: plane, size: [4, 4]}, material: floor}
  - {shape: {type: sphere, radius: 0.3}, material: glass, transform: {translate: [0, 0.3, 0]}}
materials:
  floor: {type: diffuse}
)";
    const auto render = [&](const std::string& materials) {
        const Scene scene = testing::SceneFromYaml(base + materials, "same.yaml");
        return testing::RenderStill(Backend::Cpu(), scene, testing::SmallFrame(20000, 0, 0), 2)->SampleSum().pixels;
    };
    const std::vector<Rgb> plain = render("  glass: {type: glass, ior: 1.5}\n");
    EXPECT_EQ(render("  glass: {type: glass, ior: 1.5}\n  flint: {type: glass, dispersion: {abbe: 20}}\n"), plain);
    const std::vector<Rgb> cauchy_b0 = render("  glass: {type: glass, dispersion: {cauchy: [1.5, 0]}}\n");
    EXPECT_EQ(cauchy_b0, plain);
    EXPECT_NE(render("  glass: {type: glass, ior: 1.5, dispersion: {abbe: 20}}\n"), plain);
}

}  // namespace
}  // namespace caustica
