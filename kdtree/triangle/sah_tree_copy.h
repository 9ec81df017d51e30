// Copies a triangle kd-tree between memories (for example a host-built tree to the GPU).
#pragma once

#include "core/memory.h"
#include "kdtree/triangle/sah_tree.h"

namespace caustica {

// dst keeps its memory space; its buffers are resized to src's sizes.
inline void CopySahTree(const SahTree& src, SahTree& dst) {
    dst.nodes.Resize(src.nodes.size(), false);
    dst.indices.Resize(src.indices.size(), false);
    if (!src.nodes.empty())
        CopyBytes(dst.nodes.data(), dst.nodes.space(), src.nodes.data(), src.nodes.space(), src.nodes.size() * sizeof(KdNode));
    if (!src.indices.empty())
        CopyBytes(dst.indices.data(), dst.indices.space(), src.indices.data(), src.indices.space(),
                  src.indices.size() * sizeof(uint32_t));
    dst.bounds = src.bounds;
    dst.max_depth = src.max_depth;
}

}  // namespace caustica
