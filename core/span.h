// A non-owning view of contiguous items, usable in host and device code (std::span is C++20).
#pragma once

#include <cstddef>
#include <vector>

#include "core/hd.h"

namespace caustica {

template <class T>
class Span {
public:
    CA_HD Span() = default;
    CA_HD Span(T* data, size_t size) : data_(data), size_(size) {}
    // A span of T converts to a span of const T.
    template <class U>
    CA_HD Span(const Span<U>& other) : data_(other.data()), size_(other.size()) {}
    template <class U>
    Span(std::vector<U>& v) : data_(v.data()), size_(v.size()) {}
    template <class U>
    Span(const std::vector<U>& v) : data_(v.data()), size_(v.size()) {}

    CA_HD T* data() const { return data_; }
    CA_HD size_t size() const { return size_; }
    CA_HD bool empty() const { return size_ == 0; }
    CA_HD T& operator[](size_t i) const { return data_[i]; }
    CA_HD T* begin() const { return data_; }
    CA_HD T* end() const { return data_ + size_; }
    CA_HD Span subspan(size_t offset, size_t count) const { return Span(data_ + offset, count); }
    CA_HD Span first(size_t count) const { return Span(data_, count); }

private:
    T* data_ = nullptr;
    size_t size_ = 0;
};

}  // namespace caustica
