// Image decoding (stb_image) for textures and height-field images (PNG, JPG) and environment maps
// (also Radiance .hdr), with size limits.
#pragma once

#include <string>

#include "renderer/scene/scene.h"

namespace caustica {

constexpr int kMaxImageSide = 8192;

// Decode 'bytes' into 8-bit RGBA (width, height and rgba of 'out'; its path is left alone).
// Returns false with the reason when the bytes are not a supported image or it is too large.
bool DecodeTexture(const std::string& bytes, Texture* out, std::string* why);

// Decode 'bytes' (Radiance .hdr, or PNG/JPG decoded from sRGB) as linear RGB texels of 'out'
// (width, height, texels; its path is left alone).
bool DecodeEnvironmentImage(const std::string& bytes, EnvironmentImage* out, std::string* why);

// Decode 'bytes' as greyscale values in [0, 1].
bool DecodeHeightImage(const std::string& bytes, HeightImage* out, std::string* why);

}  // namespace caustica
