#include "renderer/cli/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "core/error.h"

namespace caustica {

ProgressBar::ProgressBar(std::string label, int total, std::string unit, std::vector<std::string> devices)
    : label_(std::move(label)), unit_(std::move(unit)), devices_(std::move(devices)),
      device_done_(std::max<size_t>(devices_.size(), 1), 0), total_(total), terminal_(isatty(STDERR_FILENO)),
      start_(std::chrono::steady_clock::now()) {}

void ProgressBar::Advance(int device) {
    const std::lock_guard<std::mutex> lock(mutex_);
    ++done_;
    ++device_done_.at(size_t(device));
    const int tenth = total_ > 0 ? done_ * 10 / total_ : 10;
    if (terminal_ || tenth != last_tenth_) Draw(false);
    last_tenth_ = tenth;
}

// Off a terminal the last Advance already printed the final line.
void ProgressBar::Finish() {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (terminal_) Draw(true);
}

void ProgressBar::Draw(bool final_line) {
    if (stopped_) return;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double rate = seconds > 0 ? done_ / seconds : 0.0;
    const double left = rate > 0 ? (total_ - done_) / rate : 0.0;
    constexpr int kWidth = 30;
    const int filled = total_ > 0 ? done_ * kWidth / total_ : kWidth;
    std::string bar(size_t(filled), '#');
    bar.resize(kWidth, '.');
    std::string rates;  // " (GPU 0 1.21/s, GPU 1 1.19/s)"
    for (size_t d = 0; devices_.size() > 1 && d < devices_.size(); ++d) {
        char text[64];
        std::snprintf(text, sizeof(text), "%.2f/s", seconds > 0 ? device_done_[d] / seconds : 0.0);
        rates += Concat(d == 0 ? " (" : ", ", devices_[d], " ", text, d + 1 == devices_.size() ? ")" : "");
    }
    const bool written =
        std::fprintf(stderr, "%s%s [%s] %d/%d %s, %.2f %s/s%s, %.0f s left%s", terminal_ ? "\r" : "",
                     label_.c_str(), bar.c_str(), done_, total_, unit_.c_str(), rate, unit_.c_str(), rates.c_str(),
                     left, terminal_ && !final_line ? "" : "\n") >= 0;
    // A reader of stderr that went away (a closed pipe: EPIPE) stops the bar, not the work.
    if (std::fflush(stderr) != 0 || !written) {
        stopped_ = true;
        std::clearerr(stderr);
    }
}

}  // namespace caustica
