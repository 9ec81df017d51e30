#include "renderer/cli/cli_args.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "core/error.h"

namespace caustica {

ArgParser::ArgParser(std::string command, std::string summary)
    : command_(std::move(command)), summary_(std::move(summary)) {}

void ArgParser::Add(Entry entry) {
    for (const Entry& e : entries_) CA_CHECK_MSG(e.name != entry.name, "option declared twice: ", entry.name);
    entries_.push_back(std::move(entry));
}

void ArgParser::ShowDefault(const std::string& name, const std::string& text) {
    for (Entry& e : entries_)
        if (e.name == name && !e.positional && !e.is_flag) {
            e.default_text = text;
            return;
        }
    CA_CHECK_MSG(false, "ShowDefault for an option not declared: ", name);
}

void ArgParser::Option(const std::string& name, const std::string& metavar, const std::string& help,
                       std::string* target) {
    Add({name, metavar, help, *target, false, false, false, [target](const std::string& v) { *target = v; }});
}

void ArgParser::Option(const std::string& name, const std::string& metavar, const std::string& help, int* target) {
    Add({name, metavar, help, std::to_string(*target), false, false, false, [this, name, target](const std::string& v) {
             char* end = nullptr;
             errno = 0;
             const long long value = std::strtoll(v.c_str(), &end, 10);
             if (v.empty() || *end != '\0' || errno == ERANGE || value < -2147483647LL || value > 2147483647LL)
                 throw InputError(Concat(command_, ": ", name, " expects a whole number, got \"", v, "\""));
             *target = int(value);
         }});
}

void ArgParser::Option(const std::string& name, const std::string& metavar, const std::string& help,
                       double* target) {
    std::ostringstream def;
    def << *target;
    Add({name, metavar, help, def.str(), false, false, false, [this, name, target](const std::string& v) {
             char* end = nullptr;
             const double value = std::strtod(v.c_str(), &end);
             if (v.empty() || *end != '\0' || !std::isfinite(value))
                 throw InputError(Concat(command_, ": ", name, " expects a finite number, got \"", v, "\""));
             *target = value;
         }});
}

void ArgParser::Choice(const std::string& name, const std::vector<std::string>& choices, const std::string& help,
                       std::string* target) {
    std::string metavar;
    for (const std::string& c : choices) metavar += (metavar.empty() ? "" : "|") + c;
    Add({name, metavar, help, *target, false, false, false, [this, name, choices, metavar, target](const std::string& v) {
             if (std::find(choices.begin(), choices.end(), v) == choices.end())
                 throw InputError(Concat(command_, ": ", name, " expects one of ", metavar, ", got \"", v, "\""));
             *target = v;
         }});
}

void ArgParser::Flag(const std::string& name, const std::string& help, bool* target) {
    Add({name, "", help, "", false, false, true, [target](const std::string&) { *target = true; }});
}

void ArgParser::Positional(const std::string& name, const std::string& help, std::string* target, bool optional) {
    Add({name, "", help, *target, true, optional, false, [target](const std::string& v) { *target = v; }});
}

void ArgParser::Rest(const std::string& name, const std::string& help, std::vector<std::string>* target) {
    Add({name, "", help, "", true, true, false, [target](const std::string& v) { target->push_back(v); }, true});
}

bool ArgParser::Given(const std::string& name) const {
    return std::find(given_.begin(), given_.end(), name) != given_.end();
}

bool ArgParser::Parse(const std::vector<std::string>& args) {
    size_t next_positional = 0;
    std::vector<const Entry*> positionals;
    for (const Entry& e : entries_)
        if (e.positional) positionals.push_back(&e);

    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (arg == "--help" || arg == "-h") {
            std::fputs(Help().c_str(), stdout);
            return false;
        }
        if (arg.size() > 1 && arg[0] == '-' && !(arg.size() > 1 && (std::isdigit(arg[1]) || arg[1] == '.'))) {
            std::string name = arg, value;
            const size_t eq = arg.find('=');
            const bool inline_value = eq != std::string::npos;
            if (inline_value) {
                name = arg.substr(0, eq);
                value = arg.substr(eq + 1);
            }
            auto it = std::find_if(entries_.begin(), entries_.end(),
                                   [&](const Entry& e) { return !e.positional && e.name == name; });
            if (it == entries_.end())
                throw InputError(Concat(command_, ": unknown option ", name, " (see ", command_, " --help)"));
            if (!it->is_flag && !inline_value) {
                if (i + 1 >= args.size())
                    throw InputError(Concat(command_, ": ", name, " expects a value (", it->metavar, ")"));
                value = args[++i];
                // "-o --help" has lost its value; a value that starts with -- is given as -o=--x.
                if (value.rfind("--", 0) == 0)
                    throw InputError(Concat(command_, ": ", name, " expects a value (", it->metavar,
                                            "), got the option ", value, " (write ", name, "=", value,
                                            " if that is the value)"));
            } else if (it->is_flag && inline_value) {
                throw InputError(Concat(command_, ": ", name, " takes no value"));
            }
            if (!it->is_flag && value.empty())
                throw InputError(
                    Concat(command_, ": ", name, " expects a value (", it->metavar, "), got an empty one"));
            it->set(value);
            given_.push_back(name);
            continue;
        }
        if (next_positional >= positionals.size())
            throw InputError(Concat(command_, ": unexpected argument \"", arg, "\" (see ", command_, " --help)"));
        // An unset shell variable gives an empty word: it must not mean the default.
        if (arg.empty())
            throw InputError(Concat(command_, ": ", positionals[next_positional]->name, " is empty",
                                    positionals[next_positional]->optional ? " (leave it out for the default)" : ""));
        positionals[next_positional]->set(arg);
        given_.push_back(positionals[next_positional]->name);
        if (!positionals[next_positional]->repeated) ++next_positional;
    }
    for (size_t p = next_positional; p < positionals.size(); ++p)
        if (!positionals[p]->optional)
            throw InputError(Concat(command_, ": missing argument ", positionals[p]->name, " (see ", command_, " --help)"));
    return true;
}

std::string ArgParser::Help() const {
    std::ostringstream out;
    out << "usage: " << command_;
    for (const Entry& e : entries_)
        if (e.positional) out << (e.optional ? " [" : " ") << e.name << (e.repeated ? "..." : "") << (e.optional ? "]" : "");
    out << " [options]\n\n" << summary_ << "\n";
    bool any_positional = false;
    for (const Entry& e : entries_) any_positional |= e.positional;
    if (any_positional) {
        out << "\narguments:\n";
        for (const Entry& e : entries_)
            if (e.positional) out << "  " << e.name << "\n      " << e.help << "\n";
    }
    out << "\noptions:\n";
    for (const Entry& e : entries_) {
        if (e.positional) continue;
        out << "  " << e.name << (e.metavar.empty() ? "" : " " + e.metavar) << "\n      " << e.help;
        if (!e.is_flag && !e.default_text.empty()) out << " (default: " << e.default_text << ")";
        out << "\n";
    }
    out << "  --help\n      show this help and exit\n";
    return out.str();
}

}  // namespace caustica
