// Internal to the BFS builder (kdtree/triangle/bfs_builder.cpp): the work lists' storage on the
// host, whose views (kdtree/triangle/bfs_build_state.h) the passes take.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/buffer.h"
#include "core/memory.h"
#include "core/stage_area.h"
#include "kdtree/triangle/bfs_build_state.h"

namespace caustica::bfs {

// Grows b to n items. Past its capacity it takes an eighth more than n, as the stage area's lists
// do, not the double that Buffer::Resize takes (docs/notes/triangle-tree-performance.md, the
// build's memory).
template <class T>
void Grow(Buffer<T>& b, size_t n, bool keep) {
    if (b.size() >= n) return;
    if (b.capacity() < n) b.Reserve(WithAnEighthMore(n), keep);
    b.Resize(n, keep);
}

// The memory a buffer holds.
template <class T>
size_t Bytes(const Buffer<T>& b) {
    return b.capacity() * sizeof(T);
}
template <class T>
size_t Bytes(const std::vector<Buffer<T>>& v) {
    size_t bytes = 0;
    for (const Buffer<T>& b : v) bytes += Bytes(b);
    return bytes;
}

// The lists' columns, each in a StageArea: those of one stage (the large-node stage's entry and
// node lists; the small-node stage's node lists, its batch's roots, boxes and masks; the output
// stage's subtree sizes) share one allocation, which the next stage takes over
// (docs/notes/triangle-tree-performance.md, the build's memory).
inline std::vector<size_t> Widths(size_t n, size_t bytes) { return std::vector<size_t>(n, bytes); }

// Triangle references: tri, box[6].
struct EntryList : AreaList {
    EntryList() : AreaList(Widths(7, 4)) {}
    EntriesView View() const {
        EntriesView v;
        v.tri = Column<uint32_t>(0);
        for (int a = 0; a < 6; ++a) v.box[a] = Column<float>(1 + a);
        return v;
    }
};

// record, begin, count, useless_run, chunk_count, chunk_first, count_scan, key[6], depth,
// split_axis, planar_side, region[6], split_pos.
struct LargeNodeList : AreaList {
    LargeNodeList() : AreaList(Widths(23, 4)) {}
    LargeNodesView View() const {
        LargeNodesView v;
        v.record = Column<uint32_t>(0);
        v.begin = Column<uint32_t>(1);
        v.count = Column<uint32_t>(2);
        v.useless_run = Column<uint32_t>(3);
        v.chunk_count = Column<uint32_t>(4);
        v.chunk_first = Column<uint32_t>(5);
        v.count_scan = Column<uint32_t>(6);
        for (int a = 0; a < 6; ++a) v.key[a] = Column<uint32_t>(7 + a);
        v.depth = Column<int32_t>(13);
        v.split_axis = Column<int32_t>(14);
        v.planar_side = Column<int32_t>(15);
        for (int a = 0; a < 6; ++a) v.region[a] = Column<float>(16 + a);
        v.split_pos = Column<float>(22);
        return v;
    }
};

// record, root, split, split_scan, depth, region[6] (4 bytes each), mask (8 bytes).
struct SmallNodeList : AreaList {
    SmallNodeList() : AreaList({4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 8}) {}
    SmallNodesView View() const {
        SmallNodesView v;
        v.record = Column<uint32_t>(0);
        v.first = Column<uint32_t>(1);
        v.split = Column<uint32_t>(2);
        v.split_scan = Column<uint32_t>(3);
        v.depth = Column<int32_t>(4);
        for (int a = 0; a < 6; ++a) v.region[a] = Column<float>(5 + a);
        v.mask = Column<uint64_t>(11);
        return v;
    }
};

template <class T>
std::vector<Buffer<T>> MakeBuffers(MemorySpace s, int n) {
    std::vector<Buffer<T>> v;
    for (int i = 0; i < n; ++i) v.emplace_back(s);
    return v;
}

// The records' columns for the whole build. The output stage's subtree sizes are in the stage
// area (OutputColumns) instead: they have no use before it.
struct RecordBuffers {
    std::vector<Buffer<uint32_t>> u;  // head, split, left, right
    Buffer<float> cuts;
    explicit RecordBuffers(MemorySpace sp) : u(MakeBuffers<uint32_t>(sp, 4)), cuts(sp) {}
    // Only large-stage records have cut chains: small-stage levels pass with_cuts = false.
    void Reserve(size_t n, bool with_cuts) {
        for (auto& b : u) Grow(b, n, true);
        if (with_cuts) Grow(cuts, 6 * n, true);
    }
    size_t Bytes() const { return bfs::Bytes(u) + bfs::Bytes(cuts); }
    // The output stage's columns are null until it adds them (OutputColumns).
    RecordsView View() {
        RecordsView v{};
        v.head = u[0].data();
        v.split = u[1].data();
        v.left = u[2].data();
        v.right = u[3].data();
        v.cuts = cuts.data();
        return v;
    }
};

// The output stage's columns of the records: size, items (then offset), address.
struct OutputColumns : AreaList {
    OutputColumns() : AreaList(Widths(3, 4)) {}
    void AddTo(RecordsView& v) const {
        v.size = Column<uint32_t>(0);
        v.items = v.offset = Column<uint32_t>(1);
        v.address = Column<uint32_t>(2);
    }
};

// The small-node stage's lists for one batch of roots, whose sizes are known before they are filled:
// its entries' roots and boxes (root, box[6]), and its split candidates' masks (left, right).
struct BatchEntryList : AreaList {
    BatchEntryList() : AreaList(Widths(7, 4), Growth::Exact) {}
};
struct CandidateMasks : AreaList {
    CandidateMasks() : AreaList(Widths(2, 8), Growth::Exact) {}
};

struct SmallRootBuffers {
    Buffer<uint32_t> first, count, source;
    AreaList store{{4}};  // each entry's triangle
    BatchEntryList batch;
    CandidateMasks cand;
    uint32_t batch_first = 0;  // the batch's first entry
    explicit SmallRootBuffers(MemorySpace sp) : first(sp), count(sp), source(sp) {}
    size_t Bytes() const { return bfs::Bytes(first) + bfs::Bytes(count) + bfs::Bytes(source); }
    SmallRootsView View() {
        SmallRootsView v;
        v.first = first.data();
        v.count = count.data();
        v.source = source.data();
        v.tri = store.Column<uint32_t>(0);
        v.batch_first = batch_first;
        v.batch_root = batch.Column<uint32_t>(0);
        for (int k = 0; k < 6; ++k) v.batch_box[k] = batch.Column<float>(1 + size_t(k));
        v.cand_left = cand.Column<uint64_t>(0);
        v.cand_right = cand.Column<uint64_t>(1);
        return v;
    }
};

}  // namespace caustica::bfs
