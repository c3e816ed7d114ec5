// ZeroedArray (formats/large_allocator.h): zeroed at the start, pages handed back by release() read
// as zero while the rest keeps its values, and reset() frees the array.
#include <catch2/catch.hpp>

#include <cstdint>

#include "formats/large_allocator.h"

namespace {

using tbkit::formats::ZeroedArray;

}  // namespace

TEST_CASE("ZeroedArray: a mapped block starts zeroed, and release zeroes its whole pages only", "[formats][memory]") {
  constexpr std::size_t kPage = 4096 / sizeof(std::uint32_t);  // elements per 4 KiB page
  ZeroedArray<std::uint32_t> a(std::size_t{3} << 18);           // 3 MiB: a mapped block
  const auto base = reinterpret_cast<std::uintptr_t>(a.data());
  REQUIRE(base % 4096 == 0);
  std::uint64_t nonzero = 0;
  for (std::size_t i = 0; i < a.size(); ++i) nonzero += a[i] != 0;
  CHECK(nonzero == 0);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = std::uint32_t(i) | 1;
  // Slots from the middle of page 10 to the middle of page 20: pages 11..19 go back.
  const std::size_t first = 10 * kPage + 7, last = 20 * kPage + 3;
  a.release(first, last);
  std::uint64_t zeroed = 0, kept = 0, wrong = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const bool inside = i >= 11 * kPage && i < 20 * kPage;
    if (inside) zeroed += a[i] == 0;
    else kept += a[i] == (std::uint32_t(i) | 1);
    wrong += inside ? a[i] != 0 : a[i] != (std::uint32_t(i) | 1);
  }
  CHECK(wrong == 0);
  CHECK(zeroed == 9 * kPage);
  CHECK(kept == a.size() - 9 * kPage);
  a.reset();
  CHECK(a.empty());
  CHECK(a.data() == nullptr);
}

TEST_CASE("ZeroedArray: a small block keeps its values through release", "[formats][memory]") {
  ZeroedArray<std::uint8_t> a(10000);  // under 1 MiB: from calloc, not mapped
  std::uint64_t nonzero = 0;
  for (std::size_t i = 0; i < a.size(); ++i) nonzero += a[i] != 0;
  CHECK(nonzero == 0);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = std::uint8_t(i % 251 + 1);
  a.release(0, a.size());
  std::uint64_t kept = 0;
  for (std::size_t i = 0; i < a.size(); ++i) kept += a[i] == std::uint8_t(i % 251 + 1);
  CHECK(kept == a.size());
}
