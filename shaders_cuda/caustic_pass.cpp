#include <algorithm>

#include "core/error.h"
#include "core/parallel_for.h"
#include "kdtree/point/knn_for_each.h"
#include "shaders_cuda/eye_passes.h"

namespace caustica {
namespace {

// What the search of an end reads, copied out of the tree, which later bounces may still move.
struct GatherQueriesPass {
    Span<const DiffusePoint> diffuse;
    Span<const uint32_t> end_node;
    uint32_t first_end;
    Span<Vec3> queries, normals;
    CA_HD void operator()(int i) const {
        const uint32_t end = first_end + uint32_t(i);
        const DiffusePoint& d = diffuse[end_node[end]];
        queries[end] = d.position;
        normals[end] = d.normal;
    }
};

// The filter of each query's photons, run where the KNN leaves them (on the GPU: shared memory).
struct FilterPhotons {
    Span<const PhotonArrival> arrivals;
    Span<const Vec3> normals;
    uint32_t first_end;  // the search's first query
    PhotonFilter filter;
    float radius_scale;
    Span<Rgb> caustic;
    Span<float> radius;
    Span<float> nearest2;
    CA_HD void operator()(uint32_t i, KnnSlot neighbours, KnnOutcome o) const {
        const uint32_t end = first_end + i;
        caustic[end] =
            CausticIrradiance(arrivals, neighbours, int(o.count), o.radius * radius_scale, normals[end], filter);
        float nearest = INFINITY;
        for (uint32_t j = 0; j < o.count; ++j) nearest = Min(nearest, neighbours.dist2[j * neighbours.stride]);
        radius[end] = o.radius;
        nearest2[end] = nearest;
    }
};

// Room for 'room' ends in a list that a search writes or reads while the next is filled: the
// first makes it (growing by doubling, as the frame's lists do, where the room differs from frame
// to frame), the later ones must not move it.
template <class T>
void MakeRoom(Buffer<T>& list, uint32_t first_end, uint32_t ends, uint32_t room) {
    if (first_end == 0) list.Resize(std::max(ends, room), false);
    CA_CHECK_MSG(ends <= list.capacity(), ends, " diffuse ends where room for ", list.capacity(), " was made");
    list.Resize(ends);
}

}  // namespace

void RunCausticQueriesPass(const Backend& backend, EyeState& state, uint32_t first_end) {
    CA_CHECK(first_end <= state.end_count);
    MakeRoom(state.caustic_queries, first_end, state.end_count, state.ends_bound);
    MakeRoom(state.caustic_normals, first_end, state.end_count, state.ends_bound);
    ParallelFor(backend, "caustic queries", state.end_count - first_end,
                GatherQueriesPass{state.diffuse.span(), state.end_node.span(), first_end,
                                  state.caustic_queries.span(), state.caustic_normals.span()});
}

void RunCausticPass(const Backend& backend, const PhotonMap& photon_map, const KnnSettings& knn, PhotonFilter filter,
                    float radius_scale, uint32_t first_end, uint32_t end, uint32_t ends_room, EyeState& state,
                    KnnJoin* join) {
    CA_CHECK(first_end <= end && end <= state.caustic_queries.capacity());
    MakeRoom(state.caustic, first_end, end, ends_room);
    MakeRoom(state.caustic_radius, first_end, end, ends_room);
    MakeRoom(state.caustic_nearest2, first_end, end, ends_room);
    // The queries from their list's start, whose size the gather of later ends may be setting.
    const Span<const Vec3> queries(state.caustic_queries.data() + first_end, end - first_end);
    KnnForEach(backend, photon_map.Tree(), photon_map.Radii(), queries, knn, state.knn,
               FilterPhotons{photon_map.Arrivals(), Span<const Vec3>(state.caustic_normals.data(), end), first_end,
                             filter, radius_scale, state.caustic.span(), state.caustic_radius.span(),
                             state.caustic_nearest2.span()},
               join);
}

}  // namespace caustica
