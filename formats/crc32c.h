// CRC-32C (Castagnoli), the checksum of table files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace tbkit::formats {

// CRC-32C of the bytes, continuing from `crc` (the CRC of the bytes before; 0 to start).
// Check value: crc32c("123456789") == 0xE3069283. Thread-safe. Uses the CPU's CRC32 instruction
// (SSE4.2) where it has one, else crc32c_portable.
[[nodiscard]] std::uint32_t crc32c(std::span<const std::byte> bytes, std::uint32_t crc = 0);
// The same by lookup tables (slicing by 8), on any CPU.
[[nodiscard]] std::uint32_t crc32c_portable(std::span<const std::byte> bytes, std::uint32_t crc = 0);
// Whether crc32c uses the CPU's instruction here.
[[nodiscard]] bool crc32c_hardware_available();

}  // namespace tbkit::formats
