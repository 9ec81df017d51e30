// ImagePool: an image given back is taken again with its storage; an empty pool gives empty images.
#include <gtest/gtest.h>

#include "renderer/output/image_pool.h"

namespace caustica {
namespace {

TEST(ImagePool, GivesBackTheImagesStorage) {
    ImagePool pool;
    EXPECT_TRUE(pool.Take().pixels.empty());
    Image image(32, 18);
    const Rgb* storage = image.pixels.data();
    pool.GiveBack(std::move(image));
    const Image again = pool.Take();
    EXPECT_EQ(again.width, 32);
    EXPECT_EQ(again.height, 18);
    EXPECT_EQ(again.pixels.data(), storage);
    EXPECT_TRUE(pool.Take().pixels.empty()) << "one image given back, taken twice";
}

}  // namespace
}  // namespace caustica
