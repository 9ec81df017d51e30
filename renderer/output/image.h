// Linear-light images and their output as 8-bit sRGB PNG files.
#pragma once

#include <string>
#include <vector>

#include "core/vec.h"

namespace caustica {

struct Image {
    int width = 0;
    int height = 0;
    std::vector<Rgb> pixels;  // row-major, top row first, linear RGB

    Image() = default;
    Image(int w, int h) : width(w), height(h), pixels(size_t(w) * size_t(h)) {}
    Rgb& at(int x, int y) { return pixels[size_t(y) * size_t(width) + size_t(x)]; }
    const Rgb& at(int x, int y) const { return pixels[size_t(y) * size_t(width) + size_t(x)]; }
};

// Writes the image as an sRGB PNG. The file is written beside its final name and renamed into
// place, so a failure (bad path, full disk) leaves no half-written file; it throws RuntimeError
// naming the path and the reason.
void WritePng(const Image& image, const std::string& path);

// Reads a PNG written by WritePng back as linear RGB (for tests and --resume checks).
Image ReadPng(const std::string& path);

}  // namespace caustica
