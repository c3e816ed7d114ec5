// The table file's fixed header: field offsets, encoding and validation (docs/formats/table.md).
// Shared by the writer and the reader; not part of the public API.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "chess/result.h"
#include "formats/table_file.h"

namespace tbkit::formats::layout {

inline constexpr std::array<std::byte, 8> kMagic = {std::byte{'T'}, std::byte{'B'}, std::byte{'K'}, std::byte{'D'},
                                                    std::byte{'T'}, std::byte{'M'}, std::byte{0x0D}, std::byte{0x0A}};
inline constexpr std::uint32_t kVersion = 4;        // newest written and read
inline constexpr std::uint32_t kOldestVersion = 1;  // oldest still read
inline constexpr std::uint32_t kHeaderSize = 128;
inline constexpr std::uint32_t kValueEncodingDtm16 = 1;  // DtmValue raw values, moves to mate
inline constexpr std::uint32_t kValueEncodingResolved = 2;  // version 3: capture-resolved DtmValues
inline constexpr std::uint8_t kChecksumCrc32c = 1;
inline constexpr std::uint8_t kCodecZstd = 1;   // version 2 `codec`; version 1 files are all zstd
inline constexpr std::uint8_t kCodecLzma2 = 2;
inline constexpr std::uint8_t kCodecStatic = 3;  // version 4 only: pair symbols + canonical Huffman
inline constexpr std::size_t kIndexEntrySize = 16;  // u64 offset, u32 compressed size, u32 CRC-32C
inline constexpr std::size_t kMaterialField = 16;
inline constexpr std::size_t kGeneratorField = 32;
inline constexpr std::uint32_t kMaxBlockBytes = 4U << 20;
inline constexpr std::uint32_t kMinBlockBytes = 256;
inline constexpr std::uint32_t kMaxDictionaryBytes = 4U << 20;
inline constexpr std::uint64_t kMaxPositionsPerSide = std::uint64_t{1} << 40;

// Field offsets in the fixed header.
inline constexpr std::size_t kOffMagic = 0;
inline constexpr std::size_t kOffVersion = 8;
inline constexpr std::size_t kOffHeaderSize = 12;
inline constexpr std::size_t kOffMaterial = 16;
inline constexpr std::size_t kOffGenerator = 32;
inline constexpr std::size_t kOffCreated = 64;
inline constexpr std::size_t kOffPositions = 72;
inline constexpr std::size_t kOffFileSize = 80;
inline constexpr std::size_t kOffIndexScheme = 88;
inline constexpr std::size_t kOffValueEncoding = 92;
inline constexpr std::size_t kOffBlockValues = 96;
inline constexpr std::size_t kOffSymbolCount = 100;
inline constexpr std::size_t kOffSymbolWidth = 104;
inline constexpr std::size_t kOffChecksumType = 105;
inline constexpr std::size_t kOffCodec = 106;     // version 2; part of `reserved` (zero) in version 1
inline constexpr std::size_t kOffReserved = 107;  // version 2: one zero byte (version 1: two, 106..107)
inline constexpr std::size_t kOffStoredSide = 107;  // version 3: 0 = white to move stored, 1 = black
inline constexpr std::size_t kOffDictionarySize = 108;
inline constexpr std::size_t kOffBlockCount = 112;
inline constexpr std::size_t kOffMetadataChecksum = 120;
inline constexpr std::size_t kOffHeaderChecksum = 124;

struct Header {
  TableInfo info;
  std::uint32_t version = kVersion;
  std::uint8_t codec = kCodecZstd;
  std::uint32_t value_encoding = kValueEncodingDtm16;
  std::uint8_t stored_side = 0;     // version 3: index_of(Color) of the one stored side
  std::uint64_t file_size = 0;
  std::uint32_t block_values = 0;   // values per block (the last block of a side may hold fewer); version 4: bytes per block
  std::uint32_t symbol_count = 0;
  std::uint8_t symbol_width = 1;    // bytes per symbol: 1 or 2
  std::uint32_t dictionary_size = 0;  // version 4: model_size, the bytes from the symbol table's end to the data
  std::uint64_t block_count = 0;    // sides() * blocks_per_side(); version 4: compressed blocks
  std::uint32_t metadata_checksum = 0;

  [[nodiscard]] std::uint64_t blocks_per_side() const {
    return (info.positions_per_side + block_values - 1) / block_values;
  }
  [[nodiscard]] int sides() const { return version >= 3 ? 1 : 2; }
  // The side to move of block b's values.
  [[nodiscard]] int block_side(std::uint64_t block) const {
    return version >= 3 ? stored_side : int(block / blocks_per_side());
  }
  [[nodiscard]] std::uint64_t symbol_table_offset() const { return kHeaderSize; }
  [[nodiscard]] std::uint64_t dictionary_offset() const { return kHeaderSize + 2ULL * symbol_count; }
  [[nodiscard]] std::uint64_t index_offset() const { return dictionary_offset() + dictionary_size; }
  [[nodiscard]] std::uint64_t data_offset() const {
    return version >= 4 ? index_offset() : index_offset() + kIndexEntrySize * block_count;
  }
  // The largest compressed size a block of this file may have.
  [[nodiscard]] std::uint64_t max_block_size() const;
};

// Checks material and generator strings; the message names the field.
[[nodiscard]] Status check_info(const TableInfo& info);

// The 128 header bytes, header checksum included.
[[nodiscard]] std::array<std::byte, kHeaderSize> encode_header(const Header& h);

// Validates the fixed header of a file image of `actual_size` bytes (bytes holds at least the
// first min(actual_size, kHeaderSize) bytes): magic, version, header checksum, every field, and the
// declared file size against the actual one. Errors (kCorrupt, kVersion) name `name`, offset, field.
[[nodiscard]] Result<Header> decode_header(std::span<const std::byte> bytes, std::uint64_t actual_size,
                                           const std::string& name);

// "<name>: offset <offset> (<field>): <problem>"
[[nodiscard]] Error corrupt(const std::string& name, std::uint64_t offset, const char* field, const std::string& problem);

}  // namespace tbkit::formats::layout
