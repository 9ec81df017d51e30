// Linear-light images and their output by the file's extension: 8-bit sRGB PNG or JPEG, or linear
// 32-bit float OpenEXR (exr.h).
#pragma once

#include <string>
#include <vector>

#include "core/tone_map.h"
#include "core/vec.h"
#include "renderer/output/output_file.h"

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

enum class ImageFormat { png, jpeg, exr };

// The format that a file name's extension asks for: .png, .jpg / .jpeg or .exr (any case). Any other
// extension is an InputError naming the supported ones; commands check it before any work.
ImageFormat ImageFormatOf(const OutputFile& file);

// The image as the bytes of a file in 'format' (JPEG at quality 95; EXR as exr.h writes it). PNG and
// JPEG pass through the tone map before the sRGB encoding; EXR stays linear, for compositing.
std::string EncodeImage(const Image& image, ImageFormat format, ToneMap tone_map = ToneMap::None);

// Writes the image to a checked target in the format of its name (output_file.h: through a
// temporary file and a rename). Failures are RuntimeError naming the file and the reason.
void WriteImage(const Image& image, const OutputFile& file, ToneMap tone_map = ToneMap::None);

// Reads a PNG, JPEG or EXR file (by its extension) back as linear RGB. A file it cannot read is
// an InputError naming it.
Image ReadImage(const std::string& path);

}  // namespace caustica
