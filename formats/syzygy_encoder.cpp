// Syzygy writer. One file because the parts share their private types (symbol streams, the code
// table); the compression core is the first half, value preparation (WDL, DTZ) and file layout the
// second.
#include "formats/syzygy_encoder.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <numeric>
#include <optional>
#include <string>
#include <utility>

#include "formats/byte_order.h"
#include "formats/table_file.h"

namespace tbkit::formats::syzygy {
namespace {

constexpr int kMaxSymbols = 4095;            // tree entries hold 12-bit symbols; 0xFFF marks a leaf
constexpr std::uint16_t kLeafMark = 0xFFF;
constexpr std::uint32_t kMaxExpansion = 256;  // values per symbol: readers keep the count in a byte
constexpr int kMaxCodeLength = 32;           // readers decode from a 64-bit window refilled at 32 bits
constexpr std::uint32_t kMaxBlockValues = 65536;
constexpr int kPairsPerRound = 250;
constexpr int kMinBlockLog2 = 5;
constexpr std::size_t kFillChunk = std::size_t{1} << 16;
// Byte streams keep pair symbols as an escape byte (>= leaf count) and a low byte: 16 escapes cover
// 4096 symbols.
constexpr int kMaxByteLeaves = 240;

struct SymbolDef {
  std::uint16_t left = 0;  // leaf: the stored value; pair: the first symbol
  std::uint16_t right = kLeafMark;
  std::uint32_t expansion = 1;  // values the symbol stands for
};

// A value stream being rewritten into symbols in place: a symbol covering values [i, i + expansion)
// is written at i (the rest of its span is ignored).
template <class T>
class SymbolStream {
 public:
  SymbolStream(std::vector<T> data, int leaves) : data_(std::move(data)), leaves_(leaves) {}

  [[nodiscard]] std::uint64_t size() const { return data_.size(); }
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
  std::vector<T> data_;
  int leaves_;
};

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

struct PairCandidate {
  std::uint64_t frequency;
  int first, second;
};

// Recursive pairing: each round counts adjacent symbol pairs, turns up to kPairsPerRound of the most
// frequent ones that cannot overlap each other into new symbols and rewrites the stream, until no
// pair reaches min_frequency or the symbol space is full.
template <class T>
void build_pair_symbols(SymbolStream<T>& s, std::vector<SymbolDef>& defs, int min_frequency) {
  const std::uint64_t n = s.size();
  std::vector<std::uint64_t> freq;
  while (int(defs.size()) < kMaxSymbols && n > 1) {
    const std::size_t count = defs.size();
    freq.assign(count * count, 0);
    int previous = -1;
    for_each_symbol(s, defs, [&](std::uint64_t, int sym) {
      if (previous >= 0) ++freq[std::size_t(previous) * count + std::size_t(sym)];
      previous = sym;
    });

    std::vector<PairCandidate> candidates;
    for (std::size_t a = 0; a < count; ++a)
      for (std::size_t b = 0; b < count; ++b) {
        const std::uint64_t f = freq[a * count + b];
        if (f >= std::uint64_t(min_frequency) && defs[a].expansion + defs[b].expansion <= kMaxExpansion)
          candidates.push_back({f, int(a), int(b)});
      }
    if (candidates.empty()) break;
    const std::size_t keep = std::min<std::size_t>(candidates.size(), 4 * kPairsPerRound);
    std::partial_sort(candidates.begin(), candidates.begin() + std::ptrdiff_t(keep), candidates.end(),
                      [](const PairCandidate& x, const PairCandidate& y) {
                        if (x.frequency != y.frequency) return x.frequency > y.frequency;
                        return std::pair(x.first, x.second) < std::pair(y.first, y.second);
                      });

    // A pair may not start with a symbol that ends a more frequent chosen pair, nor end with one that
    // starts one: then every occurrence is unambiguous in a left-to-right rewrite.
    const std::size_t budget = std::min<std::size_t>(kPairsPerRound, std::size_t(kMaxSymbols) - count);
    std::vector<char> starts(count, 0), ends(count, 0);
    std::vector<int> head(count, -1), next;
    std::vector<PairCandidate> chosen;
    for (std::size_t i = 0; i < keep && chosen.size() < budget; ++i) {
      const PairCandidate& c = candidates[i];
      if (!ends[std::size_t(c.first)] && !starts[std::size_t(c.second)]) {
        next.push_back(head[std::size_t(c.first)]);
        head[std::size_t(c.first)] = int(chosen.size());
        chosen.push_back(c);
      }
      starts[std::size_t(c.first)] = 1;
      ends[std::size_t(c.second)] = 1;
    }
    for (const PairCandidate& c : chosen)
      defs.push_back({std::uint16_t(c.first), std::uint16_t(c.second),
                      defs[std::size_t(c.first)].expansion + defs[std::size_t(c.second)].expansion});

    for (std::uint64_t i = 0; i < n;) {
      const int a = s.at(i);
      const std::uint64_t j = i + defs[std::size_t(a)].expansion;
      if (j < n && head[std::size_t(a)] >= 0) {
        const int b = s.at(j);
        int k = head[std::size_t(a)];
        while (k >= 0 && chosen[std::size_t(k)].second != b) k = next[std::size_t(k)];
        if (k >= 0) {
          s.put(i, int(count) + k);
          i = j + defs[std::size_t(b)].expansion;
          continue;
        }
      }
      i = j;
    }
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
void append_le(std::vector<std::byte>& out, T v) {
  const std::size_t at = out.size();
  out.resize(at + sizeof(T));
  store_le<T>(out.data() + at, v);
}

// Pairs, codes, blocks and indexes of one stream; the record starts with `flags`.
template <class T>
CompressedSubtable compress_stream(SymbolStream<T>& s, std::vector<SymbolDef> defs, std::uint8_t flags,
                                   int max_block_log2, const EncodeOptions& options) {
  const std::uint64_t n = s.size();
  build_pair_symbols(s, defs, options.min_pair_frequency);
  std::vector<std::uint64_t> freq(defs.size(), 0);
  for_each_symbol(s, defs, [&](std::uint64_t, int sym) { ++freq[std::size_t(sym)]; });
  const CanonicalCode code = make_canonical_code(defs, freq);
  const std::vector<int> substitute = block_end_substitutes(defs, code);

  // Smaller blocks cost more block-length entries and more end-of-block waste, larger ones cost
  // nothing in the file but decoding time: take the smallest total, preferring the larger block.
  int best_log2 = max_block_log2;
  std::uint64_t best_size = UINT64_MAX;
  for (int b = max_block_log2; b >= kMinBlockLog2; --b) {
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

CompressedSubtable single_value_record(std::uint8_t flags, std::uint8_t value, std::uint64_t n) {
  CompressedSubtable out;
  out.flags = std::uint8_t(flags | kFlagSingleValue);
  out.value_count = n;
  out.record = {std::byte(out.flags), std::byte(value)};
  return out;
}

// Reads a subtable through the fill callback, chunk by chunk.
template <class V, class Fill, class F>
void read_values(std::uint64_t size, int side, int file, const Fill& fill, F&& f) {
  std::vector<V> chunk(std::min<std::uint64_t>(size, kFillChunk));
  for (std::uint64_t begin = 0; begin < size; begin += chunk.size()) {
    const std::size_t len = std::size_t(std::min<std::uint64_t>(chunk.size(), size - begin));
    fill(side, file, begin, std::span<V>(chunk.data(), len));
    for (std::size_t k = 0; k < len; ++k) f(begin + k, chunk[k]);
  }
}

Error bad_value(int side, int file, std::uint64_t index, const std::string& what) {
  return make_error(ErrorCode::kInvalidArgument, "syzygy encoder: side " + std::to_string(side) + " file " +
                                                     std::to_string(file) + " index " + std::to_string(index) +
                                                     ": " + what);
}

}  // namespace

// ---- WDL -------------------------------------------------------------------------------------------

Result<CompressedSubtable> compress_wdl_subtable(std::uint64_t size, int side, int file, const WdlFill& fill,
                                                 std::uint8_t flags, const EncodeOptions& options) {
  if (size == 0) return make_error(ErrorCode::kInvalidArgument, "syzygy encoder: empty subtable");
  std::vector<std::uint8_t> data(size);
  std::array<std::uint64_t, 9> histogram{};
  std::optional<Error> error;
  read_values<std::uint8_t>(size, side, file, fill, [&](std::uint64_t i, std::uint8_t v) {
    if (v > kWdlDontCare && !error) error = bad_value(side, file, i, "WDL code " + std::to_string(v) + " > 8");
    data[i] = v;
    ++histogram[std::min<std::size_t>(v, 8)];
  });
  if (error) return *error;

  // One value that every slot accepts: no data at all.
  int tightest = 8;
  for (int c = 5; c <= 8; ++c)
    if (histogram[std::size_t(c)]) tightest = std::min(tightest, c);
  int exact = -1, distinct = 0;
  for (int v = 0; v <= 4; ++v)
    if (histogram[std::size_t(v)]) exact = v, ++distinct;
  if (distinct == 0) return single_value_record(flags, std::uint8_t(std::min(2, tightest - 4)), size);
  if (distinct == 1 && exact <= tightest - 4) return single_value_record(flags, std::uint8_t(exact), size);

  // Don't-cares take a neighbour's value where allowed (runs grow), else the allowed value that
  // forms the most frequent pairs with its neighbours; a run is bound by its tightest code.
  std::array<std::array<std::uint64_t, 5>, 5> pairs{};
  for (std::uint64_t i = 1; i < size; ++i)
    if (data[i - 1] <= 4 && data[i] <= 4) ++pairs[data[i - 1]][data[i]];
  auto best_allowed = [&](int code, int left, int right, std::uint64_t run) {
    int best = 0;
    std::uint64_t best_score = 0;
    for (int v = 0; v <= code - 4; ++v) {
      std::uint64_t score = (run - 1) * pairs[std::size_t(v)][std::size_t(v)];
      if (left >= 0) score += pairs[std::size_t(left)][std::size_t(v)];
      if (right >= 0 && right <= 4) score += pairs[std::size_t(v)][std::size_t(right)];
      if (v == 0 || score > best_score) best = v, best_score = score;
    }
    return best;
  };
  for (std::uint64_t i = 0; i < size;) {
    if (data[i] <= 4) {
      ++i;
      continue;
    }
    std::uint64_t j = i;
    int code = 8;
    while (j < size && data[j] > 4) code = std::min<int>(code, data[j++]);
    const int left = i > 0 ? data[i - 1] : -1;
    const int right = j < size ? data[j] : -1;
    const bool left_ok = left >= 0 && left <= code - 4;
    const bool right_ok = right >= 0 && right <= code - 4;
    int fill_value;
    if (left_ok && right_ok && left != right) {
      // Join the right neighbour only if its run goes on and the left one's does not (a don't-care
      // the right value satisfies goes on too).
      const bool left_run = i > 1 && data[i - 2] == left;
      const bool right_run = j + 1 < size && wdl_matches(data[j + 1], right);
      fill_value = (right_run && !left_run) ? right : left;
    } else if (left_ok) {
      fill_value = left;
    } else if (right_ok) {
      fill_value = right;
    } else {
      fill_value = best_allowed(code, left, right, j - i);
    }
    std::fill(data.begin() + std::ptrdiff_t(i), data.begin() + std::ptrdiff_t(j), std::uint8_t(fill_value));
    histogram[std::size_t(fill_value)] += j - i;
    i = j;
  }

  // Leaves: the values present, renumbered densely.
  std::array<std::uint8_t, 5> leaf_of{};
  std::vector<SymbolDef> defs;
  for (int v = 0; v <= 4; ++v)
    if (histogram[std::size_t(v)]) {
      leaf_of[std::size_t(v)] = std::uint8_t(defs.size());
      defs.push_back({std::uint16_t(v), kLeafMark, 1});
    }
  for (auto& v : data) v = leaf_of[v];
  SymbolStream<std::uint8_t> stream(std::move(data), int(defs.size()));
  return compress_stream(stream, std::move(defs), flags, options.max_wdl_block_log2, options);
}

// ---- DTZ -------------------------------------------------------------------------------------------

namespace {

constexpr int kClassCount = 4;  // file order of the value maps: win, loss, cursed win, blessed loss

[[nodiscard]] int class_of(int wdl) { return wdl == 2 ? 0 : wdl == -2 ? 1 : wdl == 1 ? 2 : 3; }

// The value a class stores for plies (see DtzSlot), given which classes are kept in plies.
[[nodiscard]] int stored_dtz(int cls, int plies, bool win_plies, bool loss_plies) {
  if (cls == 0) return win_plies ? plies - 1 : (plies - 1) / 2;
  if (cls == 1) return loss_plies ? plies - 1 : (plies - 1) / 2;
  return (plies - 101) / 2;
}

// Statistics of one subtable: per class, how often each plies value occurs.
struct DtzStats {
  std::array<std::vector<std::uint64_t>, kClassCount> plies;
  std::uint64_t stored = 0;
};

Result<DtzStats> gather_dtz_stats(std::uint64_t size, int side, int file, const DtzFill& fill) {
  DtzStats st;
  for (auto& p : st.plies) p.assign(65536, 0);
  std::optional<Error> error;
  read_values<DtzSlot>(size, side, file, fill, [&](std::uint64_t i, const DtzSlot& v) {
    if (v.wdl == 0 || error) return;
    if (v.wdl < -2 || v.wdl > 2) {
      error = bad_value(side, file, i, "wdl " + std::to_string(v.wdl) + " outside -2..2");
    } else if (v.plies == 0) {
      error = bad_value(side, file, i, "plies 0 in a stored class");
    } else if ((v.wdl == 1 || v.wdl == -1) && v.plies < 101) {
      error = bad_value(side, file, i, "cursed win / blessed loss below 101 plies");
    } else {
      ++st.plies[std::size_t(class_of(v.wdl))][v.plies];
      ++st.stored;
    }
  });
  if (error) return *error;
  return st;
}

struct DtzMaps {
  std::array<std::vector<std::uint16_t>, kClassCount> values;  // symbol -> stored value, by frequency
  std::array<std::vector<int>, kClassCount> symbol_of;         // stored value -> symbol
  int symbols = 0;                                             // longest list
};

Result<DtzMaps> make_dtz_maps(const DtzStats& st, bool win_plies, bool loss_plies) {
  DtzMaps m;
  for (int c = 0; c < kClassCount; ++c) {
    std::vector<std::uint64_t> freq;
    for (int p = 1; p < 65536; ++p) {
      const std::uint64_t f = st.plies[std::size_t(c)][std::size_t(p)];
      if (!f) continue;
      const int v = stored_dtz(c, p, win_plies, loss_plies);
      if (std::size_t(v) >= freq.size()) freq.resize(std::size_t(v) + 1, 0);
      freq[std::size_t(v)] += f;
    }
    auto& list = m.values[std::size_t(c)];
    for (std::size_t v = 0; v < freq.size(); ++v)
      if (freq[v]) list.push_back(std::uint16_t(v));
    std::stable_sort(list.begin(), list.end(), [&](std::uint16_t a, std::uint16_t b) { return freq[a] > freq[b]; });
    m.symbol_of[std::size_t(c)].assign(freq.size(), -1);
    for (std::size_t k = 0; k < list.size(); ++k) m.symbol_of[std::size_t(c)][list[k]] = int(k);
    m.symbols = std::max(m.symbols, int(list.size()));
  }
  if (m.symbols > kMaxSymbols - 1)
    return make_error(ErrorCode::kInvalidArgument, "syzygy encoder: more than 4094 distinct DTZ values");
  return m;
}

template <class T>
Result<CompressedSubtable> compress_dtz_values(std::uint64_t size, int side, int file, const DtzFill& fill,
                                               const DtzMaps& maps, std::uint8_t flags, bool win_plies,
                                               bool loss_plies, const EncodeOptions& options) {
  const int dont_care = maps.symbols;
  std::vector<T> data(size);
  read_values<DtzSlot>(size, side, file, fill, [&](std::uint64_t i, const DtzSlot& v) {
    if (v.wdl == 0) {
      data[i] = T(dont_care);
      return;
    }
    const int c = class_of(v.wdl);
    data[i] = T(maps.symbol_of[std::size_t(c)][std::size_t(stored_dtz(c, v.plies, win_plies, loss_plies))]);
  });
  // Don't-cares take the more frequent neighbour (the lower symbol: maps are sorted by frequency).
  for (std::uint64_t i = 0; i < size;) {
    if (data[i] != T(dont_care)) {
      ++i;
      continue;
    }
    std::uint64_t j = i;
    while (j < size && data[j] == T(dont_care)) ++j;
    const int left = i > 0 ? int(data[i - 1]) : dont_care;
    const int right = j < size ? int(data[j]) : dont_care;
    int value = std::min(left, right);
    if (value == dont_care) value = 0;
    std::fill(data.begin() + std::ptrdiff_t(i), data.begin() + std::ptrdiff_t(j), T(value));
    i = j;
  }

  // Leaves store the symbol and the reader maps it per class, unless every class's list is a prefix
  // of the longest one: then leaves store the values themselves and no map is needed.
  const auto longest = std::max_element(maps.values.begin(), maps.values.end(),
                                        [](const auto& a, const auto& b) { return a.size() < b.size(); });
  bool mapped = false;
  for (const auto& list : maps.values)
    if (!std::equal(list.begin(), list.end(), longest->begin())) mapped = true;
  bool wide = maps.symbols >= 256;
  for (const auto& list : maps.values)
    for (std::uint16_t v : list) wide = wide || v >= 256;
  if (!mapped && !longest->empty() && longest->back() >= kLeafMark)
    return make_error(ErrorCode::kInvalidArgument, "syzygy encoder: DTZ value too large for the pair tree");

  std::vector<SymbolDef> defs;
  for (int k = 0; k < std::max(dont_care, 1); ++k)
    defs.push_back({std::uint16_t(mapped || longest->empty() ? k : (*longest)[std::size_t(k)]), kLeafMark, 1});
  flags = std::uint8_t(flags | (mapped ? kFlagMapped : 0) | (mapped && wide ? kFlagWideMap : 0));

  CompressedSubtable out;
  if (defs.size() == 1 && defs[0].left == 0 && !mapped) {
    // Readers take the byte after a single-value record's flags as stored value 0 in every class.
    out = single_value_record(flags, 0, size);
  } else {
    SymbolStream<T> stream(std::move(data), int(defs.size()));
    out = compress_stream(stream, std::move(defs), flags, options.max_dtz_block_log2, options);
  }
  if (mapped)
    for (const auto& list : maps.values) {
      if (wide) {
        append_le<std::uint16_t>(out.value_map, std::uint16_t(list.size()));
        for (std::uint16_t v : list) append_le<std::uint16_t>(out.value_map, v);
      } else {
        out.value_map.push_back(std::byte(std::uint8_t(list.size())));
        for (std::uint16_t v : list) out.value_map.push_back(std::byte(std::uint8_t(v)));
      }
    }
  return out;
}

Result<CompressedSubtable> compress_dtz_with_stats(std::uint64_t size, int side, int file, const DtzFill& fill,
                                                   const DtzStats& st, bool win_plies, bool loss_plies,
                                                   const EncodeOptions& options) {
  auto maps = make_dtz_maps(st, win_plies, loss_plies);
  if (!maps) return maps.error();
  const std::uint8_t flags =
      std::uint8_t((side ? kFlagBlackToMove : 0) | (win_plies ? kFlagWinPlies : 0) | (loss_plies ? kFlagLossPlies : 0));
  if (maps->symbols <= kMaxByteLeaves)
    return compress_dtz_values<std::uint8_t>(size, side, file, fill, *maps, flags, win_plies, loss_plies, options);
  return compress_dtz_values<std::uint16_t>(size, side, file, fill, *maps, flags, win_plies, loss_plies, options);
}

}  // namespace

Result<CompressedSubtable> compress_dtz_subtable(std::uint64_t size, int side, int file, const DtzFill& fill,
                                                 bool win_plies, bool loss_plies, const EncodeOptions& options) {
  if (size == 0) return make_error(ErrorCode::kInvalidArgument, "syzygy encoder: empty subtable");
  auto st = gather_dtz_stats(size, side, file, fill);
  if (!st) return st.error();
  return compress_dtz_with_stats(size, side, file, fill, *st, win_plies, loss_plies, options);
}

// ---- Files -----------------------------------------------------------------------------------------

namespace {

void pad_to(std::vector<std::byte>& out, std::size_t multiple) {
  while (out.size() % multiple) out.push_back(std::byte{0});
}

// Magic, header, records, value maps, sparse indexes, block lengths, 64-byte aligned data, checksum.
std::vector<std::byte> assemble_file(const TableIndex& index, TableKind kind,
                                     const std::vector<CompressedSubtable>& subtables) {
  std::vector<std::byte> out;
  append_le<std::uint32_t>(out, kind == TableKind::kWdl ? kWdlMagic : kDtzMagic);
  const std::vector<std::byte> header = write_index_header(index, out.size(), kind == TableKind::kDtz);
  out.insert(out.end(), header.begin(), header.end());
  pad_to(out, 2);
  for (const auto& s : subtables) out.insert(out.end(), s.record.begin(), s.record.end());
  if (kind == TableKind::kDtz) {
    for (const auto& s : subtables) {
      if (s.flags & kFlagWideMap) pad_to(out, 2);
      out.insert(out.end(), s.value_map.begin(), s.value_map.end());
    }
    pad_to(out, 2);
  }
  for (const auto& s : subtables) out.insert(out.end(), s.sparse_index.begin(), s.sparse_index.end());
  for (const auto& s : subtables) out.insert(out.end(), s.block_lengths.begin(), s.block_lengths.end());
  for (const auto& s : subtables) {
    pad_to(out, 64);
    out.insert(out.end(), s.data.begin(), s.data.end());
  }
  pad_to(out, 64);
  const auto sum = syzygy_checksum(out);
  out.insert(out.end(), sum.begin(), sum.end());
  return out;
}

Status check_index(const TableIndex& index, int sides) {
  const int files = index.material.has_pawns() ? 4 : 1;
  if (index.sides != sides || index.files != files || index.subtables.size() != std::size_t(sides * files))
    return make_error(ErrorCode::kInvalidArgument, "syzygy encoder: table index of " + index.material.name() +
                                                       " has " + std::to_string(index.sides) + " sides, " +
                                                       std::to_string(index.files) + " files; expected " +
                                                       std::to_string(sides) + ", " + std::to_string(files));
  return {};
}

}  // namespace

Result<std::vector<std::byte>> encode_wdl_file(const TableIndex& index, const WdlFill& fill,
                                               const EncodeOptions& options) {
  if (auto st = check_index(index, index.material.is_symmetric() ? 1 : 2); !st) return st.error();
  const std::uint8_t flags =
      std::uint8_t((options.force_win_plies ? kFlagWinPlies : 0) | (options.force_loss_plies ? kFlagLossPlies : 0));
  std::vector<CompressedSubtable> subtables;
  for (int f = 0; f < index.files; ++f)
    for (int side = 0; side < index.sides; ++side) {
      auto c = compress_wdl_subtable(index.at(side, f).size(), side, f, fill, flags, options);
      if (!c) return c.error();
      subtables.push_back(std::move(*c));
    }
  return assemble_file(index, TableKind::kWdl, subtables);
}

Result<std::vector<std::byte>> encode_dtz_file(const TableIndex& index, const DtzFill& fill,
                                               const EncodeOptions& options) {
  if (auto st = check_index(index, 1); !st) return st.error();
  const bool symmetric = index.material.is_symmetric();
  // Statistics of both sides everywhere: they decide the ply accuracy of the whole table (a win or
  // loss of exactly 100 plies on either side, as Syzygy decides it) and the maps.
  std::vector<std::array<DtzStats, 2>> stats(std::size_t(index.files));
  // white_plies: white's wins / black's losses of exactly 100 plies occur; black_plies the reverse.
  // A symmetric table's black-to-move half is its white-to-move half mirrored.
  bool white_plies = false, black_plies = false;
  for (int f = 0; f < index.files; ++f)
    for (int side = 0; side < (symmetric ? 1 : 2); ++side) {
      auto st = gather_dtz_stats(index.at(0, f).size(), side, f, fill);
      if (!st) return st.error();
      const bool win100 = st->plies[0][100] > 0, loss100 = st->plies[1][100] > 0;
      if (symmetric) {
        white_plies = black_plies = white_plies || win100 || loss100;
      } else {
        if (side == 0 ? win100 : loss100) white_plies = true;
        if (side == 0 ? loss100 : win100) black_plies = true;
      }
      stats[std::size_t(f)][std::size_t(side)] = std::move(*st);
    }
  std::vector<CompressedSubtable> subtables;
  for (int f = 0; f < index.files; ++f) {
    std::optional<CompressedSubtable> best;
    for (int side = 0; side < (symmetric ? 1 : 2); ++side) {
      const int wanted = options.dtz_sides[std::size_t(f)];
      if (wanted >= 0 && !symmetric && side != wanted) continue;
      // The side to move's wins are its own colour's; its losses the other colour's wins.
      const bool w = options.force_win_plies || (side == 0 ? white_plies : black_plies);
      const bool l = options.force_loss_plies || (side == 0 ? black_plies : white_plies);
      auto c = compress_dtz_with_stats(index.at(0, f).size(), side, f, fill, stats[std::size_t(f)][std::size_t(side)],
                                       w, l, options);
      if (!c) return c.error();
      auto total = [](const CompressedSubtable& s) {
        return s.record.size() + s.value_map.size() + s.sparse_index.size() + s.block_lengths.size() + s.data.size();
      };
      if (!best || total(*c) < total(*best)) best = std::move(*c);
    }
    subtables.push_back(std::move(*best));
  }
  return assemble_file(index, TableKind::kDtz, subtables);
}

Status write_wdl_file(const std::filesystem::path& path, const TableIndex& index, const WdlFill& fill,
                      const EncodeOptions& options) {
  auto bytes = encode_wdl_file(index, fill, options);
  if (!bytes) return bytes.error();
  return write_file_atomically(path, *bytes);
}

Status write_dtz_file(const std::filesystem::path& path, const TableIndex& index, const DtzFill& fill,
                      const EncodeOptions& options) {
  auto bytes = encode_dtz_file(index, fill, options);
  if (!bytes) return bytes.error();
  return write_file_atomically(path, *bytes);
}

Result<TableIndex> default_table_index(const TableMaterial& material, TableKind kind) {
  const int sides = kind == TableKind::kWdl && !material.is_symmetric() ? 2 : 1;
  const int files = material.has_pawns() ? 4 : 1;
  const PieceList order = default_piece_order(material);
  const int order1 = material.other_pawn_count() > 0 ? 1 : 0xF;
  std::vector<PieceList> orders(std::size_t(sides * files), order);
  std::vector<std::array<int, 2>> nibbles(std::size_t(sides * files), std::array<int, 2>{0, order1});
  return make_table_index(material, sides, orders, nibbles);
}

}  // namespace tbkit::formats::syzygy
