// Images kept for reuse by a render that downloads frame after frame into host memory and hands
// each to a writer: a 1080p frame's 25 MB in freshly allocated memory take the host page faults
// on their first touch (about 10 ms a frame on the development machine), where reused pixels take
// the copy alone. Shared by the devices' and the writers' threads.
#pragma once

#include <mutex>
#include <vector>

#include "renderer/output/image.h"

namespace caustica {

class ImagePool {
public:
    // An image given back earlier (its size and pixels those it had), or an empty one.
    Image Take();
    void GiveBack(Image image);

private:
    std::mutex mutex_;
    std::vector<Image> free_;
};

}  // namespace caustica
