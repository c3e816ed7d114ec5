// CRC-32C (Castagnoli), the checksum of table files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace tbkit::formats {

// CRC-32C of the bytes, continuing from `crc` (the CRC of the bytes before; 0 to start).
// Check value: crc32c("123456789") == 0xE3069283. Thread-safe (constant tables).
[[nodiscard]] std::uint32_t crc32c(std::span<const std::byte> bytes, std::uint32_t crc = 0);

}  // namespace tbkit::formats
