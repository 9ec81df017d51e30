// Located reading of YAML values for the scene loader: every failure is an InputError
// "file:line:col: error: what was expected". Maps reject unknown and duplicate keys.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "core/error.h"
#include "core/vec.h"

namespace caustica {

// The nearest of 'known' to 'word' by edit distance, or "" when none is close.
std::string NearestWord(const std::string& word, const std::vector<std::string>& known);

// "unknown material type "glas" (did you mean "glass"?)" or "... (known: a, b, c)".
std::string UnknownWordMessage(const std::string& what, const std::string& word, const std::vector<std::string>& known);

class YamlReader {
public:
    // 'bytes': the size of the YAML text. Reading more values than a file of that size can hold
    // means YAML aliases repeat parts of it, which could multiply the work without bound (as in
    // "billion laughs"); that is refused.
    YamlReader(std::string file, std::size_t bytes) : file_(std::move(file)), budget_(4 * bytes + 10000) {}
    const std::string& File() const { return file_; }

    // Counts one value read at 'node'; fails when the file's budget is used up.
    void Charge(const YAML::Node& node) const;

    SourceLocation Where(const YAML::Node& node) const;
    [[noreturn]] void Fail(const YAML::Node& node, const std::string& what) const;

    // Scalars. 'what' names the value in messages ("camera fov"). Numbers must be finite and in
    // [lo, hi].
    double Number(const YAML::Node& node, const std::string& what, double lo, double hi) const;
    int Integer(const YAML::Node& node, const std::string& what, int lo, int hi) const;
    bool Boolean(const YAML::Node& node, const std::string& what) const;
    std::string String(const YAML::Node& node, const std::string& what) const;
    // A list of exactly n numbers, each finite and in [lo, hi].
    std::vector<double> Numbers(const YAML::Node& node, const std::string& what, int n, double lo, double hi) const;
    Vec3 Vector(const YAML::Node& node, const std::string& what, double limit) const;  // |each| <= limit
    Rgb Color(const YAML::Node& node, const std::string& what, double max) const;      // each in [0, max]
    // A list node (checked), with at most max_items items.
    YAML::Node List(const YAML::Node& node, const std::string& what, std::size_t max_items) const;

private:
    std::string file_;
    mutable std::size_t budget_;
};

// A YAML map whose keys are checked at construction: each must be one of 'known' and appear once.
class MapReader {
public:
    MapReader(const YamlReader& reader, const YAML::Node& node, const std::string& what,
              const std::vector<std::string>& known);

    bool Has(const std::string& key) const;
    YAML::Node Get(const std::string& key) const;  // the value; check Has first
    const YAML::Node& Node() const { return node_; }
    const YamlReader& Reader() const { return reader_; }
    const std::string& What() const { return what_; }

    double Number(const std::string& key, double fallback, double lo, double hi) const;
    int Integer(const std::string& key, int fallback, int lo, int hi) const;
    bool Boolean(const std::string& key, bool fallback) const;
    std::string String(const std::string& key, const std::string& fallback) const;
    Vec3 Vector(const std::string& key, Vec3 fallback, double limit) const;
    Rgb Color(const std::string& key, Rgb fallback, double max) const;

private:
    std::string Name(const std::string& key) const { return what_ + " " + key; }
    const YamlReader& reader_;
    YAML::Node node_;
    std::string what_;
    std::vector<std::pair<std::string, YAML::Node>> entries_;
};

}  // namespace caustica
