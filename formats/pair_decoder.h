// Decoding of the pair-symbol + canonical Huffman code the Syzygy files use (and format version 4
// of our own table files): reading and validating a compression record's code and pair tree, the
// block tables, and one value at an index decoded straight from the file's bytes. Internal to
// formats/; pure functions over validated layouts, thread-safe, no allocation when decoding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <span>
#include <string>
#include <vector>
#include <array>

#include "chess/result.h"
#include "formats/byte_order.h"

namespace tbkit::formats::syzygy {

inline constexpr std::size_t kSparseEntrySize = 6;  // u32 block, u16 offset
inline constexpr std::size_t kTreeEntrySize = 3;    // two 12-bit children

// Where decoding may resume inside each block: a few symbol boundaries per block, each its bit
// position in the block and the number of the block's values before it, noted as decoding passes
// them, so that later look-ups in the block decode a fraction of it. Each mark is one 32-bit word,
// true of the file alone (whichever thread notes it, and wherever its decoding started), so marks are
// written and read with relaxed atomics and no lock; 0 is a mark not yet seen. The memory is zeroed
// pages from the system: blocks never probed cost nothing. Copying gives an empty set of the same shape.
class BlockMarks {
 public:
  static constexpr int kMaxMarks = 8;
  static constexpr int kBytesPerMark = 8;  // a mark per 8 bytes of block, at most kMaxMarks

  BlockMarks() = default;
  BlockMarks(const BlockMarks& other) { reset(other.blocks_, other.block_size_); }
  BlockMarks& operator=(const BlockMarks& other) {
    if (this != &other) reset(other.blocks_, other.block_size_);
    return *this;
  }
  BlockMarks(BlockMarks&&) noexcept = default;
  BlockMarks& operator=(BlockMarks&&) noexcept = default;

  // Room for `blocks` blocks of `block_size` bytes, called once the blocks are known to lie in the
  // file (so the memory is at most half the blocks'). Blocks too large for 16-bit bit
  // positions get no marks, nor does anything when the memory cannot be had: decoding then starts
  // at each block's start.
  void reset(std::uint32_t blocks, std::uint32_t block_size);
  // The block's marks (per_block() of them, mark j placed at the first symbol boundary at or after
  // bit target(j) that a decoding passed), or nullptr when there are none.
  [[nodiscard]] std::uint32_t* of(std::uint32_t block) const {
    return data_ ? data_.get() + std::size_t(block) * per_block_ : nullptr;
  }
  [[nodiscard]] int per_block() const { return int(per_block_); }
  [[nodiscard]] std::uint32_t target(int j) const { return targets_[std::size_t(j)]; }
  [[nodiscard]] static std::uint32_t make(std::uint32_t bit, std::uint32_t values_before) { return bit | (values_before << 16); }
  [[nodiscard]] static std::uint32_t bit_of(std::uint32_t mark) { return mark & 0xFFFF; }
  [[nodiscard]] static std::uint32_t values_before(std::uint32_t mark) { return mark >> 16; }

 private:
  struct Free {
    void operator()(std::uint32_t* p) const { std::free(p); }
  };
  std::unique_ptr<std::uint32_t[], Free> data_;
  std::uint32_t blocks_ = 0;
  std::uint32_t block_size_ = 0;
  std::uint32_t per_block_ = 0;
  std::array<std::uint16_t, kMaxMarks> targets_{};  // target(j), computed once: look-ups read them
};

// Where the parts of one subtable live in the file, as validated (byte offsets into the file).
struct SubtableLayout {
  static constexpr int kMaxCodeLength = 32;  // the decoder refills 32 bits whenever 32 or fewer remain
  std::uint8_t flags = 0;
  std::uint8_t single_value = 0;     // the value when flags has kFlagSingleValue
  std::uint8_t min_len = 0;          // shortest Huffman code, bits
  std::uint8_t max_len = 0;          // longest Huffman code, bits
  std::uint32_t block_size = 0;      // bytes per compressed block
  std::uint64_t span = 0;            // values between sparse-index entries
  std::uint32_t block_count = 0;     // compressed blocks
  std::uint32_t block_length_count = 0;  // entries of the block-length table (blocks + padding)
  std::uint64_t sparse_count = 0;    // sparse-index entries
  std::size_t lowest_sym = 0;        // u16 per code length: lowest symbol of that length
  std::size_t symbol_count = 0;      // symbols of the pair tree
  std::size_t tree = 0;              // 3 bytes per symbol: left and right 12-bit children
  std::size_t sparse_index = 0;      // 6 bytes per entry: u32 block, u16 offset
  std::size_t block_lengths = 0;     // u16 per block: values in it minus one
  std::size_t data = 0;              // the compressed blocks (64-byte aligned)
  // Decoding aids derived from the fields above at validation: span == 1 << span_log; the lowest
  // symbol per code length (as at lowest_sym); and, by the next kFastCodeBits bits of a stream, the
  // symbol and length of a code no longer than that (length 0: longer, decode by the bases), and
  // the whole codes those bits hold: their bits and the values they expand to, to skip at once.
  // A symbol whose values are all one value (most are, in WDL files: runs) is given as that value
  // with kUniform set, so that a look-up ending there reads no tree node.
  std::uint8_t span_log = 0;
  static constexpr std::uint16_t kUniform = 0x8000;
  struct FastCode {
    // The symbol, or kUniform | the symbol's only value; with length 0, the first code length
    // (as an index of base) the code can have.
    std::uint16_t symbol = 0;
    std::uint8_t length = 0;
    std::uint8_t run_bits = 0;
    std::uint16_t run_values = 0;
    std::uint16_t symbol_values = 0;  // values the symbol expands to (with length != 0)
  };
  static constexpr int kFastCodeBits = 8;
  std::vector<FastCode> fast;
  // The pair tree as one 8-byte node per symbol, so that a descent step is one load: a pair, its
  // children and the values its left child covers; a symbol whose values are all one value (a leaf,
  // or a pair of such symbols with the same value), left_values 0 and that value in `left`, so that
  // a descent stops there.
  struct Node {
    std::uint16_t left = 0;
    std::uint16_t right = 0;
    std::uint16_t left_values = 0;  // nodes[left].expands + 1; 0 when uniform
    std::uint16_t expands = 0;      // values the symbol expands to, minus one
  };
  std::vector<Node> nodes;
  BlockMarks marks;
  // Read less often than the fields above (which a look-up reads: kept together, in few cache lines).
  // DTZ value map (flags has kFlagMapped), per class in file order win, loss, cursed win, blessed
  // loss: file offset of the first entry and the number of entries (bytes, or u16 with kFlagWideMap).
  std::array<std::size_t, 4> map_offset{};
  std::array<std::uint16_t, 4> map_count{};
  // Canonical-code bases, left-aligned to 64 bits, per length from min_len (the longest's is 0).
  std::array<std::uint64_t, kMaxCodeLength> base{};
  std::array<std::uint16_t, kMaxCodeLength> lowest{};  // the lowest symbol per code length
};

// A read cursor over the file that reports where it fails.
struct Cursor {
  std::span<const std::byte> bytes;
  std::size_t pos = 0;
  std::size_t end = 0;  // the readable end (the checksum excluded)

  [[nodiscard]] bool has(std::size_t n) const { return pos <= end && end - pos >= n; }
  std::uint8_t u8() { return std::uint8_t(bytes[pos++]); }
  std::uint16_t u16() {
    const auto v = load_le<std::uint16_t>(bytes.data() + pos);
    pos += 2;
    return v;
  }
  std::uint32_t u32() {
    const auto v = load_le<std::uint32_t>(bytes.data() + pos);
    pos += 4;
    return v;
  }
};

// a + b * c without overflow; false when it overflows or passes limit.
inline bool add_region(std::size_t& a, std::uint64_t b, std::uint64_t c, std::size_t limit) {
  if (c != 0 && b > (std::uint64_t(-1) / c)) return false;
  const std::uint64_t size = b * c;
  if (size > limit || a > limit - size) return false;
  a += std::size_t(size);
  return true;
}

// "<name>: byte <offset>: <what>", kCorrupt.
[[nodiscard]] Error pair_code_fault(const std::string& name, std::size_t offset, const std::string& what);

// Reads the part of a compression record after its flags byte, at `pos` of `bytes` (readable up to
// `end`): block size, sparse-index span, padding blocks, block count, code lengths, lowest symbols,
// the pair tree and the record's padding to an even offset. Fills s's code fields (not
// sparse_index, block_lengths, data) and advances pos. `size` is the number of values the code
// covers; a leaf above `max_leaf` is rejected with "<leaf_name> N > max_leaf". Errors: kCorrupt,
// naming `name`, the byte offset and `where`.
[[nodiscard]] Status read_pair_code(std::span<const std::byte> bytes, std::size_t& pos, std::size_t end,
                                    std::uint64_t size, int max_leaf, const char* leaf_name, const std::string& name,
                                    const std::string& where, SubtableLayout& s);

// Checks the block tables of a layout whose sparse_index, block_lengths and data are set and lie in
// the file: the blocks hold at least `size` values and every sparse entry points into the block
// table. Errors: kCorrupt naming `name` and the offset.
[[nodiscard]] Status check_block_tables(std::span<const std::byte> bytes, const SubtableLayout& s, std::uint64_t size,
                                        const std::string& name);

// Where the value at an index lies: its block and its offset there.
struct PairBlockPosition {
  std::uint32_t block = 0;
  std::uint32_t offset = 0;
};

// A fault a look-up found in the block tables or a block, not yet worded: the fast paths below
// build no message unless one is needed.
struct PairFault {
  enum class Kind : std::uint8_t { kNone, kPastSparse, kBeforeFirst, kPastLast, kPadding, kSymbolRange, kPastEnd };
  Kind kind = Kind::kNone;
  std::size_t offset = 0;  // the byte offset the message names
  std::size_t symbol = 0;  // kSymbolRange: the symbol
  // kCorrupt, "<name>: byte <offset>: <what>".
  [[nodiscard]] Error to_error(const std::string& name) const;
};

// The block and offset of `index` (< the size the layout was validated for), from the sparse index
// and the block-length table. Errors: kCorrupt (message names `name`).
[[nodiscard]] Result<PairBlockPosition> locate_pair_block(const SubtableLayout& s, const std::byte* base,
                                                          std::uint64_t index, const std::string& name);

// Asks for the sparse-index entry locate_pair_block will read first for `index` (< the size the
// layout was validated for), so that other work can run while it arrives.
inline void prefetch_pair_value(const SubtableLayout& s, const std::byte* base, std::uint64_t index) {
  __builtin_prefetch(base + s.sparse_index + kSparseEntrySize * (index >> s.span_log));
}

// The leaf value at a position locate_pair_block found: Huffman-decodes the block's symbols up to
// the one covering the offset, then descends its pair tree. Errors: kCorrupt.
[[nodiscard]] Result<int> decode_pair_in_block(const SubtableLayout& s, const std::byte* base, PairBlockPosition at,
                                               const std::string& name);

// Every value of block `block` into out[0..n), n = the block's value count (returned); out needs
// room for 65536. Errors: kCorrupt (a symbol out of range, symbols past the block's end).
[[nodiscard]] Result<std::uint32_t> expand_pair_block(const SubtableLayout& s, const std::byte* base,
                                                      std::uint32_t block, std::span<std::uint16_t> out,
                                                      const std::string& name);

// The leaf value at `index` (< the size the layout was validated for) of the file whose bytes start
// at `base`, or -1 with `fault` set when the compressed data is inconsistent (PairFault::to_error
// words it). Builds no error value on success: the probe's hot path.
[[nodiscard]] int pair_value_or_fault(const SubtableLayout& s, const std::byte* base, std::uint64_t index, PairFault& fault);

}  // namespace tbkit::formats::syzygy
