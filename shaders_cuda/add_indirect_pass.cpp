#include "core/parallel_for.h"
#include "shaders_cuda/indirect_passes.h"

namespace caustica {
namespace {

constexpr float kInvPi = 1.0f / 3.14159265358979f;

struct AddIndirectPass {
    Span<const DiffusePoint> diffuse;
    Span<const uint32_t> end_node;
    Span<const Rgb> irradiance;
    Span<Rgb> radiance;  // of the tree's nodes
    CA_HD void operator()(int i) const {
        radiance[end_node[i]] += diffuse[end_node[i]].weight * irradiance[i] * kInvPi;
    }
};

}  // namespace

void RunAddIndirectPass(const Backend& backend, EyeState& eye, const IndirectState& state) {
    ParallelFor(backend, "add indirect", eye.end_count,
                AddIndirectPass{eye.diffuse.span(), eye.end_node.span(), state.irradiance.span(),
                                eye.tree_radiance.span()});
}

}  // namespace caustica
