// Syzygy writer, compression core: Huffman codes, blocks, the record (the pair symbols: syzygy_pair_rounds.cpp).
#include "formats/syzygy_pairs.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <numeric>
#include <optional>
#include <utility>

#include "formats/pair_decoder.h"

namespace tbkit::formats::syzygy::pairs {
namespace {

constexpr int kMaxCodeLength = SubtableLayout::kMaxCodeLength;  // the longest code the reader decodes
constexpr std::uint32_t kMaxBlockValues = 65536;
constexpr int kMinBlockLog2 = 5;

// Calls f(position, symbol) for each symbol of the stream in order.
template <class T, class F>
void for_each_symbol(const SymbolStream<T>& s, const std::vector<SymbolDef>& defs, F&& f) {
  const std::uint64_t n = s.size();
  for (std::uint64_t i = 0; i < n;) {
    const int sym = s.at(i);
    f(i, sym);
    i += defs[std::size_t(sym)].expansion;
  }
}

// Huffman code lengths (0 for unused symbols), at most kMaxCodeLength bits, always a complete code
// (a lone symbol gets length 1).
std::vector<int> code_lengths(const std::vector<std::uint64_t>& freq) {
  std::vector<int> used;
  for (std::size_t i = 0; i < freq.size(); ++i)
    if (freq[i] > 0) used.push_back(int(i));
  std::vector<int> lengths(freq.size(), 0);
  if (used.empty()) return lengths;
  if (used.size() == 1) {
    lengths[std::size_t(used[0])] = 1;
    return lengths;
  }
  std::stable_sort(used.begin(), used.end(),
                   [&](int a, int b) { return freq[std::size_t(a)] < freq[std::size_t(b)]; });
  // Two-queue Huffman: leaves in ascending frequency, merged nodes appear in ascending weight.
  const std::size_t m = used.size();
  std::vector<std::uint64_t> weight(2 * m - 1);
  std::vector<std::size_t> parent(2 * m - 1, 0);
  for (std::size_t i = 0; i < m; ++i) weight[i] = freq[std::size_t(used[i])];
  std::size_t leaf = 0, node = m;
  auto take = [&](std::size_t made) {
    if (leaf < m && (node >= made || weight[leaf] <= weight[node])) return leaf++;
    return node++;
  };
  for (std::size_t made = m; made < 2 * m - 1; ++made) {
    const std::size_t a = take(made), b = take(made);
    weight[made] = weight[a] + weight[b];
    parent[a] = parent[b] = made;
  }
  std::vector<int> depth(2 * m - 1, 0);
  for (std::size_t i = 2 * m - 1; i-- > 0;)
    if (i != 2 * m - 2) depth[i] = depth[parent[i]] + 1;

  // Count codes per length; push codes deeper than the limit up, keeping the code complete (the
  // JPEG adjustment: two deepest leaves leave, their parent becomes a leaf, a shallower leaf splits).
  const int deepest = *std::max_element(depth.begin(), depth.begin() + std::ptrdiff_t(m));
  std::vector<std::uint64_t> per_length(std::size_t(std::max(deepest, kMaxCodeLength)) + 1, 0);
  for (std::size_t i = 0; i < m; ++i) ++per_length[std::size_t(depth[i])];
  for (int l = deepest; l > kMaxCodeLength; --l)
    while (per_length[std::size_t(l)] > 0) {
      int j = l - 2;
      while (per_length[std::size_t(j)] == 0) --j;
      per_length[std::size_t(l)] -= 2;
      per_length[std::size_t(l - 1)] += 1;
      per_length[std::size_t(j + 1)] += 2;
      per_length[std::size_t(j)] -= 1;
    }
  // Shortest codes to the most frequent symbols.
  std::size_t k = m;
  for (int l = 1; l <= kMaxCodeLength; ++l)
    for (std::uint64_t c = 0; c < per_length[std::size_t(l)]; ++c) lengths[std::size_t(used[--k])] = l;
  return lengths;
}

// The canonical code as readers rebuild it: symbols renumbered longest code first (ties by
// ascending frequency, unused symbols last); codes of one length are consecutive, counting up from
// base[l], and a longer code is numerically smaller than any shorter one left-aligned.
struct CanonicalCode {
  std::vector<int> order;        // canonical index -> symbol
  std::vector<int> index_of;     // symbol -> canonical index (-1 if dropped)
  std::vector<int> length;       // per symbol
  std::vector<std::uint32_t> code;  // per symbol
  int min_len = 0, max_len = 0;
  std::vector<std::uint16_t> lowest;  // first canonical index per length, min_len..max_len
};

CanonicalCode make_canonical_code(const std::vector<SymbolDef>& defs, const std::vector<std::uint64_t>& freq) {
  CanonicalCode c;
  c.length = code_lengths(freq);
  const std::size_t count = defs.size();
  // Keep the used symbols and everything their expansions reach.
  std::vector<char> keep(count, 0);
  for (std::size_t s = count; s-- > 0;) {
    if (freq[s] > 0) keep[s] = 1;
    if (keep[s] && defs[s].right != kLeafMark) keep[defs[s].left] = keep[defs[s].right] = 1;
  }
  for (std::size_t s = 0; s < count; ++s)
    if (keep[s]) c.order.push_back(int(s));
  std::stable_sort(c.order.begin(), c.order.end(), [&](int a, int b) {
    const int la = c.length[std::size_t(a)], lb = c.length[std::size_t(b)];
    if (la != lb) return la > lb;
    return freq[std::size_t(a)] < freq[std::size_t(b)];
  });
  c.index_of.assign(count, -1);
  for (std::size_t i = 0; i < c.order.size(); ++i) c.index_of[std::size_t(c.order[i])] = int(i);

  c.max_len = c.length[std::size_t(c.order[0])];
  c.min_len = c.max_len;
  for (int s : c.order)
    if (c.length[std::size_t(s)] > 0) c.min_len = std::min(c.min_len, c.length[std::size_t(s)]);
  std::vector<std::uint64_t> base(std::size_t(c.max_len) + 2, 0), offset(std::size_t(c.max_len) + 2, 0);
  std::size_t i = 0;
  for (int l = c.max_len; l >= c.min_len; --l) {
    offset[std::size_t(l)] = i;
    if (l < c.max_len) {
      const std::uint64_t above = base[std::size_t(l) + 1] + (i - offset[std::size_t(l) + 1]);
      assert(above % 2 == 0);
      base[std::size_t(l)] = above / 2;
    }
    while (i < c.order.size() && c.length[std::size_t(c.order[i])] == l) ++i;
  }
  c.code.assign(count, 0);
  for (std::size_t k = 0; k < c.order.size(); ++k) {
    const int s = c.order[k];
    const int l = c.length[std::size_t(s)];
    if (l > 0) c.code[std::size_t(s)] = std::uint32_t(base[std::size_t(l)] + (k - offset[std::size_t(l)]));
  }
  for (int l = c.min_len; l <= c.max_len; ++l) c.lowest.push_back(std::uint16_t(offset[std::size_t(l)]));
  return c;
}

// MSB-first bits into fixed-size blocks.
class BlockWriter {
 public:
  explicit BlockWriter(std::vector<std::byte>& out, std::size_t block_bytes) : out_(out), block_bytes_(block_bytes) {}
  void put(std::uint32_t code, int length) {
    acc_ = (acc_ << length) | code;
    bits_ += length;
    while (bits_ >= 8) {
      bits_ -= 8;
      out_.push_back(std::byte(std::uint8_t(acc_ >> bits_)));
    }
  }
  void end_block() {
    if (bits_ > 0) out_.push_back(std::byte(std::uint8_t(acc_ << (8 - bits_))));
    acc_ = 0;
    bits_ = 0;
    out_.resize(start_ + block_bytes_, std::byte{0});
    start_ = out_.size();
  }

 private:
  std::vector<std::byte>& out_;
  std::size_t block_bytes_;
  std::size_t start_ = 0;
  std::uint64_t acc_ = 0;
  int bits_ = 0;
};

// For each symbol, the used symbol with the shortest code whose expansion begins with this one's: at
// a block's end it may stand in for it (the block's value count stops where the symbol ends, so the
// extra values are never read).
std::vector<int> block_end_substitutes(const std::vector<SymbolDef>& defs, const CanonicalCode& code) {
  std::vector<int> sub(defs.size());
  std::iota(sub.begin(), sub.end(), 0);
  for (std::size_t i = 0; i < defs.size(); ++i) {
    const int l = code.length[i];
    if (l == 0) continue;
    for (std::size_t s = i; defs[s].right != kLeafMark;) {
      s = defs[s].left;
      const int current = code.length[std::size_t(sub[s])];
      if (current == 0 || current > l) sub[s] = int(i);
    }
  }
  return sub;
}

// Splits the symbols into blocks of at most 8 << block_log2 bits and kMaxBlockValues values; returns
// the values per block. Writes the blocks when `out` is given. Where a symbol does not fit, the block
// may still end with a shorter substitute, or with the symbol's first half (the second half then
// opens the next block).
template <class T>
std::vector<std::uint32_t> lay_out_blocks(const SymbolStream<T>& s, const std::vector<SymbolDef>& defs,
                                          const CanonicalCode& code, const std::vector<int>& substitute,
                                          int block_log2, std::vector<std::byte>* out) {
  const int max_bits = 8 << block_log2;
  std::vector<std::uint32_t> values;
  std::optional<BlockWriter> writer;
  if (out) writer.emplace(*out, std::size_t{1} << block_log2);
  int bits = 0;
  std::uint32_t count = 0;
  auto length = [&](int sym) { return code.length[std::size_t(sym)]; };
  auto emit = [&](int sym) {
    if (writer) writer->put(code.code[std::size_t(sym)], length(sym));
  };
  auto close = [&](std::uint32_t n) {
    values.push_back(n);
    if (writer) writer->end_block();
    bits = 0;
    count = 0;
  };
  for_each_symbol(s, defs, [&](std::uint64_t, int sym) {
    const int len = length(sym);
    const SymbolDef& d = defs[std::size_t(sym)];
    if (bits + len > max_bits || count + d.expansion > kMaxBlockValues) {
      if (count + d.expansion <= kMaxBlockValues) {
        const int r = substitute[std::size_t(sym)];
        if (bits + length(r) <= max_bits) {
          emit(r);
          close(count + d.expansion);
          return;
        }
        if (d.right != kLeafMark && length(d.left) > 0 && length(d.right) > 0) {
          const int first = d.left, second = d.right;
          const int second_sub = substitute[std::size_t(second)];
          if (bits + length(first) + length(second_sub) <= max_bits) {
            emit(first);
            emit(second_sub);
            close(count + d.expansion);
            return;
          }
          const int first_sub = substitute[std::size_t(first)];
          if (length(second) < len && bits + length(first_sub) <= max_bits) {
            emit(bits + length(first) <= max_bits ? first : first_sub);
            close(count + defs[std::size_t(first)].expansion);
            emit(second);
            bits = length(second);
            count = defs[std::size_t(second)].expansion;
            return;
          }
        }
      }
      close(count);
    }
    emit(sym);
    bits += len;
    count += d.expansion;
  });
  if (count > 0) close(count);
  return values;
}

int span_log2_for(std::uint64_t n, std::uint64_t blocks) {
  int bits = 0;
  for (std::uint64_t avg = n / blocks; avg; avg >>= 1) ++bits;
  bits += 4;
  while (bits > 1 && (std::uint64_t{1} << (bits - 1)) > n) --bits;
  return bits;
}

std::uint64_t sparse_count_for(std::uint64_t n, int span_log2) {
  return (n + (std::uint64_t{1} << span_log2) - 1) >> span_log2;
}

template <class T>
CompressedSubtable compress_stream_of(SymbolStream<T>& s, std::vector<SymbolDef> defs, std::uint8_t flags,
                                      const StreamOptions& options) {
  const std::uint64_t n = s.size();
  build_pair_symbols(s, defs, options.min_pair_frequency, options.parallel, options.pack_ratio);
  std::vector<std::uint64_t> freq(defs.size(), 0);
  for_each_symbol(s, defs, [&](std::uint64_t, int sym) { ++freq[std::size_t(sym)]; });
  const CanonicalCode code = make_canonical_code(defs, freq);
  const std::vector<int> substitute = block_end_substitutes(defs, code);

  // Smaller blocks cost more block-length entries and more end-of-block waste, larger ones cost
  // nothing in the file but decoding time: take the smallest total, preferring the larger block.
  int best_log2 = options.max_block_log2;
  std::uint64_t best_size = UINT64_MAX;
  for (int b = options.max_block_log2; b >= std::max(kMinBlockLog2, options.min_block_log2); --b) {
    const auto values = lay_out_blocks(s, defs, code, substitute, b, nullptr);
    const std::uint64_t blocks = values.size();
    const int span_log2 = span_log2_for(n, blocks);
    const std::uint64_t size = ((blocks << b) + 63) / 64 * 64 + 2 * (blocks + 1) + 6 * sparse_count_for(n, span_log2);
    if (size >= best_size) break;
    best_size = size;
    best_log2 = b;
  }

  CompressedSubtable out;
  out.flags = flags;
  out.value_count = n;
  out.block_size_log2 = best_log2;
  out.symbol_count = int(code.order.size());
  std::vector<std::uint32_t> values = lay_out_blocks(s, defs, code, substitute, best_log2, &out.data);
  const std::uint64_t real_blocks = values.size();
  const int span_log2 = span_log2_for(n, real_blocks);
  const std::uint64_t span = std::uint64_t{1} << span_log2;
  const std::uint64_t entries = sparse_count_for(n, span_log2);

  // Sparse entry k names the block holding value k * span + span / 2 and its offset there; entries
  // past the last value point into padding blocks of 65536 values.
  std::uint64_t block = 0, block_start = 0;
  for (std::uint64_t k = 0; k < entries; ++k) {
    const std::uint64_t target = k * span + span / 2;
    for (;;) {
      if (block == values.size()) values.push_back(kMaxBlockValues);
      if (block_start + values[block] > target) break;
      block_start += values[block++];
    }
    append_le<std::uint32_t>(out.sparse_index, std::uint32_t(block));
    append_le<std::uint16_t>(out.sparse_index, std::uint16_t(target - block_start));
  }
  for (std::uint32_t v : values) append_le<std::uint16_t>(out.block_lengths, std::uint16_t(v - 1));

  std::vector<std::byte>& r = out.record;
  r.push_back(std::byte(flags));
  r.push_back(std::byte(std::uint8_t(best_log2)));
  r.push_back(std::byte(std::uint8_t(span_log2)));
  r.push_back(std::byte(std::uint8_t(values.size() - real_blocks)));
  append_le<std::uint32_t>(r, std::uint32_t(real_blocks));
  r.push_back(std::byte(std::uint8_t(code.max_len)));
  r.push_back(std::byte(std::uint8_t(code.min_len)));
  for (std::uint16_t lowest : code.lowest) append_le<std::uint16_t>(r, lowest);
  append_le<std::uint16_t>(r, std::uint16_t(code.order.size()));
  for (int sym : code.order) {
    const SymbolDef& d = defs[std::size_t(sym)];
    const bool leaf = d.right == kLeafMark;
    const std::uint32_t left = leaf ? d.left : std::uint32_t(code.index_of[d.left]);
    const std::uint32_t right = leaf ? kLeafMark : std::uint32_t(code.index_of[d.right]);
    r.push_back(std::byte(std::uint8_t(left & 0xFF)));
    r.push_back(std::byte(std::uint8_t((left >> 8) | ((right & 0xF) << 4))));
    r.push_back(std::byte(std::uint8_t(right >> 4)));
  }
  if (r.size() % 2) r.push_back(std::byte{0});
  return out;
}

}  // namespace

CompressedSubtable compress_stream(SymbolStream<std::uint8_t>& s, std::vector<SymbolDef> defs, std::uint8_t flags,
                                   const StreamOptions& options) {
  return compress_stream_of(s, std::move(defs), flags, options);
}

CompressedSubtable compress_stream(SymbolStream<std::uint16_t>& s, std::vector<SymbolDef> defs, std::uint8_t flags,
                                   const StreamOptions& options) {
  return compress_stream_of(s, std::move(defs), flags, options);
}

CompressedSubtable single_value_record(std::uint8_t flags, std::uint8_t value, std::uint64_t n) {
  CompressedSubtable out;
  out.flags = std::uint8_t(flags | kFlagSingleValue);
  out.value_count = n;
  out.record = {std::byte(out.flags), std::byte(value)};
  return out;
}

}  // namespace tbkit::formats::syzygy::pairs
