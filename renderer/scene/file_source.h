// Where the scene loader gets the files a scene refers to (meshes, material libraries, images).
// The disk source reads regular files with a size limit; the fuzzer serves files from memory so
// that it never touches the filesystem.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace caustica {

struct FileRead {
    enum class Status { ok, missing, not_regular, too_large, unreadable };
    Status status = Status::missing;
    std::string bytes;
    std::string error;  // the system's reason, where one is known ("Too many levels of symbolic links")
};

using FileSource = std::function<FileRead(const std::string& path, std::size_t max_bytes)>;

FileSource DiskFileSource();

// "not found", "not a regular file", "could not be read (Permission denied)", ... for messages.
std::string Describe(const FileRead& read, std::size_t max_bytes);

}  // namespace caustica
