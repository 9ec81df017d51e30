#include "renderer/scene/scene_save.h"

#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <filesystem>

#include "core/error.h"
#include "core/number_text.h"

namespace caustica {
namespace {

namespace fs = std::filesystem;

struct Number {
    std::string text;
    explicit Number(float v) : text(ShortestText(v)) {}
    explicit Number(double v) : text(ShortestText(v)) {}
};
YAML::Emitter& operator<<(YAML::Emitter& out, const Number& n) { return out << n.text; }

YAML::Emitter& operator<<(YAML::Emitter& out, Vec3 v) {
    return out << YAML::Flow << YAML::BeginSeq << Number(v.x) << Number(v.y) << Number(v.z) << YAML::EndSeq;
}

class Writer {
public:
    explicit Writer(const std::string& directory) : dir_(fs::absolute(directory).lexically_normal()) {
    }

    std::string Write(const Scene& scene) {
        out_ << YAML::BeginMap;
        WriteCamera(scene.camera);
        WriteSettings(scene.settings);
        if (scene.user_materials > 0) {
            out_ << YAML::Key << "materials" << YAML::Value << YAML::BeginMap;
            for (int i = 0; i < scene.user_materials; ++i) WriteMaterial(scene.materials[i]);
            out_ << YAML::EndMap;
        }
        out_ << YAML::Key << "lights" << YAML::Value << YAML::BeginSeq;
        for (const caustica::Light& l : scene.lights) WriteLight(l);
        out_ << YAML::EndSeq;
        out_ << YAML::Key << "objects" << YAML::Value << YAML::BeginSeq;
        for (const caustica::Object& o : scene.objects) WriteObject(scene, o);
        out_ << YAML::EndSeq;
        WriteEnvironment(scene.environment);
        out_ << YAML::EndMap;
        CA_CHECK_MSG(out_.good(), "YAML emitter: ", out_.GetLastError());
        return std::string(out_.c_str()) + "\n";
    }

private:
    template <class T>
    void Put(const char* key, const T& value) {
        out_ << YAML::Key << key << YAML::Value;
        if constexpr (std::is_floating_point_v<T>) out_ << Number(value);
        else out_ << value;
    }
    void PutPath(const char* key, const std::string& absolute) {
        const fs::path relative = fs::path(absolute).lexically_relative(dir_);
        Put(key, relative.empty() ? absolute : relative.generic_string());
    }

    void WriteCamera(const caustica::Camera& c) {
        out_ << YAML::Key << "camera" << YAML::Value << YAML::BeginMap;
        Put("position", c.position);
        Put("look_at", c.look_at);
        Put("up", c.up);
        Put("fov", c.fov_degrees);
        out_ << YAML::Key << "resolution" << YAML::Value << YAML::Flow << YAML::BeginSeq << c.width << c.height << YAML::EndSeq;
        if (c.aperture > 0) Put("aperture", c.aperture);
        if (c.focus_distance > 0) Put("focus_distance", c.focus_distance);
        if (!c.animation.empty()) {
            out_ << YAML::Key << "animation" << YAML::Value << YAML::BeginSeq;
            for (const CameraKey& k : c.animation) {
                out_ << YAML::Flow << YAML::BeginMap;
                Put("time", k.time);
                Put("position", k.position);
                Put("look_at", k.look_at);
                out_ << YAML::EndMap;
            }
            out_ << YAML::EndSeq;
        }
        out_ << YAML::EndMap;
    }

    void WriteSettings(const caustica::Settings& s) {
        out_ << YAML::Key << "settings" << YAML::Value << YAML::BeginMap;
        Put("photons", s.photons);
        Put("k", s.k);
        Put("ambient", s.ambient);
        Put("indirect", s.indirect);
        Put("global_photons", s.global_photons);
        Put("global_k", s.global_k);
        Put("gather_rays", s.gather_rays);
        Put("denoise", s.denoise);
        Put("progressive", s.progressive);
        Put("alpha", s.alpha);
        Put("max_bounces", s.max_bounces);
        Put("specular_splits", s.specular_splits);
        Put("shadow_samples", s.shadow_samples);
        Put("frame_rate", s.frame_rate);
        Put("duration", s.duration);
        Put("tonemap", ToneMapName(s.tone_map));
        out_ << YAML::EndMap;
    }

    void WriteEnvironment(const Environment& e) {
        out_ << YAML::Key << "environment" << YAML::Value << YAML::BeginMap;
        Put("type", ToString(e.kind));
        switch (e.kind) {
        case Environment::Kind::constant: Put("color", e.color); break;
        case Environment::Kind::gradient:
            Put("horizon", e.horizon);
            Put("zenith", e.zenith);
            break;
        case Environment::Kind::image: PutPath("image", e.image_path); break;
        }
        Put("rotate", e.rotate_degrees);
        Put("intensity", e.intensity);
        out_ << YAML::EndMap;
    }

    void WriteMaterial(const caustica::Material& m) {
        out_ << YAML::Key << m.name << YAML::Value << YAML::BeginMap;
        Put("type", TypeWord(m));
        switch (m.type) {
        case MaterialType::diffuse:
            Put("color", m.color);
            if (!m.texture_path.empty()) PutPath("texture", m.texture_path);
            if (m.checker.enabled) {
                out_ << YAML::Key << "checker" << YAML::Value << YAML::Flow << YAML::BeginMap;
                Put("color_a", m.checker.color_a);
                Put("color_b", m.checker.color_b);
                Put("scale", m.checker.scale);
                out_ << YAML::EndMap;
            }
            break;
        case MaterialType::mirror: Put("color", m.color); break;
        case MaterialType::glass:
            if (m.dispersion.kind != Dispersion::Kind::cauchy) Put("ior", m.ior);  // cauchy's A and B give it
            Put("absorption", m.absorption);
            WriteDispersion(m.dispersion);
            break;
        }
        out_ << YAML::EndMap;
    }

    void WriteDispersion(const Dispersion& d) {
        if (d.kind == Dispersion::Kind::none) return;
        out_ << YAML::Key << "dispersion" << YAML::Value << YAML::Flow << YAML::BeginMap;
        if (d.kind == Dispersion::Kind::abbe) {
            Put("abbe", d.abbe);
        } else {
            out_ << YAML::Key << "cauchy" << YAML::Value << YAML::Flow << YAML::BeginSeq << Number(d.cauchy_a)
                 << Number(d.cauchy_b) << YAML::EndSeq;
        }
        out_ << YAML::EndMap;
    }

    void WriteLight(const caustica::Light& l) {
        out_ << YAML::BeginMap;
        Put("name", l.name);
        Put("type", ToString(l.type));
        Put("position", l.position);
        if (l.type == LightType::spot || l.type == LightType::directional)
            Put(l.aimed ? "look_at" : "direction", l.aimed ? l.target : l.direction);
        if (l.type == LightType::spot) {
            Put("inner_angle", l.inner_angle_degrees);
            Put("outer_angle", l.outer_angle_degrees);
        }
        if (l.type == LightType::rect) {
            Put("width", l.width);
            Put("height", l.height);
        }
        if (l.type == LightType::disc || l.type == LightType::sphere) Put("radius", l.radius);
        if (l.type == LightType::rect || l.type == LightType::disc) PutRotation(l.rotate);
        Put("color", l.color);
        Put("power", l.power);
        WriteAnimation(l.animation, l.interpolation, l.orbit, [&](const Vec3Key& k) { Put("position", k.value); });
        out_ << YAML::EndMap;
    }

    // Linear keys as a plain list (the form most files use), smooth ones as {interpolation, keys},
    // an orbit as {orbit: {center, axis, period}}.
    template <class Key, class WriteFields>
    void WriteAnimation(const std::vector<Key>& keys, Interpolation interpolation, const Orbit& orbit,
                        WriteFields write_fields) {
        if (keys.empty() && !orbit.enabled) return;
        out_ << YAML::Key << "animation" << YAML::Value;
        if (keys.empty()) {
            out_ << YAML::Flow << YAML::BeginMap << YAML::Key << "orbit" << YAML::Value << YAML::BeginMap;
            Put("center", orbit.center);
            Put("axis", orbit.axis);
            Put("period", orbit.period);
            out_ << YAML::EndMap << YAML::EndMap;
            return;
        }
        const bool smooth = interpolation != Interpolation::linear;
        if (smooth) {
            out_ << YAML::BeginMap;
            Put("interpolation", ToString(interpolation));
            out_ << YAML::Key << "keys" << YAML::Value;
        }
        out_ << YAML::BeginSeq;
        for (const Key& k : keys) {
            out_ << YAML::Flow << YAML::BeginMap;
            Put("time", k.time);
            write_fields(k);
            out_ << YAML::EndMap;
        }
        out_ << YAML::EndSeq;
        if (smooth) out_ << YAML::EndMap;
    }

    void PutRotation(const Rotation& r) {
        if (r.kind == Rotation::Kind::euler) {
            Put("rotate", r.euler_degrees);
        } else {
            out_ << YAML::Key << "rotate" << YAML::Value << YAML::Flow << YAML::BeginMap;
            Put("axis", r.axis);
            Put("angle", r.angle_degrees);
            out_ << YAML::EndMap;
        }
    }

    void TransformFields(const Transform& t) {
        Put("translate", t.translate);
        PutRotation(t.rotate);
        Put("scale", t.scale);
    }

    void WriteShape(const caustica::Shape& s) {
        out_ << YAML::Key << "shape" << YAML::Value << YAML::BeginMap;
        Put("type", ToString(s.kind));
        switch (s.kind) {
        case Shape::Kind::plane:
        case Shape::Kind::heightfield:
            out_ << YAML::Key << "size" << YAML::Value << YAML::Flow << YAML::BeginSeq << Number(s.size.x) << Number(s.size.z) << YAML::EndSeq;
            break;
        case Shape::Kind::box: Put("size", s.size); break;
        case Shape::Kind::sphere:
            Put("radius", s.radius);
            Put("segments", s.segments);
            Put("rings", s.rings);
            break;
        case Shape::Kind::cylinder:
            Put("radius", s.radius);
            Put("height", s.height);
            Put("segments", s.segments);
            Put("caps", s.caps);
            break;
        case Shape::Kind::ring:
            Put("inner_radius", s.inner_radius);
            Put("outer_radius", s.outer_radius);
            Put("height", s.height);
            Put("segments", s.segments);
            break;
        case Shape::Kind::revolution:
            Put("segments", s.segments);
            out_ << YAML::Key << "profile" << YAML::Value << YAML::Flow << YAML::BeginSeq;
            for (Vec2 p : s.profile) out_ << YAML::Flow << YAML::BeginSeq << Number(p.x) << Number(p.y) << YAML::EndSeq;
            out_ << YAML::EndSeq;
            break;
        }
        if (s.kind == Shape::Kind::heightfield) {
            out_ << YAML::Key << "resolution" << YAML::Value << YAML::Flow << YAML::BeginSeq << s.resolution_x
                 << s.resolution_z << YAML::EndSeq;
            if (!s.waves.empty()) {
                out_ << YAML::Key << "waves" << YAML::Value << YAML::BeginSeq;
                for (const Wave& w : s.waves) {
                    out_ << YAML::Flow << YAML::BeginMap;
                    Put("amplitude", w.amplitude);
                    Put("wavelength", w.wavelength);
                    Put("direction", w.direction_degrees);
                    Put("speed", w.speed);
                    Put("phase", w.phase);
                    out_ << YAML::EndMap;
                }
                out_ << YAML::EndSeq;
            }
            if (!s.image_path.empty()) PutPath("image", s.image_path);
            Put("image_height", s.image_height);
        }
        out_ << YAML::EndMap;
    }

    void WriteObject(const Scene& scene, const caustica::Object& o) {
        out_ << YAML::BeginMap;
        Put("name", o.name);
        if (o.is_mesh) PutPath("mesh", o.mesh_path);
        else WriteShape(o.shape);
        // Only materials from the scene file have names that load back (OBJ ones come with their mesh).
        CA_CHECK_MSG(o.material < scene.user_materials, "object \"", o.name, "\" uses material ", o.material,
                     ", which is not one of the scene file's ", scene.user_materials);
        if (o.material >= 0) Put("material", scene.materials[o.material].name);
        out_ << YAML::Key << "transform" << YAML::Value << YAML::Flow << YAML::BeginMap;
        TransformFields(o.transform);
        out_ << YAML::EndMap;
        WriteAnimation(o.animation, o.interpolation, o.orbit,
                       [&](const TransformKey& k) { TransformFields(k.transform); });
        out_ << YAML::EndMap;
    }

    fs::path dir_;
    YAML::Emitter out_;
};

}  // namespace

std::string SceneToYaml(const Scene& scene, const std::string& directory) { return Writer(directory).Write(scene); }

std::string SavedSceneText(const Scene& scene, const std::string& path) {
    const std::string header = scene.header_comment.empty() ? "# Caustica scene (saved)\n" : scene.header_comment;
    return header + SceneToYaml(scene, fs::absolute(path).parent_path().string());
}

}  // namespace caustica
