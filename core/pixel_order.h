// The order in which a frame's pixels are enumerated for per-pixel work: tiles of 8x4 pixels, row
// by row of tiles, each tile row by row. A GPU warp of 32 consecutive items then covers one tile
// instead of 32 pixels of one row, so its eye rays, shadow rays and caustic queries are neighbours
// on screen and walk the trees along more of the same paths. At the right and bottom edges the
// tiles are narrower or shorter, so every width and height is covered, each pixel once.
#pragma once

#include <cstdint>

#include "core/hd.h"

namespace caustica {

struct PixelOrder {
    static constexpr uint32_t kTileWidth = 8, kTileHeight = 4;
    uint32_t width = 0, height = 0;

    // The pixel (x, y) of item i, for i < width * height.
    CA_HD void Pixel(uint32_t i, uint32_t& x, uint32_t& y) const {
        const uint32_t band = kTileHeight * width;  // the pixels of one row of tiles
        const uint32_t row0 = i / band * kTileHeight;
        const uint32_t offset = i - row0 * width;
        const uint32_t rows = height - row0 < kTileHeight ? height - row0 : kTileHeight;
        const uint32_t tile_pixels = kTileWidth * rows;
        const uint32_t full_tiles = width / kTileWidth;
        const uint32_t tile = offset / tile_pixels;
        // The last tile of a row is narrower when the width is not a multiple of kTileWidth.
        const uint32_t tile_width = tile < full_tiles ? kTileWidth : width - full_tiles * kTileWidth;
        const uint32_t r = offset - tile * tile_pixels;
        x = tile * kTileWidth + r % tile_width;
        y = row0 + r / tile_width;
    }

    // The row-major index y * width + x of item i's pixel: images and random numbers are keyed by
    // it, so they do not depend on the order.
    CA_HD uint32_t Linear(uint32_t i) const {
        uint32_t x, y;
        Pixel(i, x, y);
        return y * width + x;
    }
};

}  // namespace caustica
