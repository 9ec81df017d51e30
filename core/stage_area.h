// Work lists that the stages of a computation take in turn from one allocation. A stage's lists are
// dead once the next stage begins (the triangle tree's large-node entry lists once its small-node
// stage starts), so the allocation needs to be as large as the largest stage's lists only, where
// a buffer each would add up every stage's. Lists keep their capacities from one run to the next:
// a warm run lays nothing out again and allocates nothing.
#pragma once

#include <cstddef>
#include <vector>

#include "core/buffer.h"
#include "core/memory.h"

namespace caustica {

class StageArea;

// A structure-of-arrays list in a StageArea: columns of fixed-width items, each with room for
// capacity() items.
class AreaList {
public:
    // Past its capacity a list takes an eighth more than asked (WithAnEighthMore), or
    // exactly what is asked (a list whose size is known before it is filled).
    enum class Growth { Eighth, Exact };
    explicit AreaList(std::vector<size_t> column_bytes, Growth growth = Growth::Eighth);

    // Makes room for n items in every column; size() becomes at least n. Where the list has to
    // grow, the stage's other lists keep their items, and this one too when keep is true; their
    // columns may move, so views taken before are stale.
    void Reserve(size_t n, bool keep);
    // The room asked for so far (it never shrinks: the stage's next run starts with it).
    size_t size() const { return size_; }
    size_t capacity() const { return capacity_; }

    template <class T>
    T* Column(size_t c) const {
        return static_cast<T*>(columns_[c]);
    }

private:
    friend class StageArea;
    std::vector<size_t> widths_;
    Growth growth_;
    std::vector<void*> columns_;
    size_t size_ = 0, capacity_ = 0;
    StageArea* area_ = nullptr;  // the area whose current stage the list is part of
};

class StageArea {
public:
    explicit StageArea(MemorySpace space) : space_(space), memory_(space) {}
    StageArea(const StageArea&) = delete;
    StageArea& operator=(const StageArea&) = delete;

    // Lays out the next stage's lists with the capacities they had in place of the last stage's,
    // whose items are dropped (so the last stage's memory is given back before more is taken).
    void BeginStage(std::vector<AreaList*> lists);
    // The memory the area holds.
    size_t Bytes() const { return memory_.capacity(); }

private:
    friend class AreaList;
    // Gives list the capacity, keeping the items of the stage's other lists and, with keep, its own.
    void Grow(AreaList& list, size_t capacity, bool keep);
    // Where each column of each list starts when the lists have these capacities; the bytes in all.
    size_t Layout(const std::vector<size_t>& capacities, std::vector<std::vector<size_t>>* offsets) const;
    // Points the lists' columns at those offsets in memory_.
    void Place(const std::vector<std::vector<size_t>>& offsets);

    MemorySpace space_;
    Buffer<unsigned char> memory_;
    std::vector<AreaList*> lists_;  // the current stage's
};

}  // namespace caustica
