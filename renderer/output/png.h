// PNG files of 8-bit RGB pixels (PNG specification, ISO/IEC 15948): each row filtered by its left
// neighbour ("Sub") and the whole compressed by zlib at its fastest level. On one core of the
// development machine a 1080p frame of the pool took about 65 ms and 619 KB, stb_image_write's
// encoder about 290 ms and 754 KB: render's writer threads keep up with the GPU the better.
//
// The rows are compressed in bands of kPngBandRows, each on its own and all in parallel, and joined
// into one zlib stream (each band ends on a byte boundary; the Adler-32s are combined), so that a
// render's last frame and a still, which the render waits for, take a part of one core's time
// (a 1080p frame of the pool in 9 ms on the development machine's 2 cores, where one stream took
// 19); rendered frames' files grow by 0.1-0.3%. The bands' height is fixed, so a file's bytes do
// not depend on the machine.
#pragma once

#include <cstdint>
#include <string>

namespace caustica {

constexpr int kPngBandRows = 64;

// The PNG file of width x height pixels, rows top to bottom, three bytes (R, G, B) a pixel. A
// RuntimeError if zlib fails.
std::string EncodePng(const uint8_t* rgb, int width, int height);

}  // namespace caustica
