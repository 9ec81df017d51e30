#include "renderer/scene/file_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "core/error.h"

namespace caustica {
namespace {

FileRead Failed(FileRead::Status status, int error = 0) {
    FileRead result;
    result.status = status;
    if (error != 0) result.error = std::strerror(error);
    return result;
}

}  // namespace

FileSource DiskFileSource() {
    return [](const std::string& path, std::size_t max_bytes) {
        struct stat st {};
        if (stat(path.c_str(), &st) != 0) {
            // A symbolic link loop, a folder without permission, ...: not a missing file.
            return errno == ENOENT || errno == ENOTDIR ? Failed(FileRead::Status::missing)
                                                       : Failed(FileRead::Status::unreadable, errno);
        }
        // Devices and pipes (/dev/zero, a FIFO) could be endless: only regular files are read.
        if (!S_ISREG(st.st_mode)) return Failed(FileRead::Status::not_regular);
        if (std::uintmax_t(st.st_size) > max_bytes) return Failed(FileRead::Status::too_large);
        const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) return Failed(FileRead::Status::unreadable, errno);
        // Read to the end, not to the size the file system reports: files in /proc report 0.
        FileRead result;
        char buffer[1 << 16];
        for (;;) {
            const ssize_t got = read(fd, buffer, sizeof(buffer));
            if (got < 0 && errno == EINTR) continue;
            if (got < 0) {
                result = Failed(FileRead::Status::unreadable, errno);
                break;
            }
            if (got == 0) {
                result.status = FileRead::Status::ok;
                break;
            }
            if (result.bytes.size() + std::size_t(got) > max_bytes) {
                result = Failed(FileRead::Status::too_large);
                break;
            }
            result.bytes.append(buffer, std::size_t(got));
        }
        close(fd);
        return result;
    };
}

std::string Describe(const FileRead& read, std::size_t max_bytes) {
    switch (read.status) {
    case FileRead::Status::ok: return "read";
    case FileRead::Status::missing: return "not found";
    case FileRead::Status::not_regular: return "not a regular file";
    case FileRead::Status::too_large: return Concat("larger than the limit of ", max_bytes >> 20, " MiB");
    case FileRead::Status::unreadable:
        return read.error.empty() ? "could not be read" : "could not be read (" + read.error + ")";
    }
    return "?";
}

}  // namespace caustica
