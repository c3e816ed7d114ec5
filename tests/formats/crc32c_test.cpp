// CRC-32C: the published check value, and the CPU's instruction against the lookup tables.
#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <random>
#include <string_view>
#include <vector>

#include "formats/crc32c.h"

using tbkit::formats::crc32c;
using tbkit::formats::crc32c_portable;

namespace {

std::span<const std::byte> bytes_of(std::string_view s) { return std::as_bytes(std::span(s.data(), s.size())); }

}  // namespace

TEST_CASE("crc32c: check values", "[formats][crc32c]") {
  // The CRC catalogue's check value for CRC-32C, and RFC 3720's 32 zero bytes and 32 0xFF bytes.
  CHECK(crc32c(bytes_of("123456789")) == 0xE3069283U);
  CHECK(crc32c_portable(bytes_of("123456789")) == 0xE3069283U);
  const std::vector<std::byte> zeros(32, std::byte{0}), ones(32, std::byte{0xFF});
  CHECK(crc32c(zeros) == 0x8A9136AAU);
  CHECK(crc32c(ones) == 0x62A8AB43U);
  CHECK(crc32c_portable(zeros) == 0x8A9136AAU);
  CHECK(crc32c_portable(ones) == 0x62A8AB43U);
  CHECK(crc32c({}) == 0U);
}

TEST_CASE("crc32c: every length and alignment, whole or in pieces, as the tables give", "[formats][crc32c]") {
  INFO("hardware instruction used: " << tbkit::formats::crc32c_hardware_available());
  std::mt19937_64 rng(7);
  std::vector<std::byte> data(4096 + 16);
  for (auto& b : data) b = std::byte(rng() & 0xFF);
  for (std::size_t offset = 0; offset < 8; ++offset) {
    for (std::size_t length : {0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000, 4096}) {
      const std::span<const std::byte> s(data.data() + offset, length);
      const std::uint32_t whole = crc32c_portable(s);
      CHECK(crc32c(s) == whole);
      // Continued over two pieces, split anywhere.
      const std::size_t cut = length / 3;
      CHECK(crc32c(s.subspan(cut), crc32c(s.first(cut))) == whole);
    }
  }
}
