// Memory for big buffers (the book builder's hash tables and runs, book lookup indexes, the Syzygy
// writer's codes and value streams, the DTM solver's states). Blocks of 1 MiB or more come straight
// from mmap, huge-page aligned and marked for transparent huge pages, so a fresh 160 MB table costs
// 80 page faults instead of 40,000 (page faults dominated the build's system time on a virtual
// machine), and its zero fill is the kernel's, paid only for pages touched.
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>

namespace tbkit::formats {

namespace detail {

inline constexpr std::size_t kLargeBlock = std::size_t{1} << 20;
inline constexpr std::size_t kHugePage = std::size_t{2} << 20;

[[nodiscard]] inline std::size_t mapped_size(std::size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }

}  // namespace detail

// Asks for transparent huge pages on the whole 2 MiB pages inside [p, p + bytes). Advice only: a
// kernel without THP ignores it.
inline void advise_huge_pages(void* p, std::size_t bytes) {
#ifdef MADV_HUGEPAGE
  const auto start = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t first = (start + detail::kHugePage - 1) / detail::kHugePage * detail::kHugePage;
  const std::uintptr_t last = (start + bytes) / detail::kHugePage * detail::kHugePage;
  if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

namespace detail {

// Zeroed memory: calloc below kLargeBlock, else an anonymous mapping. Throws std::bad_alloc.
[[nodiscard]] inline void* allocate_zeroed(std::size_t bytes) {
  if (bytes < kLargeBlock) {
    void* p = std::calloc(bytes == 0 ? 1 : bytes, 1);
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }
  // Map a huge page more than needed and trim both ends, so the block is huge-page aligned.
  const std::size_t size = mapped_size(bytes);
  void* raw = ::mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  auto* base = static_cast<char*>(raw);
  const std::size_t head = (kHugePage - reinterpret_cast<std::uintptr_t>(base) % kHugePage) % kHugePage;
  if (head > 0) ::munmap(base, head);
  ::munmap(base + head + size, kHugePage - head);
  advise_huge_pages(base + head, size);
  return base + head;
}

inline void free_zeroed(void* p, std::size_t bytes) noexcept {
  if (p == nullptr) return;
  if (bytes < kLargeBlock) std::free(p);
  else ::munmap(p, mapped_size(bytes));
}

}  // namespace detail

// A std::allocator replacement backed by allocate_zeroed (the zeroing of small blocks is wasted,
// but they are rare here).
template <class T>
class LargeAllocator {
 public:
  using value_type = T;
  LargeAllocator() noexcept = default;
  template <class U>
  LargeAllocator(const LargeAllocator<U>& /*other*/) noexcept {}  // allocators convert implicitly

  [[nodiscard]] T* allocate(std::size_t n) { return static_cast<T*>(detail::allocate_zeroed(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { detail::free_zeroed(p, n * sizeof(T)); }
  template <class U>
  friend bool operator==(const LargeAllocator&, const LargeAllocator<U>&) noexcept {
    return true;
  }
};

// A fixed-size array of trivially copyable T, all bytes zero at the start (no memset: fresh pages
// come zeroed). Move-only.
template <class T>
class ZeroedArray {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  ZeroedArray() = default;
  explicit ZeroedArray(std::size_t size)
      : data_(static_cast<T*>(detail::allocate_zeroed(size * sizeof(T)))), size_(size) {}
  ZeroedArray(ZeroedArray&& o) noexcept : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  ZeroedArray& operator=(ZeroedArray&& o) noexcept {
    if (this != &o) {
      detail::free_zeroed(data_, size_ * sizeof(T));
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  ZeroedArray(const ZeroedArray&) = delete;
  ZeroedArray& operator=(const ZeroedArray&) = delete;
  ~ZeroedArray() { detail::free_zeroed(data_, size_ * sizeof(T)); }

  [[nodiscard]] T* data() { return data_; }
  [[nodiscard]] const T* data() const { return data_; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] T& operator[](std::size_t i) { return data_[i]; }
  [[nodiscard]] const T& operator[](std::size_t i) const { return data_[i]; }
  // Frees the memory; the array is then empty.
  void reset() { *this = ZeroedArray(); }
  // Hands the 4 KiB pages wholly inside elements [first, last) back to the system (a mapped block:
  // 1 MiB or more); they read as zero afterwards. For the parts of a big array a pass is done with.
  void release(std::size_t first, std::size_t last) {
    if (size_ * sizeof(T) < detail::kLargeBlock || first >= last) return;
    constexpr std::uintptr_t kPage = 4096;
    const std::uintptr_t from = (reinterpret_cast<std::uintptr_t>(data_ + first) + kPage - 1) / kPage * kPage;
    const std::uintptr_t to = reinterpret_cast<std::uintptr_t>(data_ + last) / kPage * kPage;
    if (to > from) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
  }
  friend bool operator==(const ZeroedArray& a, const ZeroedArray& b) {
    return a.size_ == b.size_ && std::equal(a.data_, a.data_ + a.size_, b.data_);
  }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace tbkit::formats
