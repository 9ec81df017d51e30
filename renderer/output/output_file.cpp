#include "renderer/output/output_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/error.h"
#include "renderer/output/temporary_file.h"

namespace caustica {
namespace {

namespace fs = std::filesystem;

constexpr int kMaxLinks = 40;  // as the kernel follows at most 40 in one path

// "a folder", "a FIFO (named pipe)", ... for what is not a regular file.
std::string KindOf(mode_t mode) {
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISLNK(mode)) return "a symbolic link";
    return "not a regular file";
}

// What a new file's permissions are: 0666 less the umask, as the shell would create it. The
// umask can only be read by setting it; this happens once, before any thread writes files.
mode_t NewFileMode() {
    static const mode_t mask = [] {
        const mode_t m = umask(022);
        umask(m);
        return m;
    }();
    return 0666 & ~mask;
}

// The path a symbolic link points to, relative to the link's folder when not absolute.
std::string LinkTarget(const std::string& link) {
    std::string target(PATH_MAX, '\0');
    const ssize_t size = readlink(link.c_str(), target.data(), target.size());
    if (size < 0 || size_t(size) >= target.size()) return "";
    target.resize(size_t(size));
    if (target.empty() || target[0] == '/') return target;
    return (fs::path(link).parent_path() / target).string();
}

// The length of the longest file or folder name in a path.
size_t LongestName(const std::string& path) {
    size_t longest = 0;
    for (const fs::path& part : fs::path(path)) longest = std::max(longest, part.string().size());
    return longest;
}

}  // namespace

OutputChecker::OutputChecker(std::string option) : option_(std::move(option)) {}

OutputFile OutputChecker::Check(const std::string& given, IfExists if_exists) {
    if (given.empty())
        throw InputError(
            Concat(option_.empty() ? std::string("output") : option_, ": expected a file name, got an empty one"));
    OutputFile file;
    file.given = given;
    file.label = option_.empty() ? given : option_ + " " + given;
    const auto fail = [&](const std::string& what) { throw InputError(Concat(file.label, ": ", what)); };

    std::error_code error;
    std::string path = fs::absolute(given, error).string();
    if (error) fail(Concat("cannot make the path absolute: ", error.message()));
    struct stat st {};
    for (int links = 0;; ++links) {
        if (path.size() >= PATH_MAX)
            fail(Concat("the path is longer than the system allows (", PATH_MAX - 1, " bytes)"));
        if (lstat(path.c_str(), &st) != 0) {
            const int e = errno;
            if (e == ENOENT) break;  // a new name, or a missing folder (created below)
            if (e == ENOTDIR) fail("a part of its folder path is a file, not a folder");
            if (e == ENAMETOOLONG)
                fail(Concat("a name in the path is longer than its file system allows (the longest is ",
                            LongestName(path), " bytes)"));
            fail(Concat("cannot be inspected: ", std::strerror(e)));
        }
        if (!S_ISLNK(st.st_mode)) {
            file.exists = true;
            break;
        }
        if (links == kMaxLinks) fail("too many levels of symbolic links (a loop?)");
        path = LinkTarget(path);
        if (path.empty()) fail("a symbolic link that cannot be read");
    }
    file.path = path;
    const fs::path target(path);
    const std::string name = target.filename().string();
    if (name.empty() || name == "." || name == "..") fail("names a folder, not a file");
    if (file.exists) {
        if (!S_ISREG(st.st_mode)) fail(Concat("is ", KindOf(st.st_mode), "; only regular files are written"));
        if (if_exists == IfExists::replace && ((st.st_mode & 0222) == 0 || access(path.c_str(), W_OK) != 0)) {
            char mode[8];
            std::snprintf(mode, sizeof(mode), "%04o", unsigned(st.st_mode & 07777));
            fail(Concat("the file is write-protected (mode ", mode, "); it is not replaced"));
        }
    }
    CheckFolder(file, target.parent_path().string(), name);
    return file;
}

void OutputChecker::CheckFolder(const OutputFile& file, const std::string& folder, const std::string& name) {
    const auto fail = [&](const std::string& what) { throw InputError(Concat(file.label, ": ", what)); };
    if (folders_.count(folder) == 0) {
        std::error_code error;
        fs::create_directories(folder, error);
        if (error) fail(Concat("cannot create the folder ", folder, ": ", error.message()));
        // The one sure test that a file can be made there (permissions, a read-only file system).
        TemporaryFile probe;
        if (const int e = probe.Create(folder, name))
            fail(Concat("cannot create a file in the folder ", folder, ": ", std::strerror(e)));
        folders_.insert(folder);
    }
    const long name_max = pathconf(folder.c_str(), _PC_NAME_MAX);
    if (name_max > 0 && long(name.size()) > name_max)
        fail(Concat("the file name is ", name.size(), " bytes long; its folder's file system allows at most ",
                    name_max));
}

OutputFile CheckOutputFile(const std::string& option, const std::string& given) {
    return OutputChecker(option).Check(given);
}

void WriteOutputFile(const OutputFile& file, const std::string& bytes) {
    const auto fail = [&](const std::string& what, int error) {
        throw RuntimeError(Concat(file.label, ": ", what, std::strerror(error)));
    };
    mode_t mode = NewFileMode();
    struct stat st {};
    if (lstat(file.path.c_str(), &st) == 0) {
        // Checked before the work; something else may have been put there since.
        if (!S_ISREG(st.st_mode))
            throw RuntimeError(Concat(file.label, ": is now ", KindOf(st.st_mode), "; only regular files are written"));
        mode = st.st_mode & 07777;
    }
    const fs::path target(file.path);
    TemporaryFile temporary;
    if (const int e = temporary.Create(target.parent_path().string(), target.filename().string()))
        fail("cannot create a temporary file beside it: ", e);
    if (const int e = temporary.Write(bytes.data(), bytes.size())) fail("write failed: ", e);
    if (const int e = temporary.Commit(file.path, mode)) fail("cannot finish the file: ", e);
}

}  // namespace caustica
