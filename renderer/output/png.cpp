#include "renderer/output/png.h"

#include <tbb/parallel_for.h>
#include <zlib.h>

#include <algorithm>
#include <limits>
#include <memory>
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

// A band of rows compressed on its own: raw deflate data that ends on a byte boundary (a sync
// flush), or with the stream's final block for the last band, and the Adler-32 and length of the
// filtered rows it holds.
struct Band {
    std::string deflated;
    uLong adler = adler32(0L, Z_NULL, 0);
    size_t filtered = 0;
};

Band DeflateBand(const uint8_t* rgb, int width, int first_row, int rows, bool last) {
    const auto fail = [&](int status) {
        return RuntimeError(Concat("could not encode rows ", first_row, "-", first_row + rows - 1, " of a ", width,
                                   "-pixel-wide PNG (zlib error ", status, ")"));
    };
    z_stream stream{};
    if (const int status = deflateInit2(&stream, Z_BEST_SPEED, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
        status != Z_OK)
        throw fail(status);
    // The rows are filtered one at a time into 'line' and fed to the stream, whose output goes into
    // room that is only touched where it is written: a 1080p frame's 6 MB of filtered rows and
    // compressBound's room, written whole, had cost page faults of their own.
    const size_t row = 3 * size_t(width);
    Band band;
    band.filtered = (row + 1) * size_t(rows);
    // deflateBound and room for the band's sync flush (5 bytes), which one call to deflate finishes.
    const size_t room = deflateBound(&stream, uLong(band.filtered)) + 16;
    const std::unique_ptr<unsigned char[]> compressed(new unsigned char[room]);
    std::vector<unsigned char> line(row + 1);
    int status = Z_OK;
    for (int y = first_row; y < first_row + rows && status == Z_OK; ++y) {
        // Filter type 1 (Sub): each byte less the byte of the pixel to its left.
        const uint8_t* in = rgb + size_t(y) * row;
        line[0] = 1;
        for (size_t i = 0; i < 3 && i < row; ++i) line[1 + i] = in[i];
        for (size_t i = 3; i < row; ++i) line[1 + i] = static_cast<unsigned char>(in[i] - in[i - 3]);
        band.adler = adler32(band.adler, line.data(), uInt(line.size()));
        stream.next_in = line.data();
        stream.avail_in = uInt(line.size());
        const int flush = y + 1 < first_row + rows ? Z_NO_FLUSH : last ? Z_FINISH : Z_SYNC_FLUSH;
        do {  // zlib counts the room left in 32 bits
            stream.next_out = compressed.get() + stream.total_out;
            stream.avail_out = uInt(std::min<size_t>(room - stream.total_out, std::numeric_limits<uInt>::max()));
            status = deflate(&stream, flush);
        } while (status == Z_OK && (stream.avail_in > 0 || flush == Z_FINISH));
    }
    band.deflated.assign(reinterpret_cast<const char*>(compressed.get()), stream.total_out);
    deflateEnd(&stream);
    if (status != (last ? Z_STREAM_END : Z_OK)) throw fail(status);
    return band;
}

}  // namespace

std::string EncodePng(const uint8_t* rgb, int width, int height) {
    CA_CHECK_MSG(width > 0 && height > 0, "a PNG of ", width, "x", height, " pixels");
    // The bands are compressed in parallel and joined into one zlib stream: its header, their data
    // in order, and the Adler-32 of all the filtered rows.
    const int bands = (height + kPngBandRows - 1) / kPngBandRows;
    std::vector<Band> parts(static_cast<size_t>(bands));
    tbb::parallel_for(0, bands, [&](int b) {
        const int first = b * kPngBandRows;
        parts[size_t(b)] = DeflateBand(rgb, width, first, std::min(kPngBandRows, height - first), b + 1 == bands);
    });
    std::string compressed("\x78\x01", 2);  // deflate with a 32 KB window, the fastest level
    uLong adler = adler32(0L, Z_NULL, 0);
    for (const Band& band : parts) {
        compressed += band.deflated;
        adler = adler32_combine(adler, band.adler, z_off_t(band.filtered));
    }
    AppendBigEndian(compressed, uint32_t(adler));
    const size_t compressed_size = compressed.size();

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
        AppendChunk(png, "IDAT", reinterpret_cast<const unsigned char*>(compressed.data()) + at,
                    std::min<size_t>(kMaxChunk, compressed_size - at));
    AppendChunk(png, "IEND", nullptr, 0);
    return png;
}

}  // namespace caustica
