// A progress bar for long work on stderr: items done, rate and time left. On a terminal it redraws
// one line; otherwise (logs, CI) it prints a line at every tenth of the work. When stderr cannot
// be written (its reader went away), the bar stops drawing and the work goes on.
#pragma once

#include <chrono>
#include <string>

namespace caustica {

class ProgressBar {
public:
    ProgressBar(std::string label, int total, std::string unit);
    // Called after each finished item.
    void Advance();
    void Finish();

private:
    void Draw(bool final_line);

    std::string label_, unit_;
    int total_, done_ = 0, last_tenth_ = -1;
    bool terminal_, stopped_ = false;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace caustica
