// A small command-line parser shared by every subcommand: options with values, flags, positional
// arguments, and a generated --help. Usage errors throw InputError (exit code 2).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace caustica {

class ArgParser {
public:
    // command: as the user types it ("caustica bench kdtree"); summary: one line on what it does.
    ArgParser(std::string command, std::string summary);

    // --name VALUE options; the target keeps its value when the option is absent (that is the
    // default shown in --help).
    void Option(const std::string& name, const std::string& metavar, const std::string& help, std::string* target);
    void Option(const std::string& name, const std::string& metavar, const std::string& help, int* target);
    void Option(const std::string& name, const std::string& metavar, const std::string& help, double* target);
    // --name VALUE where VALUE must be one of choices.
    void Choice(const std::string& name, const std::vector<std::string>& choices, const std::string& help,
                std::string* target);
    // --name without a value sets target to true.
    void Flag(const std::string& name, const std::string& help, bool* target);
    // The default that --help shows for option name (declared before), where the caller works it out
    // after parsing (from the device, say) instead of keeping the target's value.
    void ShowDefault(const std::string& name, const std::string& text);
    // A positional argument; optional ones may be left out (only at the end).
    void Positional(const std::string& name, const std::string& help, std::string* target, bool optional);
    // The positional arguments after the others, any number of them (last).
    void Rest(const std::string& name, const std::string& help, std::vector<std::string>* target);

    // Parses args (without the program and subcommand words). Returns false when --help was
    // asked for and printed; throws InputError on a usage error. An option's value is the next
    // word, or follows '=' (--name=value); the next word may not start with "--" (a forgotten
    // value), and no value or positional argument may be empty.
    bool Parse(const std::vector<std::string>& args);

    std::string Help() const;
    // Whether an option or positional was given on the command line.
    bool Given(const std::string& name) const;

private:
    struct Entry {
        std::string name, metavar, help, default_text;
        bool positional = false, optional = false, is_flag = false;
        std::function<void(const std::string&)> set;
        bool repeated = false;  // Rest: takes every positional argument left
    };
    void Add(Entry entry);

    std::string command_, summary_;
    std::vector<Entry> entries_;
    std::vector<std::string> given_;
};

}  // namespace caustica
