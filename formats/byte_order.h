// Little-endian loads and stores on byte buffers (file formats are little-endian).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace tbkit::formats {

// One unaligned load on a little-endian host (GCC 12 did not merge the big-endian byte loop below
// into one load in the Syzygy decoder; the little-endian one is loaded the same way).
template <class T>
[[nodiscard]] constexpr T load_le(const std::byte* p) {
  if constexpr (std::endian::native == std::endian::little) {
    if (!std::is_constant_evaluated()) {
      T v;
      std::memcpy(&v, p, sizeof(T));
      return v;
    }
  }
  T v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) v = T(v | T(T(std::uint8_t(p[i])) << (8 * i)));
  return v;
}

// The value's bytes from the most significant: file formats that read bit streams (Syzygy's blocks).
template <class T>
[[nodiscard]] constexpr T load_be(const std::byte* p) {
  if constexpr (std::endian::native == std::endian::little && sizeof(T) > 1) {
    if (!std::is_constant_evaluated()) {
      T v;
      std::memcpy(&v, p, sizeof(T));
      if constexpr (sizeof(T) == 8) return T(__builtin_bswap64(std::uint64_t(v)));
      if constexpr (sizeof(T) == 4) return T(__builtin_bswap32(std::uint32_t(v)));
      if constexpr (sizeof(T) == 2) return T(__builtin_bswap16(std::uint16_t(v)));
    }
  }
  T v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) v = T((v << 8) | T(std::uint8_t(p[i])));
  return v;
}

template <class T>
constexpr void store_be(std::byte* p, T v) {
  for (std::size_t i = sizeof(T); i-- > 0; v = T(std::uint64_t(v) >> 8)) p[i] = std::byte(std::uint8_t(v));
}

template <class T>
constexpr void store_le(std::byte* p, T v) {
  for (std::size_t i = 0; i < sizeof(T); ++i) p[i] = std::byte(std::uint8_t(std::uint64_t(v) >> (8 * i)));
}

}  // namespace tbkit::formats
