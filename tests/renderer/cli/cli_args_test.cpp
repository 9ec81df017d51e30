// The argument parser's rules for values: a forgotten value is not taken from the next option,
// and an empty word never stands for a default; and the defaults its --help shows.
#include "renderer/cli/cli_args.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "tests/test_support.h"

namespace caustica {
namespace {

struct Parsed {
    std::string scene = "default", output = "none";
    int photons = 0;
};

// The InputError message of parsing 'args', or "" (then 'out' holds the values).
std::string ParseError(const std::vector<std::string>& args, Parsed* out = nullptr) {
    Parsed parsed;
    ArgParser parser("caustica test", "a test");
    parser.Positional("SCENE", "a scene", &parsed.scene, true);
    parser.Option("-o", "FILE", "output", &parsed.output);
    parser.Option("--photons", "N", "photons", &parsed.photons);
    const std::string message = testing::InputErrorOf([&] { parser.Parse(args); });
    if (out) *out = parsed;
    return message;
}

TEST(ArgParser, AValueIsNotTakenFromTheNextOption) {
    EXPECT_EQ(ParseError({"-o", "--help"}),
              "caustica test: -o expects a value (FILE), got the option --help (write -o=--help if that is the value)");
    EXPECT_EQ(ParseError({"-o", "--photons", "5"}).rfind("caustica test: -o expects a value (FILE), got the option", 0),
              0u);
    Parsed parsed;
    EXPECT_EQ(ParseError({"-o=--help", "--photons", "-3"}, &parsed), "");
    EXPECT_EQ(parsed.output, "--help");
    EXPECT_EQ(parsed.photons, -3);  // one dash: a negative number is a value
    EXPECT_EQ(ParseError({"-o", "-x.png"}, &parsed), "");
    EXPECT_EQ(parsed.output, "-x.png");
}

TEST(ArgParser, EmptyWordsAreErrors) {
    EXPECT_EQ(ParseError({""}), "caustica test: SCENE is empty (leave it out for the default)");
    EXPECT_EQ(ParseError({"-o", ""}), "caustica test: -o expects a value (FILE), got an empty one");
    EXPECT_EQ(ParseError({"-o="}), "caustica test: -o expects a value (FILE), got an empty one");
    Parsed parsed;
    EXPECT_EQ(ParseError({}, &parsed), "");
    EXPECT_EQ(parsed.scene, "default");
}

// A default worked out after parsing is shown as the caller words it, not as the target's value.
TEST(ArgParser, HelpShowsADefaultWorkedOutLater) {
    int sms = 0;
    ArgParser parser("caustica test", "a test");
    parser.Option("--sms", "N", "SMs", &sms);
    EXPECT_NE(parser.Help().find("SMs (default: 0)"), std::string::npos);
    parser.ShowDefault("--sms", "a quarter of the GPU's");
    EXPECT_NE(parser.Help().find("SMs (default: a quarter of the GPU's)"), std::string::npos);
    EXPECT_EQ(parser.Help().find("(default: 0)"), std::string::npos);
}

}  // namespace
}  // namespace caustica
