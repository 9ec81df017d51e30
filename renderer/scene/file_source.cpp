#include "renderer/scene/file_source.h"

#include <filesystem>
#include <fstream>

#include "core/error.h"

namespace caustica {

FileSource DiskFileSource() {
    return [](const std::string& path, std::size_t max_bytes) {
        namespace fs = std::filesystem;
        FileRead result;
        std::error_code ec;
        const fs::file_status status = fs::status(path, ec);
        if (ec || !fs::exists(status)) return result;
        // Devices and pipes (/dev/zero, a FIFO) could be endless: only regular files are read.
        if (!fs::is_regular_file(status)) {
            result.status = FileRead::Status::not_regular;
            return result;
        }
        const std::uintmax_t size = fs::file_size(path, ec);
        if (ec) {
            result.status = FileRead::Status::unreadable;
            return result;
        }
        if (size > max_bytes) {
            result.status = FileRead::Status::too_large;
            return result;
        }
        std::ifstream in(path, std::ios::binary);
        result.bytes.resize(static_cast<std::size_t>(size));
        if (!in || !in.read(result.bytes.data(), static_cast<std::streamsize>(size))) {
            result.status = FileRead::Status::unreadable;
            result.bytes.clear();
            return result;
        }
        result.status = FileRead::Status::ok;
        return result;
    };
}

std::string Describe(FileRead::Status status, std::size_t max_bytes) {
    switch (status) {
    case FileRead::Status::ok: return "read";
    case FileRead::Status::missing: return "not found";
    case FileRead::Status::not_regular: return "not a regular file";
    case FileRead::Status::too_large: return Concat("larger than the limit of ", max_bytes >> 20, " MiB");
    case FileRead::Status::unreadable: return "could not be read";
    }
    return "?";
}

}  // namespace caustica
