#include "renderer/output/json_writer.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"

namespace caustica {
namespace {

TEST(JsonWriter, NestedObjectsArraysAndEscapes) {
    JsonWriter json;
    json.BeginObject();
    json.Key("device").String("gpu \"x\"\n");
    json.Key("build_ms").BeginObject().Key("median").Number(2.5).Key("min").Integer(-3).EndObject();
    json.Key("list").BeginArray().Number(1).Bool(true).Null().BeginObject().EndObject().EndArray();
    json.Key("nan").Number(std::nan(""));
    json.EndObject();
    EXPECT_EQ(json.Text(),
              "{\n"
              "  \"device\": \"gpu \\\"x\\\"\\n\",\n"
              "  \"build_ms\": {\n"
              "    \"median\": 2.5,\n"
              "    \"min\": -3\n"
              "  },\n"
              "  \"list\": [\n"
              "    1,\n"
              "    true,\n"
              "    null,\n"
              "    {}\n"
              "  ],\n"
              "  \"nan\": null\n"
              "}\n");
}

TEST(JsonWriter, MisuseIsAnInternalError) {
    JsonWriter json;
    json.BeginObject();
    EXPECT_THROW(json.Number(1), RuntimeError);  // no key
    EXPECT_THROW(json.Text(), RuntimeError);     // not closed
    EXPECT_THROW(json.EndArray(), RuntimeError);
}

}  // namespace
}  // namespace caustica
