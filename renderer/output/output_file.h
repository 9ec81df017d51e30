// Files out: every file the program writes (images, JSON, saved scenes, screenshots) is checked
// here before the work that makes it, and written here.
//
// The rules:
// - An empty name is an error.
// - A symbolic link is followed (up to 40 links; a loop is an error) and its target written.
// - A regular file or a new name is written through a unique temporary file in the same folder
//   (temporary_file.h) and renamed into place, so that a failure or an interrupt never leaves
//   half a file under the final name, and nothing else in the folder is touched.
// - Anything else (a folder, a device, a FIFO, a socket) is refused, and so is a regular file
//   without write permission (or without any write bit, which protects it even from root).
// - Missing folders are created when the target is checked, and the folder must let a file be
//   created in it; a name longer than its file system allows is an error.
// Problems found by the check are InputError (exit 2), before any work; problems while writing
// (a full disk) are RuntimeError (exit 1).
#pragma once

#include <set>
#include <string>

namespace caustica {

struct OutputFile {
    std::string label;   // the target in messages: "-o out/f_0001.png", or the path alone
    std::string given;   // the path as given
    std::string path;    // where it is written: absolute, symbolic links followed
    bool exists = false;  // a regular file is there now
};

// What a check does with a regular file that is already there.
enum class IfExists {
    replace,  // it will be written over: it must be writable
    keep,     // it will be left alone (render --resume)
};

// Checks the targets of one command; each folder is created and tried once.
class OutputChecker {
public:
    // option: how the user named the targets ("-o", "--json"; "" for none).
    explicit OutputChecker(std::string option);
    OutputFile Check(const std::string& given, IfExists if_exists = IfExists::replace);

private:
    void CheckFolder(const OutputFile& file, const std::string& folder, const std::string& name);

    std::string option_;
    std::set<std::string> folders_;
};

// One target: OutputChecker(option).Check(given).
OutputFile CheckOutputFile(const std::string& option, const std::string& given);

// Writes 'bytes' to a checked target. A regular file that is there keeps its permissions; a new
// one gets the usual ones (0666 less the umask).
void WriteOutputFile(const OutputFile& file, const std::string& bytes);

}  // namespace caustica
