// A progress bar for long work on stderr: items done, rate and time left, and where several
// devices share the work, each one's rate. On a terminal it redraws one line; otherwise (logs, CI)
// it prints a line at every tenth of the work. When stderr cannot be written (its reader went
// away), the bar stops drawing and the work goes on. The devices' host threads may advance it at
// once.
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

namespace caustica {

class ProgressBar {
public:
    // devices: the names of the devices that share the work ("GPU 0", ...), shown with their
    // rates where there are two or more.
    ProgressBar(std::string label, int total, std::string unit, std::vector<std::string> devices = {});
    // Called after each finished item, with the index of the device that finished it.
    void Advance(int device = 0);
    void Finish();

private:
    void Draw(bool final_line);

    std::mutex mutex_;
    std::string label_, unit_;
    std::vector<std::string> devices_;
    std::vector<int> device_done_;
    int total_, done_ = 0, last_tenth_ = -1;
    bool terminal_, stopped_ = false;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace caustica
