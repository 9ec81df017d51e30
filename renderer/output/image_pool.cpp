#include "renderer/output/image_pool.h"

#include <utility>

namespace caustica {

Image ImagePool::Take() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_.empty()) return Image();
    Image image = std::move(free_.back());
    free_.pop_back();
    return image;
}

void ImagePool::GiveBack(Image image) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(std::move(image));
}

}  // namespace caustica
