// Table file format version 4: one side to move coded with one per-table static model (pair
// symbols and a canonical Huffman code, the Syzygy writer's core) in blocks of a few tens of bytes,
// decoded in place from the file's bytes (docs/formats/table.md, "Format version 4"). Internal to
// formats/: table_writer.cpp writes through encode_static_table, table_reader.cpp reads through
// StaticTable.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "chess/result.h"
#include "formats/large_allocator.h"
#include "formats/pair_decoder.h"
#include "formats/table_file.h"
#include "formats/table_layout.h"

namespace tbkit::formats::static_codec {

inline constexpr std::uint32_t kMinBlockBytes = 32;
inline constexpr std::uint32_t kMaxBlockBytes = 65536;
inline constexpr std::uint32_t kChunkBytes = 4096;     // data bytes per checksum (or one block, if larger)
inline constexpr std::uint32_t kMaxSymbols = 3072;     // distinct stored values (leaves of the pair tree)
inline constexpr std::uint32_t kNominalReadValues = 65536;  // TableFile::values_per_block() of a version-4 file

// The stored values of one side after the writer's choices: each free slot filled (FillMode::kPrevious's
// rule over the whole table: a free slot repeats the previous stored value, a kNoBetter slot repeats it
// when that is no better than its own), then numbered by decreasing frequency (ties: lower raw value).
struct FilledValues {
  std::vector<DtmValue> symbols;  // code -> value
  std::vector<std::uint16_t, LargeAllocator<std::uint16_t>> codes;  // per slot, on huge pages
};
[[nodiscard]] FilledValues fill_and_number(std::span<const DtmValue> values, std::span<const SlotFreedom> freedom);

// The whole version-4 file of one side (header, symbol table, model, block tables, checksums,
// blocks), blocks of at most options.static_block_bytes (smaller where the file is smaller). Output is a function of the arguments only.
// Errors: kInvalidArgument (info fields, sizes, a block size that is no power of two in 32..65536,
// more than kMaxSymbols distinct values).
[[nodiscard]] Result<std::vector<std::byte>> encode_static_table(const TableInfo& info, const OneSide& side,
                                                                 const TableWriteOptions& options);

// A version-4 file's model and block tables, validated; decoding reads the file's bytes in place.
// Thread-safe: the only mutable state is a bitmap of data chunks whose checksum was checked (atomic,
// set once), so a damaged chunk is reported before any value is read from it.
class StaticTable {
 public:
  // Validates everything after the header (whose metadata checksum the caller has checked): the
  // model record, sparse index, block lengths, chunk checksums and their sizes against the header.
  // Errors: kCorrupt naming `name` and the offset.
  [[nodiscard]] static Result<StaticTable> parse(std::span<const std::byte> file, const layout::Header& h,
                                                 const std::string& name);

  // The symbol code stored at slot `slot` (< positions_per_side). Checks the chunk's checksum the first
  // time it is read. No allocation and no lock unless an error is reported. Errors: kCorrupt.
  [[nodiscard]] Result<std::uint16_t> code_at(std::span<const std::byte> file, std::uint64_t slot) const;
  // The codes of slots [first, first + count), each block decoded once. Errors: kCorrupt.
  [[nodiscard]] Status codes(std::span<const std::byte> file, std::uint64_t first, std::uint64_t count,
                             std::vector<std::uint16_t>& out) const;
  // Every chunk checksum, and every block decodes to its length. Errors: kCorrupt.
  [[nodiscard]] Status verify(std::span<const std::byte> file) const;
  // The checksum of the chunk holding block `block`. Errors: kInvalidArgument (no such block), kCorrupt.
  [[nodiscard]] Status check_block(std::span<const std::byte> file, std::uint64_t block) const;

  [[nodiscard]] std::uint32_t block_count() const { return code_.block_count; }

 private:
  [[nodiscard]] Status check_chunk(std::span<const std::byte> file, std::uint64_t chunk) const;

  syzygy::SubtableLayout code_;
  std::string name_;
  std::uint64_t chunk_sums_ = 0;     // file offset of the u32 chunk checksums
  std::uint64_t chunk_count_ = 0;
  std::uint32_t blocks_per_chunk_ = 1;
  std::unique_ptr<std::atomic<std::uint64_t>[]> checked_;  // one bit per chunk
};

}  // namespace tbkit::formats::static_codec
