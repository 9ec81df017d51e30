#include "core/stage_area.h"

#include <algorithm>
#include <utility>

#include "core/error.h"

namespace caustica {
namespace {

// Every column starts on a 256-byte boundary, as a list of its own would (cudaMalloc's alignment),
// so that a warp's reads of consecutive items stay in whole memory segments.
constexpr size_t kColumnAlignment = 256;

size_t AlignUp(size_t bytes) { return (bytes + kColumnAlignment - 1) / kColumnAlignment * kColumnAlignment; }

}  // namespace

AreaList::AreaList(std::vector<size_t> column_bytes, Growth growth)
    : widths_(std::move(column_bytes)), growth_(growth), columns_(widths_.size(), nullptr) {}

void AreaList::Reserve(size_t n, bool keep) {
    CA_CHECK_MSG(area_ != nullptr, "a work list was used outside its area's stage");
    if (n > capacity_) area_->Grow(*this, growth_ == Growth::Eighth ? WithAnEighthMore(n) : n, keep);
    size_ = std::max(size_, n);
}

size_t StageArea::Layout(const std::vector<size_t>& capacities, std::vector<std::vector<size_t>>* offsets) const {
    size_t end = 0;
    offsets->assign(lists_.size(), {});
    for (size_t l = 0; l < lists_.size(); ++l) {
        for (size_t width : lists_[l]->widths_) {
            end = AlignUp(end);
            (*offsets)[l].push_back(end);
            end += capacities[l] * width;
        }
    }
    return end;
}

void StageArea::Place(const std::vector<std::vector<size_t>>& offsets) {
    for (size_t l = 0; l < lists_.size(); ++l)
        for (size_t c = 0; c < offsets[l].size(); ++c) lists_[l]->columns_[c] = memory_.data() + offsets[l][c];
}

void StageArea::BeginStage(std::vector<AreaList*> lists) {
    for (AreaList* list : lists_) list->area_ = nullptr;
    lists_ = std::move(lists);
    std::vector<size_t> capacities;
    for (AreaList* list : lists_) {
        CA_CHECK_MSG(list->area_ == nullptr, "a work list is in two stages at once");
        list->area_ = this;
        capacities.push_back(list->capacity_);
    }
    std::vector<std::vector<size_t>> offsets;
    const size_t bytes = Layout(capacities, &offsets);
    if (bytes > memory_.capacity()) {
        memory_ = Buffer<unsigned char>(space_);  // the last stage's items are dead: free them first
        memory_.Reserve(bytes, false);
    }
    Place(offsets);
}

void StageArea::Grow(AreaList& list, size_t capacity, bool keep) {
    std::vector<size_t> capacities;
    for (AreaList* l : lists_) capacities.push_back(l == &list ? capacity : l->capacity_);
    std::vector<std::vector<size_t>> offsets;
    const size_t bytes = Layout(capacities, &offsets);
    const auto kept_items = [&](const AreaList& l) { return &l == &list && !keep ? size_t(0) : l.size_; };
    // The grown list's columns after its first, and the lists laid out after it, move; where none
    // of the columns that move has items to keep and the memory has room (a stage's first run, its
    // lists growing in turn), the layout changes in place.
    bool in_place = bytes <= memory_.capacity();
    for (size_t l = 0; l < lists_.size() && in_place; ++l) {
        if (kept_items(*lists_[l]) == 0) continue;
        for (size_t c = 0; c < offsets[l].size(); ++c)
            in_place = in_place && lists_[l]->columns_[c] == memory_.data() + offsets[l][c];
    }
    if (in_place) {
        Place(offsets);
        list.capacity_ = capacity;
        return;
    }
    // Else the items move to a new allocation, at least as large as the old one (the next stage may
    // need it again), column by column.
    Buffer<unsigned char> grown(space_);
    grown.Reserve(std::max(bytes, memory_.capacity()), false);
    for (size_t l = 0; l < lists_.size(); ++l) {
        AreaList& moved = *lists_[l];
        const size_t items = kept_items(moved);
        for (size_t c = 0; c < offsets[l].size(); ++c) {
            unsigned char* to = grown.data() + offsets[l][c];
            if (items > 0) CopyBytes(to, space_, moved.columns_[c], space_, items * moved.widths_[c]);
            moved.columns_[c] = to;
        }
    }
    list.capacity_ = capacity;
    memory_ = std::move(grown);
}

}  // namespace caustica
