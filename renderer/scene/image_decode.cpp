#include "renderer/scene/image_decode.h"

#include <stb/stb_image.h>

#include <climits>
#include <memory>

#include "core/error.h"

namespace caustica {
namespace {

// The size a PNG file's header (its IHDR chunk) declares, read here because stb_image refuses
// to even describe a PNG of more than 2^30 bytes of pixels. False for anything else.
bool PngHeaderSize(const std::string& bytes, long long* width, long long* height) {
    static const char kSignature[] = "\x89PNG\r\n\x1a\n";
    if (bytes.size() < 24 || bytes.compare(0, 8, kSignature, 8) != 0 || bytes.compare(12, 4, "IHDR") != 0) return false;
    const auto big_endian = [&](std::size_t at) {
        long long value = 0;
        for (std::size_t i = 0; i < 4; ++i) value = value * 256 + static_cast<unsigned char>(bytes[at + i]);
        return value;
    };
    *width = big_endian(16);
    *height = big_endian(20);
    return true;
}

bool SizeAllowed(long long width, long long height, std::string* why) {
    if (width > 0 && height > 0 && width <= kMaxImageSide && height <= kMaxImageSide) return true;
    *why = Concat("image of ", width, "x", height, " pixels: each side must be 1 to ", kMaxImageSide);
    return false;
}

// Decodes with 'channels' channels per pixel after checking the size from the header.
std::unique_ptr<unsigned char, void (*)(void*)> Decode(const std::string& bytes, int channels, int* width, int* height,
                                                       std::string* why) {
    std::unique_ptr<unsigned char, void (*)(void*)> none(nullptr, stbi_image_free);
    if (bytes.size() > static_cast<std::size_t>(INT_MAX)) {
        *why = "file too large";
        return none;
    }
    const auto* data = reinterpret_cast<const stbi_uc*>(bytes.data());
    const int length = static_cast<int>(bytes.size());
    long long png_width = 0, png_height = 0;
    if (PngHeaderSize(bytes, &png_width, &png_height) && !SizeAllowed(png_width, png_height, why)) return none;
    int w = 0, h = 0, c = 0;
    if (!stbi_info_from_memory(data, length, &w, &h, &c)) {
        *why = Concat("not a PNG or JPG image (", stbi_failure_reason(), ")");
        return none;
    }
    if (!SizeAllowed(w, h, why)) return none;
    std::unique_ptr<unsigned char, void (*)(void*)> pixels(stbi_load_from_memory(data, length, &w, &h, &c, channels),
                                                           stbi_image_free);
    if (!pixels) {
        *why = Concat("could not decode the image (", stbi_failure_reason(), ")");
        return none;
    }
    *width = w;
    *height = h;
    return pixels;
}

}  // namespace

bool DecodeTexture(const std::string& bytes, Texture* out, std::string* why) {
    int w = 0, h = 0;
    auto pixels = Decode(bytes, 4, &w, &h, why);
    if (!pixels) return false;
    out->width = w;
    out->height = h;
    out->rgba.assign(pixels.get(), pixels.get() + static_cast<std::size_t>(w) * h * 4);
    return true;
}

bool DecodeHeightImage(const std::string& bytes, HeightImage* out, std::string* why) {
    int w = 0, h = 0;
    auto pixels = Decode(bytes, 1, &w, &h, why);
    if (!pixels) return false;
    out->width = w;
    out->height = h;
    out->values.resize(static_cast<std::size_t>(w) * h);
    for (std::size_t i = 0; i < out->values.size(); ++i) out->values[i] = pixels.get()[i] / 255.0f;
    return true;
}

}  // namespace caustica
