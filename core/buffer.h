// An owning array on the host or the CUDA device that grows by doubling and is reused: once a
// frame's sizes have been seen, resizing allocates nothing.
#pragma once

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "core/backend.h"
#include "core/memory.h"
#include "core/span.h"

namespace caustica {

// The memory where the backend's passes read and write.
inline MemorySpace SpaceOf(const Backend& backend) {
    return backend.IsGpu() ? MemorySpace::Device : MemorySpace::Host;
}

// Room for n items and an eighth more, for lists that grow a step at a time (a kd-tree build's
// levels), where doubling left up to half of a large build's memory unused.
inline size_t WithAnEighthMore(size_t n) { return n + n / 8; }

template <class T>
class Buffer {
public:
    Buffer() = default;
    explicit Buffer(MemorySpace space) : space_(space) {}
    explicit Buffer(const Backend& backend) : space_(SpaceOf(backend)) {}
    Buffer(const Backend& backend, size_t size) : Buffer(backend) { Resize(size); }

    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    Buffer(Buffer&& o) noexcept { Swap(o); }
    Buffer& operator=(Buffer&& o) noexcept {
        Swap(o);
        return *this;
    }
    ~Buffer() { FreeBytes(space_, data_); }

    void Swap(Buffer& o) noexcept {
        std::swap(space_, o.space_);
        std::swap(data_, o.data_);
        std::swap(size_, o.size_);
        std::swap(capacity_, o.capacity_);
    }

    // Sets the size. Growing past the capacity reallocates to max(size, 2 * capacity) and keeps
    // the first size() items when keep_contents is true.
    void Resize(size_t size, bool keep_contents = true) {
        if (size > capacity_) Reserve(std::max(size, 2 * capacity_), keep_contents);
        size_ = size;
    }
    // Makes room for at least capacity items without changing the size; reallocates to exactly
    // that many where there is less (for lists whose growth the caller paces itself).
    void Reserve(size_t capacity, bool keep_contents = true) {
        if (capacity <= capacity_) return;
        T* data = static_cast<T*>(AllocateBytes(space_, capacity * sizeof(T)));
        if (keep_contents && size_ > 0) CopyBytes(data, space_, data_, space_, size_ * sizeof(T));
        FreeBytes(space_, data_);
        data_ = data;
        capacity_ = capacity;
    }

    // Copies host items in, resizing to their count.
    void Upload(Span<const T> items) {
        Resize(items.size(), false);
        if (!items.empty()) CopyBytes(data_, space_, items.data(), MemorySpace::Host, items.size() * sizeof(T));
    }
    std::vector<T> Download() const {
        std::vector<T> out(size_);
        if (size_ > 0) CopyBytes(out.data(), MemorySpace::Host, data_, space_, size_ * sizeof(T));
        return out;
    }
    // Sets every byte of every item (0 clears integers and floats; 0xff makes integers all ones).
    void FillBytes(int byte_value) {
        if (size_ > 0) caustica::FillBytes(space_, data_, byte_value, size_ * sizeof(T));
    }

    Span<T> span() { return Span<T>(data_, size_); }
    Span<const T> span() const { return Span<const T>(data_, size_); }
    T* data() { return data_; }
    const T* data() const { return data_; }
    size_t size() const { return size_; }
    size_t capacity() const { return capacity_; }
    bool empty() const { return size_ == 0; }
    MemorySpace space() const { return space_; }

private:
    MemorySpace space_ = MemorySpace::Host;
    T* data_ = nullptr;
    size_t size_ = 0;
    size_t capacity_ = 0;
};

}  // namespace caustica
