// HugeArray: a large uninitialised array mapped directly from the system, on transparent huge pages.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tbkit::gen {

// An uninitialised array of n T, on transparent huge pages where the system offers them: the
// predecessor updates hit the arrays at random, and 4 KiB pages make nearly each one a TLB miss.
// Mapped directly (not through malloc) so that freeing it returns the memory to the system.
template <class T>
class HugeArray {
 public:
  HugeArray() = default;
  explicit HugeArray(std::uint64_t n) {
    constexpr std::size_t kHuge = std::size_t{2} << 20;
    bytes_ = std::max<std::size_t>((n * sizeof(T) + kHuge - 1) / kHuge * kHuge, kHuge);
#if defined(__linux__)
    // Map one huge page more than needed and trim both ends to a 2 MiB boundary.
    void* raw = mmap(nullptr, bytes_ + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) throw std::bad_alloc();
    const auto start = reinterpret_cast<std::uintptr_t>(raw);
    const std::uintptr_t aligned = (start + kHuge - 1) / kHuge * kHuge;
    if (aligned > start) munmap(raw, aligned - start);
    if (const std::uintptr_t tail = start + bytes_ + kHuge - (aligned + bytes_); tail > 0)
      munmap(reinterpret_cast<void*>(aligned + bytes_), tail);
    data_ = reinterpret_cast<T*>(aligned);
    madvise(data_, bytes_, MADV_HUGEPAGE);  // advice only: without it the arrays are merely slower
#else
    data_ = static_cast<T*>(::operator new(bytes_));
#endif
  }
  HugeArray(const HugeArray&) = delete;
  HugeArray& operator=(const HugeArray&) = delete;
  HugeArray& operator=(HugeArray&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  ~HugeArray() { reset(); }
  void reset() {
    if (!data_) return;
#if defined(__linux__)
    munmap(data_, bytes_);
#else
    ::operator delete(data_);
#endif
    data_ = nullptr;
  }
  // Returns the whole pages inside slots [first, last) to the system; they read as zero afterwards.
  void release(std::uint64_t first, std::uint64_t last) {
#if defined(__linux__)
    constexpr std::uintptr_t kPage = 4096;
    const auto from = (reinterpret_cast<std::uintptr_t>(data_ + first) + kPage - 1) / kPage * kPage;
    const auto to = reinterpret_cast<std::uintptr_t>(data_ + last) / kPage * kPage;
    if (to > from) madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
#else
    (void)first;
    (void)last;
#endif
  }
  T& operator[](std::uint64_t i) { return data_[i]; }
  const T& operator[](std::uint64_t i) const { return data_[i]; }

 private:
  T* data_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace tbkit::gen
