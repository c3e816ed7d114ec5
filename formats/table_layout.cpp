#include "formats/table_layout.h"

#include <algorithm>
#include <cstring>

#include "formats/byte_order.h"
#include "formats/crc32c.h"
#include "formats/lzma_block.h"

#include <zstd.h>

namespace tbkit::formats::layout {
namespace {

bool is_material_text(std::string_view s) {
  if (s.empty() || s.size() >= kMaterialField || std::count(s.begin(), s.end(), 'v') != 1) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::string_view("KQRBNPv").find(c) != std::string_view::npos; });
}

bool is_generator_text(std::string_view s) {
  return s.size() < kGeneratorField && std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c <= 0x7E; });
}

// A NUL-padded text field: the text, then only NULs.
std::string read_text(std::span<const std::byte> field, bool& padded_with_zeros) {
  std::string s;
  std::size_t i = 0;
  while (i < field.size() && field[i] != std::byte{0}) s.push_back(char(field[i++]));
  padded_with_zeros = std::all_of(field.begin() + std::ptrdiff_t(i), field.end(), [](std::byte b) { return b == std::byte{0}; });
  return s;
}

}  // namespace

Error corrupt(const std::string& name, std::uint64_t offset, const char* field, const std::string& problem) {
  return make_error(ErrorCode::kCorrupt, name + ": offset " + std::to_string(offset) + " (" + field + "): " + problem);
}

std::uint64_t Header::max_block_size() const {
  const std::size_t raw = std::size_t(block_values) * symbol_width;
  return codec == kCodecLzma2 ? lzma_block_bound(raw) : ZSTD_compressBound(raw);
}

Status check_info(const TableInfo& info) {
  if (!is_material_text(info.material))
    return make_error(ErrorCode::kInvalidArgument,
                      "table info: material '" + info.material + "' must be 1-15 characters of KQRBNP with one 'v'");
  if (!is_generator_text(info.generator))
    return make_error(ErrorCode::kInvalidArgument, "table info: generator must be at most 31 printable ASCII characters");
  if (info.positions_per_side == 0 || info.positions_per_side > kMaxPositionsPerSide)
    return make_error(ErrorCode::kInvalidArgument, "table info: positions_per_side must be 1..2^40");
  return {};
}

std::array<std::byte, kHeaderSize> encode_header(const Header& h) {
  std::array<std::byte, kHeaderSize> b{};
  std::copy(kMagic.begin(), kMagic.end(), b.begin());
  store_le<std::uint32_t>(&b[kOffVersion], h.version);
  store_le<std::uint32_t>(&b[kOffHeaderSize], kHeaderSize);
  std::memcpy(&b[kOffMaterial], h.info.material.data(), h.info.material.size());
  std::memcpy(&b[kOffGenerator], h.info.generator.data(), h.info.generator.size());
  store_le<std::int64_t>(&b[kOffCreated], h.info.created);
  store_le<std::uint64_t>(&b[kOffPositions], h.info.positions_per_side);
  store_le<std::uint64_t>(&b[kOffFileSize], h.file_size);
  store_le<std::uint32_t>(&b[kOffIndexScheme], h.info.index_scheme);
  store_le<std::uint32_t>(&b[kOffValueEncoding], h.value_encoding);
  store_le<std::uint32_t>(&b[kOffBlockValues], h.block_values);
  store_le<std::uint32_t>(&b[kOffSymbolCount], h.symbol_count);
  b[kOffSymbolWidth] = std::byte{h.symbol_width};
  b[kOffChecksumType] = std::byte{kChecksumCrc32c};
  if (h.version >= 2) b[kOffCodec] = std::byte{h.codec};
  if (h.version >= 3) b[kOffStoredSide] = std::byte{h.stored_side};
  store_le<std::uint32_t>(&b[kOffDictionarySize], h.dictionary_size);
  store_le<std::uint64_t>(&b[kOffBlockCount], h.block_count);
  store_le<std::uint32_t>(&b[kOffMetadataChecksum], h.metadata_checksum);
  store_le<std::uint32_t>(&b[kOffHeaderChecksum], crc32c(std::span(b).first(kOffHeaderChecksum)));
  return b;
}

Result<Header> decode_header(std::span<const std::byte> bytes, std::uint64_t actual_size, const std::string& name) {
  if (actual_size < kHeaderSize)
    return corrupt(name, actual_size, "header",
                   "truncated: file has " + std::to_string(actual_size) + " bytes, the header needs " +
                       std::to_string(kHeaderSize));
  const std::byte* p = bytes.data();
  if (!std::equal(kMagic.begin(), kMagic.end(), p)) return corrupt(name, kOffMagic, "magic", "not a tbkit table file");
  const auto version = load_le<std::uint32_t>(p + kOffVersion);
  if (version < kOldestVersion || version > kVersion)
    return make_error(ErrorCode::kVersion, name + ": offset 8 (version): unsupported format version " +
                                               std::to_string(version) + " (this reader supports " +
                                               std::to_string(kOldestVersion) + " to " + std::to_string(kVersion) + ")");
  const auto stored_crc = load_le<std::uint32_t>(p + kOffHeaderChecksum);
  const auto actual_crc = crc32c(bytes.first(kOffHeaderChecksum));
  if (stored_crc != actual_crc) return corrupt(name, kOffHeaderChecksum, "header_checksum", "header checksum mismatch");

  Header h;
  h.version = version;
  if (load_le<std::uint32_t>(p + kOffHeaderSize) != kHeaderSize)
    return corrupt(name, kOffHeaderSize, "header_size", "must be 128");
  bool padded = false;
  h.info.material = read_text(bytes.subspan(kOffMaterial, kMaterialField), padded);
  if (!padded || !is_material_text(h.info.material)) return corrupt(name, kOffMaterial, "material", "invalid material");
  h.info.generator = read_text(bytes.subspan(kOffGenerator, kGeneratorField), padded);
  if (!padded || !is_generator_text(h.info.generator)) return corrupt(name, kOffGenerator, "generator", "invalid text");
  h.info.created = load_le<std::int64_t>(p + kOffCreated);
  h.info.positions_per_side = load_le<std::uint64_t>(p + kOffPositions);
  if (h.info.positions_per_side == 0 || h.info.positions_per_side > kMaxPositionsPerSide)
    return corrupt(name, kOffPositions, "positions_per_side", "must be 1..2^40");
  h.info.index_scheme = load_le<std::uint32_t>(p + kOffIndexScheme);
  h.value_encoding = load_le<std::uint32_t>(p + kOffValueEncoding);
  if (h.value_encoding != kValueEncodingDtm16 && (version < 3 || h.value_encoding != kValueEncodingResolved))
    return corrupt(name, kOffValueEncoding, "value_encoding", "unknown value encoding");
  h.symbol_count = load_le<std::uint32_t>(p + kOffSymbolCount);
  if (h.symbol_count == 0 || h.symbol_count > 65536) return corrupt(name, kOffSymbolCount, "symbol_count", "must be 1..65536");
  h.symbol_width = std::uint8_t(p[kOffSymbolWidth]);
  if (h.symbol_width != 1 && h.symbol_width != 2) return corrupt(name, kOffSymbolWidth, "symbol_width", "must be 1 or 2");
  if (h.symbol_width == 1 && h.symbol_count > 256)
    return corrupt(name, kOffSymbolWidth, "symbol_width", "8-bit symbols cannot code more than 256 values");
  h.block_values = load_le<std::uint32_t>(p + kOffBlockValues);
  if (version >= 4) {
    if (h.block_values < 32 || h.block_values > 65536 || (h.block_values & (h.block_values - 1)) != 0)
      return corrupt(name, kOffBlockValues, "block_values", "version 4: block bytes must be a power of two in 32..65536");
    if (h.symbol_width != 2) return corrupt(name, kOffSymbolWidth, "symbol_width", "version 4: must be 2");
  } else if (h.block_values == 0 || std::uint64_t{h.block_values} * h.symbol_width > kMaxBlockBytes ||
      std::uint64_t{h.block_values} * h.symbol_width < kMinBlockBytes)
    return corrupt(name, kOffBlockValues, "block_values", "block size must be 256 bytes..4 MiB");
  if (std::uint8_t(p[kOffChecksumType]) != kChecksumCrc32c)
    return corrupt(name, kOffChecksumType, "checksum_type", "unknown checksum type");
  if (version == 1) {
    if (load_le<std::uint16_t>(p + kOffCodec) != 0) return corrupt(name, kOffCodec, "reserved", "must be zero");
    h.codec = kCodecZstd;
  } else {
    h.codec = std::uint8_t(p[kOffCodec]);
    if (version >= 4 ? h.codec != kCodecStatic : h.codec != kCodecZstd && h.codec != kCodecLzma2)
      return corrupt(name, kOffCodec, "codec", "unknown block codec");
    if (version == 2 && p[kOffReserved] != std::byte{0}) return corrupt(name, kOffReserved, "reserved", "must be zero");
    if (version >= 3) {
      h.stored_side = std::uint8_t(p[kOffStoredSide]);
      if (h.stored_side > 1) return corrupt(name, kOffStoredSide, "stored_side", "must be 0 (white) or 1 (black)");
    }
  }
  h.dictionary_size = load_le<std::uint32_t>(p + kOffDictionarySize);
  const auto check_file_size = [&]() -> Status {
    if (h.file_size != actual_size)
      return corrupt(name, kOffFileSize, "file_size",
                     std::string(actual_size < h.file_size ? "truncated" : "trailing bytes") + ": file has " +
                         std::to_string(actual_size) + " bytes, header says " + std::to_string(h.file_size));
    return {};
  };
  if (version >= 4) {
    h.block_count = load_le<std::uint64_t>(p + kOffBlockCount);
    h.metadata_checksum = load_le<std::uint32_t>(p + kOffMetadataChecksum);
    h.file_size = load_le<std::uint64_t>(p + kOffFileSize);
    if (auto st = check_file_size(); !st) return st.error();
    if (h.block_count == 0 || h.block_count > (std::uint64_t{1} << 32) ||
        h.data_offset() + h.block_count * h.block_values != h.file_size)
      return corrupt(name, kOffBlockCount, "block_count",
                     "symbol table, model (" + std::to_string(h.dictionary_size) + " bytes) and " +
                         std::to_string(h.block_count) + " blocks of " + std::to_string(h.block_values) +
                         " bytes do not make the file size");
    return h;
  }
  if (h.dictionary_size > kMaxDictionaryBytes) return corrupt(name, kOffDictionarySize, "dictionary_size", "over 4 MiB");
  if (h.dictionary_size > 0 && h.codec != kCodecZstd)
    return corrupt(name, kOffDictionarySize, "dictionary_size", "a dictionary needs the zstd codec");
  h.block_count = load_le<std::uint64_t>(p + kOffBlockCount);
  if (h.block_count != std::uint64_t(h.sides()) * h.blocks_per_side())
    return corrupt(name, kOffBlockCount, "block_count",
                   "is " + std::to_string(h.block_count) + ", positions and block size give " +
                       std::to_string(std::uint64_t(h.sides()) * h.blocks_per_side()));
  h.metadata_checksum = load_le<std::uint32_t>(p + kOffMetadataChecksum);
  h.file_size = load_le<std::uint64_t>(p + kOffFileSize);
  if (auto st = check_file_size(); !st) return st.error();
  // Every block holds at least one byte.
  if (h.data_offset() + h.block_count > h.file_size)
    return corrupt(name, kOffFileSize, "file_size", "too small for the symbol table, dictionary and block index");
  return h;
}

}  // namespace tbkit::formats::layout
