#include "renderer/output/image.h"

#include <stb/stb_image.h>
#include <stb/stb_image_write.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/error.h"
#include "core/srgb.h"
#include "renderer/output/exr.h"
#include "renderer/output/png.h"
#include "renderer/output/srgb8_encoder.h"

namespace caustica {

namespace {

void AppendBytes(void* context, void* data, int size) {
    auto* out = static_cast<std::string*>(context);
    out->append(static_cast<const char*>(data), size_t(size));
}

constexpr int kJpegQuality = 95;
constexpr size_t kPixelsATask = 65536;  // of an 8-bit image's conversion

std::string LowerCaseExtension(const std::string& path) {
    std::string extension = std::filesystem::path(path).extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return extension;
}

}  // namespace

ImageFormat ImageFormatOf(const OutputFile& file) {
    const std::string extension = LowerCaseExtension(file.given);
    if (extension == ".png") return ImageFormat::png;
    if (extension == ".jpg" || extension == ".jpeg") return ImageFormat::jpeg;
    if (extension == ".exr") return ImageFormat::exr;
    throw InputError(Concat(file.label, ": ",
                            extension.empty() ? std::string("the file name has no extension")
                                              : Concat("unsupported image type \"", extension, "\""),
                            " (supported: .png, .jpg, .jpeg, .exr)"));
}

std::string EncodeImage(const Image& image, ImageFormat format, ToneMap tone_map) {
    if (format == ImageFormat::exr) return EncodeExr(image);
    const Srgb8Encoder& srgb = Srgb8Encoder::Get();
    std::vector<unsigned char> rgb(image.pixels.size() * 3);
    // In parallel: AgX alone took about 110 ms of a 1080p frame on one core.
    tbb::parallel_for(tbb::blocked_range<size_t>(0, image.pixels.size(), kPixelsATask),
                      [&](const tbb::blocked_range<size_t>& pixels) {
                          for (size_t i = pixels.begin(); i < pixels.end(); ++i) {
                              const Rgb c = ApplyToneMap(tone_map, image.pixels[i]);
                              rgb[3 * i + 0] = srgb(c.x);
                              rgb[3 * i + 1] = srgb(c.y);
                              rgb[3 * i + 2] = srgb(c.z);
                          }
                      });
    if (format == ImageFormat::png) return EncodePng(rgb.data(), image.width, image.height);
    std::string bytes;
    if (!stbi_write_jpg_to_func(AppendBytes, &bytes, image.width, image.height, 3, rgb.data(), kJpegQuality))
        throw RuntimeError(Concat("could not encode a ", image.width, "x", image.height, " JPEG"));
    return bytes;
}

void WriteImage(const Image& image, const OutputFile& file, ToneMap tone_map) {
    WriteOutputFile(file, EncodeImage(image, ImageFormatOf(file), tone_map));
}

Image ReadImage(const std::string& path) {
    if (LowerCaseExtension(path) == ".exr") {
        std::ifstream in(path, std::ios::binary);
        if (!in) throw InputError(Concat(path, ": error: cannot read the image: ", std::strerror(errno)));
        return DecodeExr(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()), path).image;
    }
    int w = 0, h = 0, channels = 0;
    unsigned char* data = stbi_load(path.c_str(), &w, &h, &channels, 3);
    if (!data) throw InputError(Concat(path, ": error: cannot read the image: ", stbi_failure_reason()));
    Image image(w, h);
    for (size_t i = 0; i < image.pixels.size(); ++i)
        image.pixels[i] = Rgb(DecodeSrgb8(data[3 * i]), DecodeSrgb8(data[3 * i + 1]), DecodeSrgb8(data[3 * i + 2]));
    stbi_image_free(data);
    return image;
}

}  // namespace caustica
