#include "kdtree/triangle/sah_params.h"

#include <cmath>
#include <utility>

#include "core/error.h"

namespace caustica {

std::string SahParamsProblem(const SahParams& p) {
    if (p.small_node_threshold < 1 || p.small_node_threshold > 64)
        return Concat("the small-node threshold must be in [1, 64], not ", p.small_node_threshold);
    if (p.chunk_size < 32 || p.chunk_size > 1024 || p.chunk_size % 32 != 0)
        return Concat("the chunk size must be a multiple of 32 in [32, 1024], not ", p.chunk_size);
    if (p.max_depth < 0 || p.max_depth > 255) return Concat("the depth bound must be in [0, 255], not ", p.max_depth);
    for (const int limit : {p.children_in_one_block_max, p.large_levels_in_one_block_max,
                            p.small_levels_in_one_block_max})
        if (limit < 0) return Concat("the limits of work in one block must be at least 0, not ", limit);
    if (p.binned_sah_max_entries < 0)
        return Concat("the binned SAH's largest node must be at least 0 entries, not ", p.binned_sah_max_entries);
    if (p.median_or_sah_max_entries < 0)
        return Concat("the largest node that weighs the median against the SAH must be at least 0 entries, not ",
                      p.median_or_sah_max_entries);
    if (!(p.median_weight > 0.0f && p.median_weight <= 1.0f))
        return Concat("the median's weight against the SAH must be in (0, 1], not ", p.median_weight);
    if (p.small_stage_batch_entries < 64)
        return Concat("the small-node stage's batches must hold at least 64 entries, not ", p.small_stage_batch_entries);
    if (!(p.empty_space_area_ratio >= 0.0f && p.empty_space_area_ratio < 1.0f))
        return Concat("the empty-space area ratio must be in [0, 1), not ", p.empty_space_area_ratio);
    for (const auto& [name, cost] : {std::pair{"traversal", p.cost_traversal}, {"intersection", p.cost_intersection}})
        if (!(cost > 0.0f && std::isfinite(cost)))
            return Concat("the SAH's ", name, " cost must be a finite number greater than 0, not ", cost);
    return "";
}

}  // namespace caustica
