#include "renderer/output/png.h"

#include <zlib.h>

#include <algorithm>
#include <vector>

#include "core/error.h"

namespace caustica {
namespace {

void AppendBigEndian(std::string& out, uint32_t value) {
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(char((value >> shift) & 0xFF));
}

// A chunk: its length, type, data and the CRC-32 of type and data.
void AppendChunk(std::string& out, const char type[4], const unsigned char* data, size_t size) {
    AppendBigEndian(out, uint32_t(size));
    const size_t type_at = out.size();
    out.append(type, 4);
    if (size > 0) out.append(reinterpret_cast<const char*>(data), size);
    const auto* typed = reinterpret_cast<const unsigned char*>(out.data() + type_at);
    AppendBigEndian(out, uint32_t(crc32(0L, typed, uInt(4 + size))));
}

}  // namespace

std::string EncodePng(const uint8_t* rgb, int width, int height) {
    CA_CHECK_MSG(width > 0 && height > 0, "a PNG of ", width, "x", height, " pixels");
    const size_t row = 3 * size_t(width);
    // Each row: filter type 1 (Sub), then each byte less the byte of the pixel to its left.
    std::vector<unsigned char> filtered((row + 1) * size_t(height));
    for (size_t y = 0; y < size_t(height); ++y) {
        const uint8_t* in = rgb + y * row;
        unsigned char* out = filtered.data() + y * (row + 1);
        out[0] = 1;
        for (size_t i = 0; i < 3 && i < row; ++i) out[1 + i] = in[i];
        for (size_t i = 3; i < row; ++i) out[1 + i] = static_cast<unsigned char>(in[i] - in[i - 3]);
    }
    uLongf compressed_size = compressBound(uLong(filtered.size()));
    std::vector<unsigned char> compressed(compressed_size);
    const int status =
        compress2(compressed.data(), &compressed_size, filtered.data(), uLong(filtered.size()), Z_BEST_SPEED);
    if (status != Z_OK)
        throw RuntimeError(Concat("could not encode a ", width, "x", height, " PNG (zlib error ", status, ")"));

    std::string header;
    AppendBigEndian(header, uint32_t(width));
    AppendBigEndian(header, uint32_t(height));
    // 8 bits a channel, truecolour (R, G, B), deflate, a filter type a row, no interlace.
    header.append("\x08\x02\x00\x00\x00", 5);
    std::string png("\x89PNG\r\n\x1a\n", 8);
    png.reserve(8 + 25 + 12 + compressed_size + 12);
    AppendChunk(png, "IHDR", reinterpret_cast<const unsigned char*>(header.data()), header.size());
    // IDAT chunks of at most kMaxChunk bytes (a chunk's length is below 2^31), whose data together
    // is the zlib stream.
    constexpr size_t kMaxChunk = size_t(1) << 30;
    for (size_t at = 0; at < compressed_size; at += kMaxChunk)
        AppendChunk(png, "IDAT", compressed.data() + at, std::min<size_t>(kMaxChunk, compressed_size - at));
    AppendChunk(png, "IEND", nullptr, 0);
    return png;
}

}  // namespace caustica
