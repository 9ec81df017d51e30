#include "renderer/scene/yaml_reader.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>

namespace caustica {

std::string NearestWord(const std::string& word, const std::vector<std::string>& known) {
    if (word.size() > 64) return "";
    std::string best;
    std::size_t best_distance = std::max<std::size_t>(2, word.size() / 3) + 1;
    for (const std::string& k : known) {
        // Levenshtein distance, one row at a time.
        std::vector<std::size_t> row(k.size() + 1);
        for (std::size_t j = 0; j <= k.size(); ++j) row[j] = j;
        for (std::size_t i = 1; i <= word.size(); ++i) {
            std::size_t diagonal = row[0];
            row[0] = i;
            for (std::size_t j = 1; j <= k.size(); ++j) {
                const std::size_t above = row[j];
                row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (word[i - 1] == k[j - 1] ? 0 : 1)});
                diagonal = above;
            }
        }
        if (row[k.size()] < best_distance) {
            best_distance = row[k.size()];
            best = k;
        }
    }
    return best;
}

std::string UnknownWordMessage(const std::string& what, const std::string& word, const std::vector<std::string>& known) {
    const std::string shown = word.size() > 64 ? word.substr(0, 64) + "..." : word;
    const std::string nearest = NearestWord(word, known);
    if (!nearest.empty()) return Concat("unknown ", what, " \"", shown, "\" (did you mean \"", nearest, "\"?)");
    std::string list;
    for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
    return Concat("unknown ", what, " \"", shown, "\" (known: ", list, ")");
}

SourceLocation YamlReader::Where(const YAML::Node& node) const {
    SourceLocation where{file_, 0, 0};
    if (node.IsDefined()) {
        const YAML::Mark mark = node.Mark();
        if (!mark.is_null()) {
            where.line = mark.line + 1;
            where.column = mark.column + 1;
        }
    }
    return where;
}

void YamlReader::Charge(const YAML::Node& node) const {
    if (budget_ == 0) Fail(node, "the scene repeats itself too much through YAML aliases (*name)");
    --budget_;
}

void YamlReader::Fail(const YAML::Node& node, const std::string& what) const { ThrowInputError(Where(node), what); }

namespace {

std::string Shown(const YAML::Node& node) {
    if (node.IsNull()) return "nothing";
    if (node.IsSequence()) return "a list";
    if (node.IsMap()) return "a map";
    const std::string& s = node.Scalar();
    return "\"" + (s.size() > 40 ? s.substr(0, 40) + "..." : s) + "\"";
}

// A number or a truth value is a plain scalar (40) or one tagged as what it is (!!int 40): a
// quoted "40" or a !!str 40 is text, whatever it looks like.
void CheckPlain(const YamlReader& reader, const YAML::Node& node, const char* expected, const std::string& what,
                std::initializer_list<const char*> tags) {
    static const std::string kCore = "tag:yaml.org,2002:";  // what !! stands for
    const std::string& tag = node.Tag();
    if (tag == "?") return;
    for (const char* allowed : tags)
        if (tag == kCore + allowed) return;
    if (tag == "!")
        reader.Fail(node, Concat("expected ", expected, " for ", what, ", got the quoted text ", Shown(node)));
    const std::string shown = tag.rfind(kCore, 0) == 0 ? "!!" + tag.substr(kCore.size()) : tag;
    reader.Fail(node, Concat("expected ", expected, " for ", what, ", got ", Shown(node), " tagged ", shown));
}

}  // namespace

double YamlReader::Number(const YAML::Node& node, const std::string& what, double lo, double hi) const {
    Charge(node);
    if (!node.IsScalar()) Fail(node, Concat("expected a number for ", what, ", got ", Shown(node)));
    CheckPlain(*this, node, "a number", what, {"int", "float"});
    const std::string& s = node.Scalar();
    errno = 0;
    char* end = nullptr;
    const double value = std::strtod(s.c_str(), &end);
    std::string lower;
    for (char c : s.substr(0, 8)) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const bool special = lower.find("inf") != std::string::npos || lower.find("nan") != std::string::npos;
    if (!special && (s.empty() || end != s.c_str() + s.size() || std::isspace(static_cast<unsigned char>(s[0]))))
        Fail(node, Concat("expected a number for ", what, ", got ", Shown(node)));
    if (special || !std::isfinite(value) || errno == ERANGE)
        Fail(node, Concat("expected a finite number for ", what, ", got ", Shown(node)));
    if (value < lo || value > hi) Fail(node, Concat("expected ", what, " in [", lo, ", ", hi, "], got ", s));
    return value;
}

int YamlReader::Integer(const YAML::Node& node, const std::string& what, int lo, int hi) const {
    Charge(node);
    if (!node.IsScalar()) Fail(node, Concat("expected a whole number for ", what, ", got ", Shown(node)));
    CheckPlain(*this, node, "a whole number", what, {"int"});
    const std::string& s = node.Scalar();
    errno = 0;
    char* end = nullptr;
    const long long value = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || end != s.c_str() + s.size() || std::isspace(static_cast<unsigned char>(s[0])))
        Fail(node, Concat("expected a whole number for ", what, ", got ", Shown(node)));
    if (errno == ERANGE || value < lo || value > hi)
        Fail(node, Concat("expected ", what, " in [", lo, ", ", hi, "], got ", s));
    return static_cast<int>(value);
}

bool YamlReader::Boolean(const YAML::Node& node, const std::string& what) const {
    Charge(node);
    if (node.IsScalar()) {
        CheckPlain(*this, node, "true or false", what, {"bool"});
        const std::string& s = node.Scalar();
        if (s == "true" || s == "yes" || s == "on") return true;
        if (s == "false" || s == "no" || s == "off") return false;
    }
    Fail(node, Concat("expected true or false for ", what, ", got ", Shown(node)));
}

namespace {

// Well-formed UTF-8 without control characters (YAML text must be Unicode; names and paths
// written back by the scene saver must read back the same).
bool IsCleanUtf8(const std::string& s) {
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        int extra = 0;
        std::uint32_t code = c;
        if (c < 0x80) extra = 0;
        else if ((c & 0xE0) == 0xC0) { extra = 1; code = c & 0x1F; }
        else if ((c & 0xF0) == 0xE0) { extra = 2; code = c & 0x0F; }
        else if ((c & 0xF8) == 0xF0) { extra = 3; code = c & 0x07; }
        else return false;
        if (extra > 0 && i + static_cast<std::size_t>(extra) >= s.size()) return false;  // cut short
        for (int k = 1; k <= extra; ++k) {
            const auto d = static_cast<unsigned char>(s[i + k]);
            if ((d & 0xC0) != 0x80) return false;
            code = (code << 6) | (d & 0x3F);
        }
        static const std::uint32_t kMinimum[4] = {0, 0x80, 0x800, 0x10000};
        if (code < kMinimum[extra] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return false;
        if (code < 0x20 || code == 0x7F || (code >= 0x80 && code < 0xA0) || code == 0xFEFF) return false;
        i += static_cast<std::size_t>(extra) + 1;
    }
    return true;
}

}  // namespace

std::string YamlReader::String(const YAML::Node& node, const std::string& what) const {
    Charge(node);
    if (!node.IsScalar()) Fail(node, Concat("expected text for ", what, ", got ", Shown(node)));
    if (!IsCleanUtf8(node.Scalar())) Fail(node, Concat("expected text for ", what, ": it has control characters or is not UTF-8"));
    return node.Scalar();
}

YAML::Node YamlReader::List(const YAML::Node& node, const std::string& what, std::size_t max_items) const {
    Charge(node);
    if (!node.IsSequence()) Fail(node, Concat("expected a list for ", what, ", got ", Shown(node)));
    if (node.size() > max_items) Fail(node, Concat("too many items in ", what, ": ", node.size(), " (at most ", max_items, ")"));
    return node;
}

std::vector<double> YamlReader::Numbers(const YAML::Node& node, const std::string& what, int n, double lo,
                                        double hi) const {
    if (!node.IsSequence() || node.size() != static_cast<std::size_t>(n))
        Fail(node, Concat("expected a list of ", n, " numbers for ", what, ", got ", node.IsSequence() ? Concat("a list of ", node.size()) : Shown(node)));
    std::vector<double> values;
    for (std::size_t i = 0; i < node.size(); ++i) values.push_back(Number(node[i], what, lo, hi));
    return values;
}

Vec3 YamlReader::Vector(const YAML::Node& node, const std::string& what, double limit) const {
    const std::vector<double> v = Numbers(node, what + " [x, y, z]", 3, -limit, limit);
    return Vec3(static_cast<float>(v[0]), static_cast<float>(v[1]), static_cast<float>(v[2]));
}

Rgb YamlReader::Color(const YAML::Node& node, const std::string& what, double max) const {
    const std::vector<double> v = Numbers(node, what + " [r, g, b]", 3, 0.0, max);
    return Rgb(static_cast<float>(v[0]), static_cast<float>(v[1]), static_cast<float>(v[2]));
}

MapReader::MapReader(const YamlReader& reader, const YAML::Node& node, const std::string& what,
                     const std::vector<std::string>& known)
    : reader_(reader), node_(node), what_(what) {
    if (!node.IsMap()) reader.Fail(node, Concat("expected a map for ", what, ", got ", Shown(node)));
    for (auto it = node.begin(); it != node.end(); ++it) {
        const YAML::Node key = it->first;
        reader.Charge(key);
        if (!key.IsScalar()) reader.Fail(key, Concat("expected a key name in ", what, ", got ", Shown(key)));
        const std::string& name = key.Scalar();
        if (std::find(known.begin(), known.end(), name) == known.end())
            reader.Fail(key, UnknownWordMessage("key", name, known) + " in " + what);
        if (Has(name)) reader.Fail(key, Concat("duplicate key \"", name, "\" in ", what));
        if (it->second.IsNull()) reader.Fail(key, Concat("expected a value after \"", name, ":\" in ", what));
        entries_.emplace_back(name, it->second);
    }
}

bool MapReader::Has(const std::string& key) const {
    for (const auto& e : entries_)
        if (e.first == key) return true;
    return false;
}

YAML::Node MapReader::Get(const std::string& key) const {
    for (const auto& e : entries_)
        if (e.first == key) return e.second;
    return YAML::Node();
}

double MapReader::Number(const std::string& key, double fallback, double lo, double hi) const {
    return Has(key) ? reader_.Number(Get(key), Name(key), lo, hi) : fallback;
}
int MapReader::Integer(const std::string& key, int fallback, int lo, int hi) const {
    return Has(key) ? reader_.Integer(Get(key), Name(key), lo, hi) : fallback;
}
bool MapReader::Boolean(const std::string& key, bool fallback) const {
    return Has(key) ? reader_.Boolean(Get(key), Name(key)) : fallback;
}
std::string MapReader::String(const std::string& key, const std::string& fallback) const {
    return Has(key) ? reader_.String(Get(key), Name(key)) : fallback;
}
Vec3 MapReader::Vector(const std::string& key, Vec3 fallback, double limit) const {
    return Has(key) ? reader_.Vector(Get(key), Name(key), limit) : fallback;
}
Rgb MapReader::Color(const std::string& key, Rgb fallback, double max) const {
    return Has(key) ? reader_.Color(Get(key), Name(key), max) : fallback;
}

}  // namespace caustica
