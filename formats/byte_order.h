// Little-endian loads and stores on byte buffers (file formats are little-endian).
#pragma once

#include <cstddef>
#include <cstdint>

namespace tbkit::formats {

template <class T>
[[nodiscard]] constexpr T load_le(const std::byte* p) {
  T v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) v = T(v | T(T(std::uint8_t(p[i])) << (8 * i)));
  return v;
}

template <class T>
constexpr void store_le(std::byte* p, T v) {
  for (std::size_t i = 0; i < sizeof(T); ++i) p[i] = std::byte(std::uint8_t(std::uint64_t(v) >> (8 * i)));
}

}  // namespace tbkit::formats
