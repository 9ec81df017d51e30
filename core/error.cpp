#include "core/error.h"

namespace caustica {

std::string FormatLocation(const SourceLocation& where) {
    std::string s = where.file.empty() ? std::string("<input>") : where.file;
    if (where.line > 0) {
        s += ":" + std::to_string(where.line);
        if (where.column > 0) s += ":" + std::to_string(where.column);
    }
    return s;
}

void ThrowInputError(const SourceLocation& where, const std::string& what) {
    throw InputError(FormatLocation(where) + ": error: " + what);
}

void FailCheck(const char* expression, const std::string& values, const char* file, int line) {
    std::string message = Concat(file, ":", line, ": internal check failed: ", expression);
    if (!values.empty()) message += " (" + values + ")";
    throw RuntimeError(message);
}

}  // namespace caustica
