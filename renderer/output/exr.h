// OpenEXR files of linear-light images: 32-bit float R, G, B, losslessly compressed (ZIP), for
// compositing, and for a still's sample ranges that are added up later (render --sample-range,
// caustica combine). Through OpenEXR (Debian's libopenexr-dev): the format's reference library,
// which reads every compression a compositor writes and keeps typed header attributes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "renderer/output/image.h"

namespace caustica {

// What makes an EXR file the float sum of a range of a still's samples: samples first to
// first + count - 1 of total. The image is the plain sum; 'scale' is what turns the mean of all
// total samples into the image (the exposure, or 1 for the debug views), and the tone map what
// 8-bit images of it pass through (kept in the header only when it is not none).
struct SampleRange {
    uint32_t first = 0, count = 0, total = 0;
    float scale = 1.0f;
    ToneMap tone_map = ToneMap::None;
};

// The image as the bytes of an EXR file; a sample range is kept in the header's attributes.
std::string EncodeExr(const Image& image, const std::optional<SampleRange>& range = std::nullopt);

struct ExrImage {
    Image image;
    std::optional<SampleRange> range;  // set when the file is a sample range's sum
};

// Reads the bytes of an EXR file with R, G and B channels (any pixel type, any compression).
// A file that is damaged, lacks a channel or is larger than 16384 pixels a side is an InputError
// that begins with 'name'.
ExrImage DecodeExr(const std::string& bytes, const std::string& name);

}  // namespace caustica
