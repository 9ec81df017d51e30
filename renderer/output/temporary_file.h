// Temporary files of output still being written, and what an interrupt does with them.
//
// Every file the program writes is first a temporary file with a unique name beside its final
// name, renamed into place once complete (output_file.h). The live temporary files are kept in a
// lock-free registry that a SIGINT, SIGTERM or SIGHUP handler reads: it removes them and exits
// with 128 + the signal (130, 143, 129), so that ctrl+c, a kill or a closed terminal never leaves
// a half-written file behind.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>

namespace caustica {

// Installs the SIGINT, SIGTERM and SIGHUP handlers (once, at the start of the program).
void InstallInterruptHandlers();

class TemporaryFile {
public:
    TemporaryFile() = default;
    TemporaryFile(const TemporaryFile&) = delete;
    TemporaryFile& operator=(const TemporaryFile&) = delete;
    // Removes the file unless Commit moved it to its final name.
    ~TemporaryFile();

    // Creates a new, empty file in 'folder' named ".<name>.XXXXXX" (the name cut short where the
    // whole would be too long), never an existing one, and registers it for removal on an
    // interrupt. Returns 0 or the errno of the failure.
    int Create(const std::string& folder, const std::string& name);
    // Writes all of 'bytes'. Returns 0 or an errno (ENOSPC on a full disk).
    int Write(const char* bytes, std::size_t size);
    // Gives the file 'mode', flushes it to the disk, closes it and renames it to final_path (in
    // the same folder). Returns 0 or an errno; the temporary file is gone either way.
    int Commit(const std::string& final_path, mode_t mode);

    const std::string& path() const { return path_; }

private:
    void Remove();

    std::string path_;
    int fd_ = -1;
    int slot_ = -1;  // in the registry
};

}  // namespace caustica
