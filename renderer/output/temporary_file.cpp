#include "renderer/output/temporary_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <random>

#include "core/error.h"

namespace caustica {
namespace {

// The registry of live temporary files. A signal handler may only use lock-free atomics and
// async-signal-safe calls (unlink, write, _exit), so the paths sit in fixed slots: room for
// render's writer threads (at most 16 files at once, ImageWriterThreads) and more.
constexpr int kSlots = 64;
enum SlotState : int { kFree, kClaimed, kLive };
struct Slot {
    std::atomic<int> state{kFree};
    char path[PATH_MAX];
};
static_assert(std::atomic<int>::is_always_lock_free, "the interrupt handler reads the slots");
Slot g_slots[kSlots];

int Register(const std::string& path) {
    for (int i = 0; i < kSlots; ++i) {
        int expected = kFree;
        if (!g_slots[i].state.compare_exchange_strong(expected, kClaimed)) continue;
        std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
        g_slots[i].state.store(kLive, std::memory_order_release);
        return i;
    }
    CA_CHECK_MSG(false, "more than ", kSlots, " output files written at once");
    return -1;
}

void Release(int slot) {
    if (slot >= 0) g_slots[slot].state.store(kFree, std::memory_order_release);
}

void OnInterrupt(int signal) {
    for (Slot& slot : g_slots)
        if (slot.state.load(std::memory_order_acquire) == kLive) unlink(slot.path);
    static const char kMessage[] = "\ncaustica: interrupted\n";
    const ssize_t ignored = write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
    (void)ignored;
    _exit(128 + signal);
}

// Twelve random letters and digits.
std::string RandomSuffix() {
    static const char kAlphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    thread_local std::mt19937_64 random{std::random_device()() ^ (uint64_t(getpid()) << 32)};
    std::string suffix(12, ' ');
    for (char& c : suffix) c = kAlphabet[random() % (sizeof(kAlphabet) - 1)];
    return suffix;
}

}  // namespace

void InstallInterruptHandlers() {
    struct sigaction action {};
    action.sa_handler = OnInterrupt;
    sigemptyset(&action.sa_mask);
    for (const int signal : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&action.sa_mask, signal);
    for (const int signal : {SIGINT, SIGTERM, SIGHUP}) sigaction(signal, &action, nullptr);
}

TemporaryFile::~TemporaryFile() { Remove(); }

int TemporaryFile::Create(const std::string& folder, const std::string& name) {
    CA_CHECK_MSG(fd_ < 0 && path_.empty(), "a temporary file created twice");
    // ".<name>.<12 random characters>", the name cut to keep the whole within 255 bytes (the
    // limit of common file systems; the final name was checked against its own).
    const std::string stem = "." + name.substr(0, 240) + ".";
    for (int attempt = 0; attempt < 100; ++attempt) {
        const std::string path =
            (folder.empty() || folder.back() == '/' ? folder : folder + "/") + stem + RandomSuffix();
        if (path.size() >= PATH_MAX) return ENAMETOOLONG;
        // Registered before it exists, so that no instant has a file the handler would miss; a
        // random name that exists already (EEXIST, practically never) is not ours and is left.
        slot_ = Register(path);
        path_ = path;
        fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd_ >= 0) return 0;
        const int error = errno;
        Release(slot_);
        slot_ = -1;
        path_.clear();
        if (error != EEXIST) return error;
    }
    return EEXIST;
}

int TemporaryFile::Write(const char* bytes, std::size_t size) {
    while (size > 0) {
        const ssize_t written = write(fd_, bytes, size);
        if (written < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        bytes += written;
        size -= std::size_t(written);
    }
    return 0;
}

int TemporaryFile::Commit(const std::string& final_path, mode_t mode) {
    int error = 0;
    if (fchmod(fd_, mode) != 0) error = errno;
    // Some file systems report a full disk or an I/O error only when the data reaches the disk.
    if (error == 0 && fsync(fd_) != 0 && errno != EINVAL && errno != EROFS) error = errno;
    if (close(fd_) != 0 && error == 0) error = errno;
    fd_ = -1;
    if (error == 0 && rename(path_.c_str(), final_path.c_str()) != 0) error = errno;
    if (error != 0) {
        Remove();
        return error;
    }
    Release(slot_);
    slot_ = -1;
    path_.clear();
    return 0;
}

void TemporaryFile::Remove() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
    if (!path_.empty()) unlink(path_.c_str());
    Release(slot_);
    slot_ = -1;
    path_.clear();
}

}  // namespace caustica
