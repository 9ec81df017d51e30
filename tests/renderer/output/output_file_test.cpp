// Files out: what a target may be, what is written through a temporary file, and what a failure
// or an interrupt leaves behind (nothing).
#include "renderer/output/output_file.h"

#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>

#include "core/error.h"
#include "renderer/output/image.h"
#include "renderer/output/temporary_file.h"
#include "tests/test_support.h"

namespace caustica {
namespace {

namespace fs = std::filesystem;

std::string ReadBytes(const fs::path& path) { return testing::ReadFileBytes(path.string()); }

void WriteBytes(const fs::path& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

// The InputError message of checking 'given' (as -o), or "" when it is accepted.
std::string CheckError(const std::string& given, IfExists if_exists = IfExists::replace) {
    return testing::InputErrorOf([&] { OutputChecker("-o").Check(given, if_exists); });
}

class OutputFiles : public ::testing::Test {
protected:
    void SetUp() override {
        std::random_device random;
        dir = fs::temp_directory_path() / ("caustica-output-" + std::to_string(random()));
        fs::create_directories(dir);
    }
    void TearDown() override {
        std::error_code ignored;
        fs::permissions(dir, fs::perms::owner_all, fs::perm_options::add, ignored);
        fs::remove_all(dir, ignored);
    }
    // Every name in the folder (hidden ones included), sorted.
    std::vector<std::string> Entries(const fs::path& folder) const {
        std::vector<std::string> names;
        for (const auto& entry : fs::directory_iterator(folder)) names.push_back(entry.path().filename().string());
        std::sort(names.begin(), names.end());
        return names;
    }
    std::string P(const std::string& name) const { return (dir / name).string(); }
    fs::path dir;
};

TEST_F(OutputFiles, ANewFileAndItsMissingFoldersAreWrittenAndNothingElse) {
    const OutputFile file = CheckOutputFile("-o", P("a/b/c.json"));
    EXPECT_TRUE(fs::is_directory(dir / "a/b"));  // made by the check, before the work
    EXPECT_FALSE(file.exists);
    EXPECT_EQ(file.label, "-o " + P("a/b/c.json"));
    EXPECT_EQ(Entries(dir / "a/b"), std::vector<std::string>{});  // the check's trial file is gone
    WriteOutputFile(file, "{}\n");
    EXPECT_EQ(ReadBytes(dir / "a/b/c.json"), "{}\n");
    EXPECT_EQ(Entries(dir / "a/b"), std::vector<std::string>{"c.json"});
    const mode_t mask = umask(022);
    umask(mask);
    EXPECT_EQ(fs::status(dir / "a/b/c.json").permissions(), fs::perms(0666 & ~mask));
}

TEST_F(OutputFiles, AnExistingFileIsReplacedWholeAndKeepsItsPermissions) {
    WriteBytes(dir / "r.txt", "an old and longer text");
    fs::permissions(dir / "r.txt", fs::perms(0640));
    const OutputFile file = CheckOutputFile("", P("r.txt"));
    EXPECT_TRUE(file.exists);
    WriteOutputFile(file, "new");
    EXPECT_EQ(ReadBytes(dir / "r.txt"), "new");
    EXPECT_EQ(fs::status(dir / "r.txt").permissions(), fs::perms(0640));
    EXPECT_EQ(Entries(dir), std::vector<std::string>{"r.txt"});
}

TEST_F(OutputFiles, ASymbolicLinkIsFollowedAndKept) {
    fs::create_directories(dir / "real");
    WriteBytes(dir / "real/t.png", "old");
    fs::create_symlink("real/t.png", dir / "link.png");       // relative to the link's folder
    fs::create_symlink(dir / "link.png", dir / "link2.png");  // a chain
    const OutputFile file = CheckOutputFile("-o", P("link2.png"));
    EXPECT_EQ(file.path, P("real/t.png"));
    WriteOutputFile(file, "new");
    EXPECT_EQ(ReadBytes(dir / "real/t.png"), "new");
    EXPECT_TRUE(fs::is_symlink(dir / "link.png"));
    EXPECT_TRUE(fs::is_symlink(dir / "link2.png"));
    // A dangling link: its target is created.
    fs::create_symlink("made.png", dir / "dangling.png");
    WriteOutputFile(CheckOutputFile("-o", P("dangling.png")), "made");
    EXPECT_EQ(ReadBytes(dir / "made.png"), "made");
    EXPECT_TRUE(fs::is_symlink(dir / "dangling.png"));
}

TEST_F(OutputFiles, ASymbolicLinkLoopIsRefused) {
    fs::create_symlink("b", dir / "a");
    fs::create_symlink("a", dir / "b");
    EXPECT_EQ(CheckError(P("a")), "-o " + P("a") + ": too many levels of symbolic links (a loop?)");
}

TEST_F(OutputFiles, AFifoIsRefusedAndStaysAFifo) {
    ASSERT_EQ(mkfifo(P("fifo").c_str(), 0644), 0) << std::strerror(errno);
    EXPECT_EQ(CheckError(P("fifo")), "-o " + P("fifo") + ": is a FIFO (named pipe); only regular files are written");
    fs::create_symlink("fifo", dir / "to-fifo.png");
    EXPECT_NE(CheckError(P("to-fifo.png")).find("is a FIFO"), std::string::npos);
    EXPECT_TRUE(fs::is_fifo(dir / "fifo"));
    EXPECT_EQ(Entries(dir), (std::vector<std::string>{"fifo", "to-fifo.png"}));
}

TEST_F(OutputFiles, ADeviceIsRefused) {
    // The system's own /dev/null: refused, so running as root cannot replace it.
    EXPECT_EQ(CheckError("/dev/null"), "-o /dev/null: is a device; only regular files are written");
    EXPECT_TRUE(fs::is_character_file("/dev/null"));
    // A device node of our own, where this runs as root.
    if (mknod(P("null").c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
        GTEST_SKIP() << "SKIPPED: cannot make a device node here (" << std::strerror(errno) << ")";
    EXPECT_NE(CheckError(P("null")).find(": is a device;"), std::string::npos);
    EXPECT_TRUE(fs::is_character_file(dir / "null"));
}

TEST_F(OutputFiles, AFolderIsRefused) {
    fs::create_directories(dir / "taken.png");
    EXPECT_EQ(CheckError(P("taken.png")), "-o " + P("taken.png") + ": is a folder; only regular files are written");
    EXPECT_EQ(CheckError(P("new/")), "-o " + P("new/") + ": names a folder, not a file");
    WriteBytes(dir / "file", "x");
    EXPECT_NE(CheckError(P("file/x.png")).find("a part of its folder path is a file, not a folder"), std::string::npos);
    EXPECT_EQ(CheckError(""), "-o: expected a file name, got an empty one");
}

TEST_F(OutputFiles, AWriteProtectedFileIsRefusedUnlessKept) {
    WriteBytes(dir / "ro.png", "keep me");
    fs::permissions(dir / "ro.png", fs::perms(0444));
    EXPECT_EQ(CheckError(P("ro.png")),
              "-o " + P("ro.png") + ": the file is write-protected (mode 0444); it is not replaced");
    EXPECT_EQ(CheckError(P("ro.png"), IfExists::keep), "");  // render --resume leaves it alone
    EXPECT_EQ(ReadBytes(dir / "ro.png"), "keep me");
}

TEST_F(OutputFiles, AStalePartialFileOrFolderIsLeftAlone) {
    WriteBytes(dir / "a.png.partial", "someone else's");
    fs::create_directories(dir / "b.png.partial");
    WriteOutputFile(CheckOutputFile("-o", P("a.png")), "a");
    WriteOutputFile(CheckOutputFile("-o", P("b.png")), "b");
    EXPECT_EQ(ReadBytes(dir / "a.png.partial"), "someone else's");
    EXPECT_TRUE(fs::is_directory(dir / "b.png.partial"));
    EXPECT_EQ(Entries(dir), (std::vector<std::string>{"a.png", "a.png.partial", "b.png", "b.png.partial"}));
}

TEST_F(OutputFiles, ANameTooLongIsRefused) {
    const std::string name(300, 'n');
    EXPECT_NE(CheckError(P(name + ".png")).find("longer than its file system allows (the longest is 304 bytes)"),
              std::string::npos);
    EXPECT_EQ(Entries(dir), std::vector<std::string>{});
}

// Root may write in any folder: as root, the check runs in a child process as user nobody.
TEST_F(OutputFiles, AFolderWithoutWritePermissionIsRefused) {
    fs::permissions(dir, fs::perms(0755));  // nobody may look in
    fs::create_directories(dir / "ro");
    fs::permissions(dir / "ro", fs::perms(0555));
    const std::string expected = "-o " + P("ro/x.png") + ": cannot create a file in the folder " + P("ro") +
                                 ": Permission denied";
    if (geteuid() != 0) {
        EXPECT_EQ(CheckError(P("ro/x.png")), expected);
        return;
    }
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0) _exit(3);
        _exit(CheckError(P("ro/x.png")) == expected ? 0 : 4);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "3: cannot become nobody, 4: another message";
    EXPECT_EQ(Entries(dir / "ro"), std::vector<std::string>{});
}

// A write that fails part way (here: over the file-size limit, as a full disk would) throws
// RuntimeError, keeps the old file and leaves no temporary file. Run in a child process, whose
// limits end with it.
TEST_F(OutputFiles, AFailedWriteLeavesTheOldFileAndNoTemporary) {
    WriteBytes(dir / "r.json", "old");
    const OutputFile file = CheckOutputFile("--json", P("r.json"));
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        signal(SIGXFSZ, SIG_IGN);  // the write then fails with EFBIG instead of killing the process
        const rlimit limit{1000, 1000};
        setrlimit(RLIMIT_FSIZE, &limit);
        try {
            WriteOutputFile(file, std::string(100000, 'x'));
        } catch (const RuntimeError& e) {
            _exit(std::string(e.what()) == "--json " + P("r.json") + ": write failed: File too large" ? 0 : 3);
        }
        _exit(4);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "3: another message, 4: no error";
    EXPECT_EQ(ReadBytes(dir / "r.json"), "old");
    EXPECT_EQ(Entries(dir), std::vector<std::string>{"r.json"});
}

// A full disk: a small tmpfs where this may mount one (root in a container that allows it).
TEST_F(OutputFiles, AFullDiskLeavesNoFileUnderTheFinalName) {
    fs::create_directories(dir / "small");
    if (mount("tmpfs", P("small").c_str(), "tmpfs", 0, "size=64k") != 0)
        GTEST_SKIP() << "SKIPPED: cannot mount a tmpfs here (" << std::strerror(errno) << ")";
    const OutputFile file = CheckOutputFile("--json", P("small/r.json"));
    std::string message;
    try {
        WriteOutputFile(file, std::string(1 << 20, 'x'));
    } catch (const RuntimeError& e) {
        message = e.what();
    }
    const std::vector<std::string> left = Entries(dir / "small");
    umount(P("small").c_str());
    EXPECT_EQ(message, "--json " + P("small/r.json") + ": write failed: No space left on device");
    EXPECT_EQ(left, std::vector<std::string>{});
}

// SIGINT, SIGTERM and SIGHUP remove the live temporary files and exit 130, 143 and 129.
TEST_F(OutputFiles, AnInterruptRemovesTheTemporaryFile) {
    for (const int signal : {SIGINT, SIGTERM, SIGHUP}) {
        int pipe_fds[2];
        ASSERT_EQ(pipe(pipe_fds), 0);
        const pid_t child = fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            InstallInterruptHandlers();
            TemporaryFile temporary;
            if (temporary.Create(dir.string(), "f.png") != 0 || temporary.Write("half", 4) != 0) _exit(3);
            const std::string path = temporary.path() + "\n";
            if (write(pipe_fds[1], path.data(), path.size()) != ssize_t(path.size())) _exit(4);
            raise(signal);
            _exit(5);  // not reached: the handler exits
        }
        close(pipe_fds[1]);
        char buffer[4096];
        const ssize_t size = read(pipe_fds[0], buffer, sizeof(buffer));
        close(pipe_fds[0]);
        int status = 0;
        ASSERT_EQ(waitpid(child, &status, 0), child);
        ASSERT_TRUE(WIFEXITED(status));
        EXPECT_EQ(WEXITSTATUS(status), 128 + signal);
        ASSERT_GT(size, 1);
        const std::string path(buffer, size_t(size) - 1);
        EXPECT_EQ(fs::path(path).parent_path(), dir);
        EXPECT_EQ(fs::path(path).filename().string().rfind(".f.png.", 0), 0u) << path;
        EXPECT_EQ(Entries(dir), std::vector<std::string>{}) << "signal " << signal;
    }
}

TEST_F(OutputFiles, TemporaryFilesHaveUniqueNamesAndGoWhenDropped) {
    {
        TemporaryFile a, b;
        ASSERT_EQ(a.Create(dir.string(), "x.png"), 0);
        ASSERT_EQ(b.Create(dir.string(), "x.png"), 0);
        EXPECT_NE(a.path(), b.path());
        EXPECT_EQ(Entries(dir).size(), 2u);
    }
    EXPECT_EQ(Entries(dir), std::vector<std::string>{});
}

TEST_F(OutputFiles, TheImageTypeComesFromTheExtension) {
    const auto format = [&](const std::string& name) { return ImageFormatOf(CheckOutputFile("-o", P(name))); };
    EXPECT_EQ(format("a.png"), ImageFormat::png);
    EXPECT_EQ(format("a.PNG"), ImageFormat::png);
    EXPECT_EQ(format("a.jpg"), ImageFormat::jpeg);
    EXPECT_EQ(format("a.JPEG"), ImageFormat::jpeg);
    EXPECT_EQ(format("a.exr"), ImageFormat::exr);
    try {
        format("a.tif");
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "-o " + P("a.tif") + ": unsupported image type \".tif\" (supported: .png, .jpg, .jpeg, .exr)");
    }
    EXPECT_THROW(format("noextension"), InputError);

    Image image(8, 6);
    for (int y = 0; y < 6; ++y)
        for (int x = 0; x < 8; ++x) image.at(x, y) = Rgb(x / 8.0f, y / 6.0f, 0.5f);
    WriteImage(image, CheckOutputFile("-o", P("i.jpg")));
    WriteImage(image, CheckOutputFile("-o", P("i.png")));
    EXPECT_EQ(ReadBytes(dir / "i.jpg").substr(0, 3), "\xff\xd8\xff");
    EXPECT_EQ(ReadBytes(dir / "i.png").substr(0, 8), "\x89PNG\r\n\x1a\n");
    const Image back = ReadImage(P("i.jpg"));
    EXPECT_EQ(back.width, 8);
    EXPECT_EQ(back.height, 6);
}

}  // namespace
}  // namespace caustica
