// The triangle kd-tree builder of Zhou et al. 2008 (large-node stage, small-node stage, preorder
// output) with the faster kernels of Chang, Seo and Ihm 2013, on either backend.
#pragma once

#include <memory>

#include "core/backend.h"
#include "core/span.h"
#include "kdtree/sah_params.h"
#include "kdtree/sah_tree.h"
#include "kdtree/triangle.h"

namespace caustica {

class BfsSahBuilder {
public:
    explicit BfsSahBuilder(const Backend& backend, SahParams params = {});
    ~BfsSahBuilder();
    BfsSahBuilder(const BfsSahBuilder&) = delete;
    BfsSahBuilder& operator=(const BfsSahBuilder&) = delete;

    // Builds a tree over triangles in the backend's memory into out (whose buffers must be in the
    // same memory). The builder's work lists are kept and reused, so rebuilding every frame
    // allocates nothing once the sizes have been seen.
    void Build(Span<const Triangle> triangles, SahTree& out);

    const SahParams& params() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace caustica
