#include "renderer/output/image.h"

#include <stb/stb_image.h>
#include <stb/stb_image_write.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/error.h"
#include "core/srgb.h"

namespace caustica {

namespace {

void AppendBytes(void* context, void* data, int size) {
    auto* out = static_cast<std::vector<unsigned char>*>(context);
    const auto* bytes = static_cast<const unsigned char*>(data);
    out->insert(out->end(), bytes, bytes + size);
}

}  // namespace

void WritePng(const Image& image, const std::string& path) {
    std::vector<unsigned char> rgb(image.pixels.size() * 3);
    for (size_t i = 0; i < image.pixels.size(); ++i) {
        rgb[3 * i + 0] = EncodeSrgb8(image.pixels[i].x);
        rgb[3 * i + 1] = EncodeSrgb8(image.pixels[i].y);
        rgb[3 * i + 2] = EncodeSrgb8(image.pixels[i].z);
    }
    std::vector<unsigned char> png;
    if (!stbi_write_png_to_func(AppendBytes, &png, image.width, image.height, 3, rgb.data(), image.width * 3))
        throw RuntimeError(Concat(path, ": could not encode a ", image.width, "x", image.height, " PNG"));

    const std::string temporary = path + ".partial";
    std::FILE* file = std::fopen(temporary.c_str(), "wb");
    if (!file) throw RuntimeError(Concat(path, ": cannot write: ", std::strerror(errno)));
    const bool written = std::fwrite(png.data(), 1, png.size(), file) == png.size();
    const int write_errno = errno;
    const bool closed = std::fclose(file) == 0;
    if (!written || !closed) {
        std::remove(temporary.c_str());
        throw RuntimeError(Concat(path, ": write failed: ", std::strerror(written ? errno : write_errno)));
    }
    std::error_code error;
    std::filesystem::rename(temporary, path, error);
    if (error) {
        std::remove(temporary.c_str());
        throw RuntimeError(Concat(path, ": cannot move the finished file into place: ", error.message()));
    }
}

Image ReadPng(const std::string& path) {
    int w = 0, h = 0, channels = 0;
    unsigned char* data = stbi_load(path.c_str(), &w, &h, &channels, 3);
    if (!data) throw InputError(Concat(path, ": error: cannot read PNG: ", stbi_failure_reason()));
    Image image(w, h);
    for (size_t i = 0; i < image.pixels.size(); ++i)
        image.pixels[i] = Rgb(DecodeSrgb8(data[3 * i]), DecodeSrgb8(data[3 * i + 1]), DecodeSrgb8(data[3 * i + 2]));
    stbi_image_free(data);
    return image;
}

}  // namespace caustica
