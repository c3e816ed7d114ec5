// The compression core of the Syzygy writer: recursive pair symbols over a value stream, canonical
// Huffman codes limited to 32 bits, fixed-size blocks with their value counts and the sparse index,
// and the compression record that describes them (docs/formats/syzygy.md). Used by
// formats/syzygy_encoder.cpp, which prepares the values (WDL, DTZ) and lays out the files. Internal to
// formats/: pure functions, thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "formats/byte_order.h"
#include "formats/large_allocator.h"
#include "formats/syzygy_encoder.h"

namespace tbkit::formats::syzygy::pairs {

inline constexpr int kMaxSymbols = 4095;            // tree entries hold 12-bit symbols; 0xFFF marks a leaf
inline constexpr std::uint16_t kLeafMark = 0xFFF;
// Byte streams keep pair symbols as an escape byte (>= leaf count) and a low byte: 16 escapes cover
// 4096 symbols.
inline constexpr int kMaxByteLeaves = 240;

struct SymbolDef {
  std::uint16_t left = 0;  // leaf: the stored value; pair: the first symbol
  std::uint16_t right = kLeafMark;
  std::uint32_t expansion = 1;  // values the symbol stands for
};

// A stream's values: up to a byte or two per index of a subtable, hundreds of MB, written once and
// walked by every pair round; on huge pages, a few hundred page faults instead of ~10^5.
template <class T>
using StreamValues = std::vector<T, LargeAllocator<T>>;

// A value stream being rewritten into symbols in place: a symbol covering values [i, i + expansion)
// is written at i (the rest of its span is ignored).
template <class T>
class SymbolStream {
 public:
  SymbolStream(StreamValues<T> data, int leaves) : data_(std::move(data)), leaves_(leaves) {}

  [[nodiscard]] std::uint64_t size() const { return data_.size(); }
  // How many values from i on, before `end`, are the leaf `leaf`, in whole words of 8 (0 for a
  // stream of 16-bit values). Precondition: a symbol starts at i. Each such value is a symbol of
  // its own (a leaf spans one value, so the next value starts one; a value below the leaf count
  // where a symbol starts is a leaf), so a run of leaves is read 8 at a time.
  [[nodiscard]] std::uint64_t leaf_words(std::uint64_t i, std::uint64_t end, int leaf) const {
    if constexpr (sizeof(T) == 1) {
      const std::uint64_t pattern = kByteOnes * std::uint64_t(leaf);
      std::uint64_t k = i;
      for (; k + 8 <= end; k += 8)
        if (load_word(k) != pattern) break;
      return k - i;
    } else {
      (void)i, (void)end, (void)leaf;
      return 0;
    }
  }
  // Writes the pair symbol `twin` (the leaf `leaf` twice) over a run of that leaf from i on, before
  // `end`, 8 pairs (16 values) at a time while all 16 are the leaf; returns the pairs written. The
  // same bytes as put(i + 2k, twin) for each. Precondition as leaf_words; `twin` >= the leaf count.
  std::uint64_t put_twin_words(std::uint64_t i, std::uint64_t end, int leaf, int twin) {
    if constexpr (sizeof(T) == 1) {
      const std::uint64_t pattern = kByteOnes * std::uint64_t(leaf);
      const auto high = std::uint8_t(leaves_ + ((twin - leaves_) >> 8));
      const auto low = std::uint8_t((twin - leaves_) & 0xFF);
      const std::uint8_t pairs[16] = {high, low, high, low, high, low, high, low,
                                      high, low, high, low, high, low, high, low};
      std::uint64_t k = i;
      for (; k + 16 <= end && load_word(k) == pattern && load_word(k + 8) == pattern; k += 16)
        std::memcpy(data_.data() + k, pairs, sizeof pairs);
      return (k - i) / 2;
    } else {
      (void)i, (void)end, (void)leaf, (void)twin;
      return 0;
    }
  }
  [[nodiscard]] int at(std::uint64_t i) const {
    if constexpr (sizeof(T) == 1) {
      const int b = data_[i];
      return b < leaves_ ? b : leaves_ + (((b - leaves_) << 8) | data_[i + 1]);
    } else {
      return data_[i];
    }
  }
  // Precondition: a pair symbol (>= leaf count) spans at least two values.
  void put(std::uint64_t i, int symbol) {
    if constexpr (sizeof(T) == 1) {
      if (symbol < leaves_) {
        data_[i] = T(symbol);
      } else {
        data_[i] = T(leaves_ + ((symbol - leaves_) >> 8));
        data_[i + 1] = T((symbol - leaves_) & 0xFF);
      }
    } else {
      data_[i] = T(symbol);
    }
  }

 private:
  static constexpr std::uint64_t kByteOnes = 0x0101010101010101ULL;
  // The 8 values from i as one word (compared with a word of 8 equal bytes: their order is moot).
  [[nodiscard]] std::uint64_t load_word(std::uint64_t i) const {
    return load_le<std::uint64_t>(reinterpret_cast<const std::byte*>(data_.data() + i));
  }

  StreamValues<T> data_;
  int leaves_;
};

// Little-endian append.
template <class T>
void append_le(std::vector<std::byte>& out, T v) {
  const std::size_t at = out.size();
  out.resize(at + sizeof(T));
  store_le<T>(out.data() + at, v);
}

struct StreamOptions {
  int min_pair_frequency = 8;  // a pair becomes a symbol only if it occurs this often
  int max_block_log2 = 6;      // largest block tried (log2 bytes); smaller ones down to min_block_log2
  int min_block_log2 = 5;      // smallest block tried (32 bytes); equal to max_block_log2: that size only
  ParallelFor parallel;        // the pair rounds' parts side by side (empty: one after another)
  int pack_ratio = EncodeOptions{}.pack_ratio;
};

// Recursive pairing (formats/syzygy_pair_rounds.cpp): rounds that each turn the most frequent adjacent
// symbol pairs (at least min_frequency times, up to 250 a round, none overlapping another) into new
// symbols, appended to `defs`, and rewrite `s` in place, until none is left or 4095 symbols exist.
// `parallel` runs a large stream's parts side by side; the result is the same with or without it and
// for any pack_ratio (StreamOptions).
void build_pair_symbols(SymbolStream<std::uint8_t>& s, std::vector<SymbolDef>& defs, int min_frequency,
                        const ParallelFor& parallel, int pack_ratio);
void build_pair_symbols(SymbolStream<std::uint16_t>& s, std::vector<SymbolDef>& defs, int min_frequency,
                        const ParallelFor& parallel, int pack_ratio);

// Pairs, codes, blocks and indexes of a stream whose leaves are `defs` (leaf symbols only: left is
// the stored value); the record starts with `flags`. The stream is rewritten in place.
[[nodiscard]] CompressedSubtable compress_stream(SymbolStream<std::uint8_t>& s, std::vector<SymbolDef> defs,
                                                 std::uint8_t flags, const StreamOptions& options);
[[nodiscard]] CompressedSubtable compress_stream(SymbolStream<std::uint16_t>& s, std::vector<SymbolDef> defs,
                                                 std::uint8_t flags, const StreamOptions& options);

// The record of a subtable of n values all equal to `value`.
[[nodiscard]] CompressedSubtable single_value_record(std::uint8_t flags, std::uint8_t value, std::uint64_t n);

// Bytes the subtable takes in a file: record, value map, sparse index, block lengths, data.
[[nodiscard]] inline std::uint64_t stored_bytes(const CompressedSubtable& s) {
  return s.record.size() + s.value_map.size() + s.sparse_index.size() + s.block_lengths.size() + s.data.size();
}

}  // namespace tbkit::formats::syzygy::pairs
