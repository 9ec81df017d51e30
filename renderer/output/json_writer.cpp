#include "renderer/output/json_writer.h"

#include <cmath>
#include <cstdio>

#include "core/error.h"

namespace caustica {
namespace {

std::string Escape(const std::string& s) {
    std::string out = "\"";
    for (const char c : s) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(static_cast<unsigned char>(c)));
                    out += buf;
                } else {
                    out += c;
                }
        }
    }
    return out + "\"";
}

}  // namespace

void JsonWriter::BeforeValue() {
    if (stack_.empty()) {
        CA_CHECK_MSG(out_.empty(), "JSON: a second top-level value");
        return;
    }
    Level& level = stack_.back();
    if (level.bracket == '{') {
        CA_CHECK_MSG(level.key_pending, "JSON: a value inside an object needs a Key first");
        level.key_pending = false;
        return;
    }
    if (level.count++ > 0) out_ += ",";
    out_ += "\n" + std::string(2 * stack_.size(), ' ');
}

JsonWriter& JsonWriter::Key(const std::string& name) {
    CA_CHECK_MSG(!stack_.empty() && stack_.back().bracket == '{' && !stack_.back().key_pending,
                 "JSON: Key outside an object or twice in a row");
    Level& level = stack_.back();
    if (level.count++ > 0) out_ += ",";
    out_ += "\n" + std::string(2 * stack_.size(), ' ') + Escape(name) + ": ";
    level.key_pending = true;
    return *this;
}

JsonWriter& JsonWriter::BeginObject() {
    BeforeValue();
    out_ += "{";
    stack_.push_back({'{'});
    return *this;
}

JsonWriter& JsonWriter::BeginArray() {
    BeforeValue();
    out_ += "[";
    stack_.push_back({'['});
    return *this;
}

void JsonWriter::Close(char bracket) {
    CA_CHECK_MSG(!stack_.empty() && stack_.back().bracket == bracket && !stack_.back().key_pending,
                 "JSON: unbalanced close");
    const bool had_items = stack_.back().count > 0;
    stack_.pop_back();
    if (had_items) out_ += "\n" + std::string(2 * stack_.size(), ' ');
    out_ += bracket == '{' ? "}" : "]";
}

JsonWriter& JsonWriter::EndObject() {
    Close('{');
    return *this;
}

JsonWriter& JsonWriter::EndArray() {
    Close('[');
    return *this;
}

JsonWriter& JsonWriter::Number(double value) {
    if (!std::isfinite(value)) return Null();
    BeforeValue();
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.12g", value);
    out_ += buf;
    return *this;
}

JsonWriter& JsonWriter::Integer(int64_t value) {
    BeforeValue();
    out_ += std::to_string(value);
    return *this;
}

JsonWriter& JsonWriter::String(const std::string& value) {
    BeforeValue();
    out_ += Escape(value);
    return *this;
}

JsonWriter& JsonWriter::Bool(bool value) {
    BeforeValue();
    out_ += value ? "true" : "false";
    return *this;
}

JsonWriter& JsonWriter::Null() {
    BeforeValue();
    out_ += "null";
    return *this;
}

std::string JsonWriter::Text() const {
    CA_CHECK_MSG(stack_.empty() && !out_.empty(), "JSON: document not complete");
    return out_ + "\n";
}

}  // namespace caustica
