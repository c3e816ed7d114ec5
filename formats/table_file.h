// Table files: one material's DTM values, in independently compressed blocks with checksums
// (layout: docs/formats/table.md). Versions 1 and 2 hold both sides to move; version 3 holds one,
// optionally capture-resolved (the reader's obligations are in the doc, "Format version 3").
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "chess/result.h"
#include "chess/types.h"
#include "formats/atomic_file.h"
#include "formats/dtm_value.h"

namespace tbkit::formats {

// Descriptive header fields. material is at most 15 characters of "KQRBNPv" (e.g. "KBNvKN");
// generator at most 31 printable ASCII characters; created is Unix seconds chosen by the caller
// (0 = unknown), so identical input gives a bit-identical file.
struct TableInfo {
  std::string material;
  std::uint32_t index_scheme = 0;
  std::uint64_t positions_per_side = 0;
  std::string generator;
  std::int64_t created = 0;
};

// How symbols (the per-table codes standing for DtmValues) are numbered.
enum class SymbolOrder : std::uint8_t {
  kFrequency,   // most frequent value gets code 0 (versions 1 and 2 by default)
  kValue,       // codes in ascending raw-value order (for measurements)
  kPreference,  // codes in order of preference_of: fast losses first, draw, fast wins last
  kDefault,     // kFrequency for versions 1 and 2, kPreference for version 3
};

// How a version-3 writer chooses the symbols of free slots (illegal, and capture-resolved ones
// where a worse value is allowed). Any choice reads back the same; only the size differs.
enum class FillMode : std::uint8_t {
  kPrevious,  // repeat the previous slot's symbol where allowed (default)
  kNext,      // kPrevious, but a capture-resolved slot that cannot repeat it takes the next exact slot's
              // value if allowed (measured: -0.2%, but looser stored bounds slow the probe's pruning)
  kMatch,     // continue a copy from a fixed distance back, the distance chosen by looking ahead (measured: worse)
};

// How blocks are compressed (the file's `codec` field).
enum class BlockCodec : std::uint8_t {
  kLzma2,  // raw LZMA2 (default: smaller, slower to decode)
  kZstd,   // zstd frames (the only codec of format version 1)
  kStatic, // format version 4: one static pair + Huffman model, tiny blocks decoded in place (read only)
};

// Writer knobs; the defaults are the measured choice (docs/results.md, "Table sizes and codecs").
struct TableWriteOptions {
  std::uint32_t block_bytes = 1U << 20;  // uncompressed bytes per block, 256..4 MiB
  BlockCodec codec = BlockCodec::kLzma2;
  int compression_level = 9;             // zstd: -7..-1 (fast levels) or 1..22; LZMA2: preset 0..9
  bool lzma_extreme = false;             // LZMA2: liblzma's "extreme" preset variant
  // LZMA2 encoder overrides: the match length the encoder settles for (2..273) and the literal
  // context / position bits (0..4). 0 and -1 mean the writer's choice: the preset's for versions
  // 1 and 2; nice_len 273 and lc = lp = pb = 0 for version 3 (measured: docs/results.md, "Table sizes and codecs").
  std::uint32_t lzma_nice_len = 0;
  int lzma_lc = -1, lzma_lp = -1, lzma_pb = -1;
  std::uint32_t lzma_depth = 0;          // LZMA2 match-finder depth, 1..1000; 0 = the preset's
  // LZMA2: a table of more than lzma_large_above positions a side is coded with these nice_len,
  // depth and block size (0: block_bytes) instead of the ones above (0: no table is). Most of a
  // set's coding time is in its largest tables, most of its bytes too; "balanced" searches those
  // less deeply, and keeps their blocks at 1 MiB.
  std::uint64_t lzma_large_above = 0;
  std::uint32_t lzma_large_nice_len = 0, lzma_large_depth = 0;
  std::uint32_t lzma_large_block_bytes = 0;
  FillMode fill = FillMode::kPrevious;   // version 3: how free slots are chosen
  std::uint32_t fill_min_run = 16;       // FillMode::kMatch: shortest copy worth changing the distance
  std::uint32_t fill_lookahead = 64;     // FillMode::kMatch: slots looked ahead when choosing a distance
  std::uint32_t dictionary_bytes = 0;    // zstd only: 0 = no dictionary, else the trained dictionary's capacity
  SymbolOrder symbol_order = SymbolOrder::kDefault;
  bool fill_illegal = true;              // store illegal slots as the previous value's symbol
  bool wide_symbols = false;             // force 16-bit symbols (for measurements)
  std::uint32_t format_version = 2;      // both sides: 2, or 1 (zstd only; for golden files). OneSide: 4, else 3
  std::uint32_t static_block_bytes = 64;  // version 4: most bytes per block (a power of two, 32..65536);
                                          // smaller blocks where they make the file smaller
};

// How freely the writer may choose the stored value of one slot (format version 3).
enum class SlotFreedom : std::uint8_t {
  kExact,     // store the value as given
  kNoBetter,  // capture-resolved: any value no better for the side to move than the one given
  kAny,       // any value (checkmate, stalemate: the reader answers those without the table)
};

// The one side to move a version-3 file stores. `freedom` is empty (every legal value exact: the
// file's value_encoding is 1) or holds one entry per value (value_encoding 2, capture-resolved:
// the reader must take better_of(stored, best capture or promotion), docs/formats/table.md).
// Illegal slots (DtmValue::illegal()) are free whatever `freedom` says.
struct OneSide {
  chess::Color side = chess::Color::kWhite;
  std::span<const DtmValue> values;
  std::span<const SlotFreedom> freedom;
};

// Writes a table file: both spans hold info.positions_per_side values (DtmValue::illegal() for
// unused slots). Writes path + ".tmp", fsyncs and renames it into place; on failure the tmp file is
// removed. Errors: kInvalidArgument (sizes, info fields, options), kIo (naming the file).
// Output is a function of the arguments only.
[[nodiscard]] Status write_table_file(const std::filesystem::path& path, const TableInfo& info,
                                      std::span<const DtmValue> white_to_move,
                                      std::span<const DtmValue> black_to_move,
                                      const TableWriteOptions& options = {});

// One side to move: format version 4 when options.format_version is 4 (a static model, blocks of
// options.static_block_bytes), else version 3. Errors as above.
[[nodiscard]] Status write_table_file(const std::filesystem::path& path, const TableInfo& info, const OneSide& side,
                                      const TableWriteOptions& options = {});

// Same, into memory (the bytes the file would hold).
[[nodiscard]] Result<std::vector<std::byte>> encode_table(const TableInfo& info,
                                                          std::span<const DtmValue> white_to_move,
                                                          std::span<const DtmValue> black_to_move,
                                                          const TableWriteOptions& options = {});
[[nodiscard]] Result<std::vector<std::byte>> encode_table(const TableInfo& info, const OneSide& side,
                                                          const TableWriteOptions& options = {});

// A coded block's size and CRC-32C, as the block index records them.
struct BlockExtent {
  std::uint32_t size = 0;
  std::uint32_t crc = 0;
};
[[nodiscard]] BlockExtent extent_of(std::span<const std::byte> block);

// The writer in steps, for callers that compress blocks in parallel (gen/ does, with TBB):
//   auto enc = TableEncoder::create(info, w, b, options);      // symbols, header, dictionary
//   blocks[k] = enc->encode_block(k) for k < enc->block_count() // any order, any threads
//   bytes = enc->assemble(blocks)                                // same bytes as encode_table
// or, to stream a large file: the blocks in order from enc->data_offset() on, then
// enc->head(their extents) at offset 0 (AtomicFile::write_at).
// The value spans must outlive the encoder. encode_block is const and thread-safe.
//
// A caller that holds the values in another order (gen/ sizes candidate storage orders) can
// instead count them and gather each block itself:
//   auto enc = TableEncoder::create_from_counts(info, side, resolved, counts, options);
//   blocks[k] = enc->encode_block(values of block k, their freedoms)
//   enc->file_size(sum of the blocks' sizes), or enc->assemble(blocks)
// which gives the bytes create(info, OneSide{...}, options) would for the same values.
class TableEncoder {
 public:
  [[nodiscard]] static Result<TableEncoder> create(const TableInfo& info, std::span<const DtmValue> white_to_move,
                                                   std::span<const DtmValue> black_to_move,
                                                   const TableWriteOptions& options = {});
  // Version 3 (one side); the spans must outlive the encoder.
  [[nodiscard]] static Result<TableEncoder> create(const TableInfo& info, const OneSide& side,
                                                   const TableWriteOptions& options = {});
  // Version 3 without the values: `counts` holds, for each of the 65536 raw values, how many
  // slots not marked SlotFreedom::kAny hold it (illegal slots may be left out when
  // options.fill_illegal is set, as the writer drops them then); only the symbols depend on it.
  // Errors: those of create, and kInvalidArgument for a dictionary (it is trained on the values).
  [[nodiscard]] static Result<TableEncoder> create_from_counts(const TableInfo& info, chess::Color side,
                                                               bool capture_resolved,
                                                               std::span<const std::uint64_t> counts,
                                                               const TableWriteOptions& options = {});
  [[nodiscard]] std::uint64_t block_count() const;
  [[nodiscard]] std::uint64_t block_values() const;  // slots per block (the last block may hold fewer)
  // Block k's compressed bytes (blocks: white to move first, each side in index order).
  // Errors: kIo (compressor out of memory); kInvalidArgument (no such block, or an encoder
  // made by create_from_counts, which holds no values).
  [[nodiscard]] Result<std::vector<std::byte>> encode_block(std::uint64_t block) const;
  // Version 3: the compressed bytes of a block whose values (and freedoms, or none: all exact)
  // the caller gathered; block k holds the side's storage slots k * block_values() on. Thread-safe.
  // Errors: kInvalidArgument (an encoder of both sides, an empty or oversized block, sizes
  // that differ), kIo.
  [[nodiscard]] Result<std::vector<std::byte>> encode_block(std::span<const DtmValue> values,
                                                            std::span<const SlotFreedom> freedom) const;
  // Symbol keys (version 3 with the default fill, FillMode::kPrevious, and preference-ordered
  // symbols: keyed() says so): a caller that gathers blocks itself may look each slot's key up
  // once (symbol_key), then code a block from keys with fill_code and compress it with
  // compress_coded. The bytes are encode_block(values, freedom)'s for the same slots.
  [[nodiscard]] bool keyed() const;
  // kFreeKey for a free slot (illegal, or kAny); else the value's code, with kNoBetterKey set
  // for a kNoBetter slot. Only for keyed() encoders and the values the counts held.
  [[nodiscard]] std::uint16_t symbol_key(DtmValue value, SlotFreedom freedom) const;
  // The code of each raw value the counts held, by raw value (65536 entries; others 0): for a
  // caller that makes many keys, symbol_key(v, f) is kFreeKey for an illegal v or kAny, else
  // symbol_codes()[v.raw()], with kNoBetterKey added for kNoBetter.
  [[nodiscard]] std::span<const std::uint16_t> symbol_codes() const;
  [[nodiscard]] int symbol_width() const;  // bytes per coded slot: 1 or 2
  [[nodiscard]] std::uint32_t symbol_count() const;  // codes are 0 .. symbol_count() - 1
  // The compressed bytes of one block already coded (symbol_width() bytes per slot, little
  // endian). Thread-safe. Errors: kInvalidArgument (empty or oversized), kIo.
  [[nodiscard]] Result<std::vector<std::byte>> compress_coded(std::span<const std::byte> coded) const;
  // The file's size given the sum of its blocks' compressed sizes (header, symbols, dictionary,
  // block index and blocks), without assembling it.
  [[nodiscard]] std::uint64_t file_size(std::uint64_t block_bytes) const;
  // The whole file from every block's bytes. Errors: kInvalidArgument (wrong number of blocks).
  [[nodiscard]] Result<std::vector<std::byte>> assemble(std::span<const std::vector<std::byte>> blocks) const;
  // For a file written in pieces: the blocks go from byte data_offset() on, back to back in block
  // order, and head(their extents) is everything before them (header, symbols, dictionary, block
  // index). Errors of head: kInvalidArgument (wrong number of blocks).
  [[nodiscard]] std::uint64_t data_offset() const;
  [[nodiscard]] Result<std::vector<std::byte>> head(std::span<const BlockExtent> blocks) const;

  struct Impl;

 private:
  explicit TableEncoder(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

// The keyed form of the default fill (TableEncoder::keyed): the code a slot of `key` stores,
// `previous` being the code stored before it (0 at a block's start). A free slot repeats the
// previous code; a kNoBetter slot repeats it when that value is no better than its own (codes
// are in preference order, so: not above its own code); any other slot stores its own code.
inline constexpr std::uint16_t kFreeKey = 0xFFFF, kNoBetterKey = 0x8000;
[[nodiscard]] constexpr std::uint16_t fill_code(std::uint16_t& previous, std::uint16_t key) {
  if (key == kFreeKey) return previous;
  const std::uint16_t own = key & std::uint16_t(~kNoBetterKey);
  if ((key & kNoBetterKey) && previous <= own) return previous;
  return previous = own;
}


// A validated, read-only table file (mmapped). Copies share the mapping. All const methods are
// thread-safe: the only mutable state is a mutex-guarded pool of decompression contexts (versions
// 1-3) or an atomic bitmap of checked data chunks (version 4, whose value() takes no lock and
// allocates nothing).
class TableFile {
 public:
  // Maps the file and validates the header, symbol table, dictionary and block index (not the
  // block contents: see verify()). Errors name the file, byte offset and field: kIo (cannot
  // open/map), kCorrupt (magic, truncation, checksum, field values), kVersion (format version).
  [[nodiscard]] static Result<TableFile> open(const std::filesystem::path& path);
  // Same for a file image in memory (copied); `name` stands for the file name in messages.
  [[nodiscard]] static Result<TableFile> open_memory(std::span<const std::byte> bytes, std::string name);

  [[nodiscard]] const TableInfo& info() const;
  [[nodiscard]] const std::string& name() const;

  // Whether the file stores the values of `side_to_move` (versions 1 and 2: both sides; version 3:
  // stored_side() only).
  [[nodiscard]] bool stores(chess::Color side_to_move) const;
  [[nodiscard]] chess::Color stored_side() const;  // version 3; White for versions 1 and 2
  // Version 3 with value_encoding 2: a stored value is exact only after better_of(stored, best
  // capture or promotion); mate and stalemate slots hold any value.
  [[nodiscard]] bool capture_resolved() const;

  // The stored value of position `index` with `side_to_move` to move. Decompresses one block
  // after checking its checksum (version 4: decodes the value in place, checking the checksum of
  // its 4 KiB chunk the first time the chunk is read; no lock, no allocation). Errors: kInvalidArgument (index out of range, or a side the file
  // does not store), kCorrupt (block checksum, decompression, size or symbol out of range; message
  // names file, offset and block). For an index the generator marked illegal the result is
  // unspecified (any value); so is, in a capture-resolved file, the raw value before resolution.
  [[nodiscard]] Result<DtmValue> value(chess::Color side_to_move, std::uint64_t index) const;

  // Values [first, first + count) for one side, decompressing each block once. Errors as value().
  [[nodiscard]] Result<std::vector<DtmValue>> values(chess::Color side_to_move, std::uint64_t first,
                                                     std::uint64_t count) const;

  // Checks every block: checksum, decompression, exact size, symbols in range. Errors: kCorrupt.
  [[nodiscard]] Status verify() const;

  // Checks block `block`'s checksum (of its stored, compressed bytes) only: the bytes are the ones
  // the writer wrote. Blocks are numbered 0..block_count()-1 over both sides. Thread-safe.
  // Errors: kInvalidArgument (no such block), kCorrupt (checksum; message names file, offset and
  // block).
  [[nodiscard]] Status check_block_checksum(std::uint64_t block) const;

  // Advises the kernel that blocks will be read in random order (probing). Thread-safe.
  void advise_random_access() const;

  // Layout facts for statistics and tooling. Version 4: block_count() counts the compressed blocks
  // and values_per_block() is a nominal read size (blocks hold varying numbers of values).
  [[nodiscard]] std::uint64_t file_size() const;
  [[nodiscard]] std::uint64_t block_count() const;  // both sides
  [[nodiscard]] std::uint32_t values_per_block() const;
  [[nodiscard]] std::uint32_t symbol_count() const;
  [[nodiscard]] std::uint32_t dictionary_size() const;
  [[nodiscard]] std::uint32_t format_version() const;
  [[nodiscard]] BlockCodec codec() const;

  struct Impl;

 private:
  explicit TableFile(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

}  // namespace tbkit::formats
