// A tiny JSON writer for benchmark results: nested objects and arrays of numbers, strings and
// booleans, written in insertion order with two-space indentation.
//
//   JsonWriter json;
//   json.BeginObject();
//   json.Key("device").String("cuda");
//   json.Key("build_ms").BeginObject().Key("median").Number(2.5).EndObject();
//   json.EndObject();
//   WriteOutputFile(checked_target, json.Text());   (output_file.h)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace caustica {

class JsonWriter {
public:
    JsonWriter& BeginObject();
    JsonWriter& EndObject();
    JsonWriter& BeginArray();
    JsonWriter& EndArray();
    // Inside an object, the name of the next value.
    JsonWriter& Key(const std::string& name);
    // Non-finite numbers are written as null (JSON has no NaN or infinity).
    JsonWriter& Number(double value);
    JsonWriter& Integer(int64_t value);
    JsonWriter& String(const std::string& value);
    JsonWriter& Bool(bool value);
    JsonWriter& Null();

    // The document; every object and array must be closed.
    std::string Text() const;

private:
    void BeforeValue();
    void Close(char bracket);

    struct Level {
        char bracket;  // '{' or '['
        int count = 0;
        bool key_pending = false;
    };
    std::string out_;
    std::vector<Level> stack_;
};

}  // namespace caustica
