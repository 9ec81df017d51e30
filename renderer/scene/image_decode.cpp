#include "renderer/scene/image_decode.h"

#include <stb/stb_image.h>

#include <algorithm>
#include <climits>
#include <memory>

#include "core/error.h"
#include "core/srgb.h"

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

// Checks the size from the image's header; 'formats' names what is expected.
bool CheckHeader(const std::string& bytes, const char* formats, std::string* why) {
    if (bytes.size() > static_cast<std::size_t>(INT_MAX)) {
        *why = "file too large";
        return false;
    }
    long long png_width = 0, png_height = 0;
    if (PngHeaderSize(bytes, &png_width, &png_height) && !SizeAllowed(png_width, png_height, why)) return false;
    int w = 0, h = 0, c = 0;
    if (!stbi_info_from_memory(reinterpret_cast<const stbi_uc*>(bytes.data()), static_cast<int>(bytes.size()), &w, &h,
                               &c)) {
        *why = Concat("not a ", formats, " image (", stbi_failure_reason(), ")");
        return false;
    }
    return SizeAllowed(w, h, why);
}

// Decodes 8-bit channels ('channels' per pixel), or floats for Radiance HDR files when 'hdr'.
template <class T, bool hdr = false>
std::unique_ptr<T, void (*)(void*)> Decode(const std::string& bytes, const char* formats, int channels, int* width,
                                           int* height, std::string* why) {
    std::unique_ptr<T, void (*)(void*)> pixels(nullptr, stbi_image_free);
    if (!CheckHeader(bytes, formats, why)) return pixels;
    const auto* data = reinterpret_cast<const stbi_uc*>(bytes.data());
    const int length = static_cast<int>(bytes.size());
    int c = 0;
    if constexpr (hdr) pixels.reset(stbi_loadf_from_memory(data, length, width, height, &c, channels));
    else pixels.reset(stbi_load_from_memory(data, length, width, height, &c, channels));
    if (!pixels) *why = Concat("could not decode the image (", stbi_failure_reason(), ")");
    return pixels;
}

}  // namespace

bool DecodeTexture(const std::string& bytes, Texture* out, std::string* why) {
    int w = 0, h = 0;
    auto pixels = Decode<unsigned char>(bytes, "PNG or JPG", 4, &w, &h, why);
    if (!pixels) return false;
    out->width = w;
    out->height = h;
    out->rgba.assign(pixels.get(), pixels.get() + static_cast<std::size_t>(w) * h * 4);
    return true;
}

bool DecodeEnvironmentImage(const std::string& bytes, EnvironmentImage* out, std::string* why) {
    int w = 0, h = 0;
    const std::size_t length = std::min(bytes.size(), static_cast<std::size_t>(INT_MAX));
    if (stbi_is_hdr_from_memory(reinterpret_cast<const stbi_uc*>(bytes.data()), static_cast<int>(length))) {
        auto pixels = Decode<float, true>(bytes, "Radiance HDR", 3, &w, &h, why);
        if (!pixels) return false;
        out->texels.resize(static_cast<std::size_t>(w) * h);
        for (std::size_t i = 0; i < out->texels.size(); ++i) {
            const float* p = pixels.get() + 3 * i;
            out->texels[i] = Rgb(p[0], p[1], p[2]);
            if (!(p[0] >= 0.0f && p[1] >= 0.0f && p[2] >= 0.0f) || !IsFinite(out->texels[i])) {
                *why = Concat("pixel (", i % w, ", ", i / w, ") is negative or not finite");
                return false;
            }
        }
    } else {
        auto pixels = Decode<unsigned char>(bytes, "PNG, JPG or Radiance HDR", 3, &w, &h, why);
        if (!pixels) return false;
        out->texels.resize(static_cast<std::size_t>(w) * h);
        for (std::size_t i = 0; i < out->texels.size(); ++i) {
            const unsigned char* p = pixels.get() + 3 * i;
            out->texels[i] = Rgb(DecodeSrgb8(p[0]), DecodeSrgb8(p[1]), DecodeSrgb8(p[2]));
        }
    }
    out->width = w;
    out->height = h;
    return true;
}

bool DecodeHeightImage(const std::string& bytes, HeightImage* out, std::string* why) {
    int w = 0, h = 0;
    auto pixels = Decode<unsigned char>(bytes, "PNG or JPG", 1, &w, &h, why);
    if (!pixels) return false;
    out->width = w;
    out->height = h;
    out->values.resize(static_cast<std::size_t>(w) * h);
    for (std::size_t i = 0; i < out->values.size(); ++i) out->values[i] = pixels.get()[i] / 255.0f;
    return true;
}

}  // namespace caustica
