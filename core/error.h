// Error types and internal checks.
//
// InputError: the user's input is wrong (a scene file, a mesh, a command-line option). Exit code 2.
// RuntimeError: the input was fine but running failed (GPU out of memory, a file that cannot be
// written). Exit code 1. Internal checks (CA_CHECK) throw RuntimeError naming the expression,
// the values and file:line, since they mean a bug rather than bad input.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace caustica {

class InputError : public std::runtime_error {
public:
    explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

class RuntimeError : public std::runtime_error {
public:
    explicit RuntimeError(const std::string& message) : std::runtime_error(message) {}
};

// Joins any streamable values into one string: Concat("read ", n, " bytes").
template <class... Args>
std::string Concat(Args&&... args) {
    std::ostringstream out;
    (out << ... << std::forward<Args>(args));
    return out.str();
}

// A place in an input file, for compiler-style messages: "file:line:column: error: ...".
// Lines and columns count from 1; 0 means unknown and is left out of the message.
struct SourceLocation {
    std::string file;
    int line = 0;
    int column = 0;
};

std::string FormatLocation(const SourceLocation& where);

[[noreturn]] void ThrowInputError(const SourceLocation& where, const std::string& what);

[[noreturn]] void FailCheck(const char* expression, const std::string& values, const char* file,
                            int line);

}  // namespace caustica

#define CA_CHECK(condition)                                                          \
    do {                                                                             \
        if (!(condition)) ::caustica::FailCheck(#condition, std::string(), __FILE__, __LINE__); \
    } while (0)

#define CA_CHECK_MSG(condition, ...)                                                 \
    do {                                                                             \
        if (!(condition))                                                            \
            ::caustica::FailCheck(#condition, ::caustica::Concat(__VA_ARGS__), __FILE__, __LINE__); \
    } while (0)

#define CA_CHECK_OP(a, op, b)                                                                     \
    do {                                                                                          \
        const auto& ca_a_ = (a);                                                                  \
        const auto& ca_b_ = (b);                                                                  \
        if (!(ca_a_ op ca_b_))                                                                    \
            ::caustica::FailCheck(#a " " #op " " #b, ::caustica::Concat(ca_a_, " vs ", ca_b_), __FILE__, \
                                  __LINE__);                                                      \
    } while (0)
#define CA_CHECK_EQ(a, b) CA_CHECK_OP(a, ==, b)
#define CA_CHECK_LE(a, b) CA_CHECK_OP(a, <=, b)
#define CA_CHECK_LT(a, b) CA_CHECK_OP(a, <, b)
