// Pair-symbol + canonical Huffman decoding (formats/pair_decoder.h).
#include "formats/pair_decoder.h"

#include <algorithm>
#include <atomic>

#include "formats/byte_order.h"
#include "formats/syzygy_pairs.h"

namespace tbkit::formats::syzygy {
namespace {

constexpr int kMaxCodeLength = SubtableLayout::kMaxCodeLength;
using pairs::kMaxSymbols;
constexpr int kMaxExpansion = 255;       // values per symbol minus one, as readers store it (a byte)
constexpr int kMinBlockLog = 3;          // a block holds at least the first 64 bits read
constexpr int kMaxBlockLog = 20;
constexpr int kMaxSpanLog = 40;

std::uint16_t tree_left(const std::byte* e) { return std::uint16_t(std::uint8_t(e[0]) | ((std::uint8_t(e[1]) & 0xF) << 8)); }
std::uint16_t tree_right(const std::byte* e) { return std::uint16_t((std::uint8_t(e[1]) >> 4) | (std::uint8_t(e[2]) << 4)); }

// The symbol and length of the code at the top of `bits` when it is at most `room` bits long and
// names a symbol of the table (the bits after a code do not change which base it passes, since each
// base is zero below its length); length 0 otherwise. Needs s.base, s.lowest, s.symbol_count.
SubtableLayout::FastCode short_code(const SubtableLayout& s, std::uint64_t bits, int room) {
  std::size_t len = 0;
  while (bits < s.base[len]) ++len;
  const int length = int(len) + s.min_len;
  if (length > room) return {};
  const std::size_t sym = std::size_t((bits - s.base[len]) >> (64 - length)) + s.lowest[len];
  if (sym >= s.symbol_count) return {};  // left to the slow path, which reports it
  return {std::uint16_t(sym), std::uint8_t(length)};
}

// Fills s.fast from the validated code and the tree's nodes.
void build_fast_codes(SubtableLayout& s) {
  constexpr int kBits = SubtableLayout::kFastCodeBits;
  s.fast.assign(std::size_t{1} << kBits, {});
  for (std::size_t v = 0; v < s.fast.size(); ++v) {
    const std::uint64_t bits = std::uint64_t(v) << (64 - kBits);
    SubtableLayout::FastCode& f = s.fast[v];
    f = short_code(s, bits, kBits);
    if (f.length != 0) {
      const SubtableLayout::Node& n = s.nodes[f.symbol];
      f.symbol_values = std::uint16_t(n.expands + 1);
      if (n.left_values == 0) f.symbol = SubtableLayout::kUniform | n.left;
    } else if (bits >= s.base[std::size_t(std::max(0, kBits - s.min_len))]) {
      f.symbol = 0;  // a short code naming no symbol: the slow path finds it and reports it
    } else {
      f.symbol = std::uint16_t(std::max(0, kBits + 1 - s.min_len));  // longer than kBits
    }
    for (int at = 0;;) {
      const auto c = short_code(s, bits << at, kBits - at);
      if (c.length == 0) break;
      at += c.length;
      f.run_bits = std::uint8_t(at);
      f.run_values = std::uint16_t(f.run_values + s.nodes[c.symbol].expands + 1);
    }
  }
}

// Values per symbol, children first (depth-first with an explicit stack; the file's symbol order
// is the Huffman order, not the order pairs were made in), and the tree's nodes as each symbol is
// done. A symbol met again while its own expansion is under way closes a cycle.
Status count_expansions(SubtableLayout& s, std::span<const std::byte> bytes, int max_leaf, const char* leaf_name,
                        const std::string& name, const std::string& where) {
  enum : std::uint8_t { kNew, kOpen, kDone };
  std::vector<std::uint8_t> state(s.symbol_count, kNew);
  s.nodes.assign(s.symbol_count, {});
  std::vector<std::size_t> stack;
  const auto entry = [&](std::size_t sym) { return bytes.data() + s.tree + kTreeEntrySize * sym; };
  for (std::size_t root = 0; root < s.symbol_count; ++root) {
    if (state[root] != kNew) continue;
    stack.push_back(root);
    while (!stack.empty()) {
      const std::size_t sym = stack.back();
      const std::size_t left = tree_left(entry(sym));
      const std::size_t right = tree_right(entry(sym));
      if (right == pairs::kLeafMark) {
        if (left > std::size_t(max_leaf))
          return pair_code_fault(name, s.tree + kTreeEntrySize * sym,
                                 std::string(leaf_name) + " " + std::to_string(left) + " > " + std::to_string(max_leaf) + where);
        state[sym] = kDone;
        s.nodes[sym].left = std::uint16_t(left);
        stack.pop_back();
        continue;
      }
      if (left >= s.symbol_count || right >= s.symbol_count)
        return pair_code_fault(name, s.tree + kTreeEntrySize * sym, "pair symbol names a symbol past the table" + where);
      if (state[sym] == kNew) {
        state[sym] = kOpen;
        for (std::size_t child : {left, right}) {
          if (state[child] == kOpen) return pair_code_fault(name, s.tree + kTreeEntrySize * sym, "pair tree has a cycle" + where);
          if (state[child] == kNew) stack.push_back(child);
        }
        continue;
      }
      if (state[sym] == kOpen) {
        const int total = s.nodes[left].expands + s.nodes[right].expands + 1;
        if (total > kMaxExpansion) return pair_code_fault(name, s.tree + kTreeEntrySize * sym, "symbol expands to too many values" + where);
        const SubtableLayout::Node& l = s.nodes[left];
        const SubtableLayout::Node& r = s.nodes[right];
        if (l.left_values == 0 && r.left_values == 0 && l.left == r.left)
          s.nodes[sym] = {l.left, 0, 0, std::uint16_t(total)};  // uniform: one value throughout
        else
          s.nodes[sym] = {std::uint16_t(left), std::uint16_t(right), std::uint16_t(l.expands + 1), std::uint16_t(total)};
        state[sym] = kDone;
      }
      stack.pop_back();
    }
  }
  return {};
}

}  // namespace

Error pair_code_fault(const std::string& name, std::size_t offset, const std::string& what) {
  return make_error(ErrorCode::kCorrupt, name + ": byte " + std::to_string(offset) + ": " + what);
}

void BlockMarks::reset(std::uint32_t blocks, std::uint32_t block_size) {
  data_.reset();
  blocks_ = blocks;
  block_size_ = block_size;
  per_block_ = 0;
  if (blocks == 0 || std::uint64_t{block_size} * 8 > 0xFFFF) return;
  const std::uint32_t per_block = std::clamp<std::uint32_t>(block_size / kBytesPerMark, 1, kMaxMarks);
  // calloc: zeroed pages the system maps on first touch, so only blocks probed take memory.
  data_.reset(static_cast<std::uint32_t*>(std::calloc(std::size_t(blocks) * per_block, sizeof(std::uint32_t))));
  if (!data_) return;
  per_block_ = per_block;
  for (std::uint32_t j = 0; j < per_block; ++j)
    targets_[j] = std::uint16_t(std::uint64_t(j + 1) * 8 * block_size / (per_block + 1));
}

Status read_pair_code(std::span<const std::byte> bytes, std::size_t& pos, std::size_t end, std::uint64_t size,
                      int max_leaf, const char* leaf_name, const std::string& name, const std::string& where,
                      SubtableLayout& s) {
  Cursor in{bytes, pos, end};
  const std::size_t at = pos - 1;  // the flags byte
  if (!in.has(10)) return pair_code_fault(name, at, "truncated in the compression record" + where);
  const int block_log = in.u8();
  const int span_log = in.u8();
  const int padding = in.u8();
  s.block_count = in.u32();
  s.max_len = in.u8();
  s.min_len = in.u8();
  if (block_log < kMinBlockLog || block_log > kMaxBlockLog)
    return pair_code_fault(name, at + 1, "block size 2^" + std::to_string(block_log) + " out of range" + where);
  if (span_log > kMaxSpanLog) return pair_code_fault(name, at + 2, "sparse index span 2^" + std::to_string(span_log) + " out of range" + where);
  if (s.block_count == 0) return pair_code_fault(name, at + 4, "no blocks" + where);
  if (s.min_len < 1 || s.max_len < s.min_len || s.max_len > kMaxCodeLength)
    return pair_code_fault(name, at + 8, "code lengths " + std::to_string(s.min_len) + ".." + std::to_string(s.max_len) + " out of range" + where);
  s.block_size = 1U << block_log;
  s.span = std::uint64_t{1} << span_log;
  s.span_log = std::uint8_t(span_log);
  s.block_length_count = s.block_count + std::uint32_t(padding);
  s.sparse_count = (size + s.span - 1) / s.span;

  const int lengths = s.max_len - s.min_len + 1;
  if (!in.has(std::size_t(lengths) * 2 + 2)) return pair_code_fault(name, in.pos, "truncated in the Huffman code" + where);
  s.lowest_sym = in.pos;
  std::vector<std::uint64_t> lowest(static_cast<std::size_t>(lengths));
  for (auto& l : lowest) l = in.u16();
  std::copy(lowest.begin(), lowest.end(), s.lowest.begin());
  // Canonical code: longer codes have lower values. base[i] is the lowest code of length
  // min_len + i; it follows from the lowest symbols of consecutive lengths.
  s.base.fill(0);
  for (int i = lengths - 2; i >= 0; --i) {
    const std::uint64_t sum = s.base[std::size_t(i + 1)] + lowest[std::size_t(i)];
    if (sum < lowest[std::size_t(i + 1)]) return pair_code_fault(name, s.lowest_sym + 2 * std::size_t(i), "Huffman code not canonical" + where);
    s.base[std::size_t(i)] = (sum - lowest[std::size_t(i + 1)]) / 2;
    if (s.base[std::size_t(i)] * 2 < s.base[std::size_t(i + 1)] ||
        s.base[std::size_t(i)] > (std::uint64_t{1} << (i + s.min_len)))
      return pair_code_fault(name, s.lowest_sym + 2 * std::size_t(i), "Huffman code not canonical" + where);
  }
  for (int i = 0; i < lengths; ++i) s.base[std::size_t(i)] <<= 64 - i - s.min_len;

  const std::size_t symbols_at = in.pos;
  s.symbol_count = in.u16();
  if (s.symbol_count == 0 || s.symbol_count > std::size_t(kMaxSymbols))
    return pair_code_fault(name, symbols_at, std::to_string(s.symbol_count) + " symbols out of range" + where);
  for (int i = 0; i < lengths; ++i)
    if (lowest[std::size_t(i)] > s.symbol_count)
      return pair_code_fault(name, s.lowest_sym + 2 * std::size_t(i), "lowest symbol past the symbol count" + where);
  if (!in.has(s.symbol_count * kTreeEntrySize)) return pair_code_fault(name, in.pos, "truncated in the pair tree" + where);
  s.tree = in.pos;
  if (Status st = count_expansions(s, bytes, max_leaf, leaf_name, name, where); !st) return st.error();
  build_fast_codes(s);
  in.pos += s.symbol_count * kTreeEntrySize;
  if (in.pos & 1) {
    if (!in.has(1)) return pair_code_fault(name, in.pos, "truncated at record padding" + where);
    ++in.pos;
  }
  pos = in.pos;
  return {};
}

Status check_block_tables(std::span<const std::byte> bytes, const SubtableLayout& s, std::uint64_t size,
                          const std::string& name) {
  // Every value of the subtable must lie in a block, and the sparse index must point into the table.
  std::uint64_t values = 0;
  for (std::uint32_t b = 0; b < s.block_count; ++b)
    values += std::uint64_t(load_le<std::uint16_t>(bytes.data() + s.block_lengths + 2 * std::size_t(b))) + 1;
  if (values < size)
    return pair_code_fault(name, s.block_lengths, "blocks hold " + std::to_string(values) + " values, the subtable has " + std::to_string(size));
  for (std::uint64_t e = 0; e < s.sparse_count; ++e) {
    const std::byte* p = bytes.data() + s.sparse_index + kSparseEntrySize * e;
    const std::uint32_t block = load_le<std::uint32_t>(p);
    const std::uint16_t offset = load_le<std::uint16_t>(p + 4);
    if (block >= s.block_length_count ||
        offset > load_le<std::uint16_t>(bytes.data() + s.block_lengths + 2 * std::size_t(block)))
      return pair_code_fault(name, s.sparse_index + kSparseEntrySize * e, "sparse index entry points past the block table");
  }
  return {};
}

namespace {

// locate_pair_block's work, with a fault noted rather than worded.
bool locate(const SubtableLayout& s, const std::byte* base, std::uint64_t index, PairBlockPosition& at, PairFault& fault) {
  const auto block_length = [&](std::uint32_t b) { return load_le<std::uint16_t>(base + s.block_lengths + 2 * std::size_t(b)); };
  const auto fail = [&](PairFault::Kind kind, std::size_t offset) {
    fault = PairFault{kind, offset, 0};
    return false;
  };

  // The sparse entry nearest the index gives a block and an offset in it; walk to the right block.
  const std::uint64_t k = index >> s.span_log;
  if (k >= s.sparse_count) return fail(PairFault::Kind::kPastSparse, s.sparse_index);
  const std::byte* entry = base + s.sparse_index + kSparseEntrySize * k;
  std::uint32_t block = load_le<std::uint32_t>(entry);
  // The walk below mostly ends at this block: ask for its marks and bytes while the lengths arrive.
  if (block < s.block_count) {
    if (const std::uint32_t* marks = s.marks.of(block)) __builtin_prefetch(marks);
    __builtin_prefetch(base + s.data + std::size_t(block) * s.block_size);
  }
  std::int64_t offset = std::int64_t(load_le<std::uint16_t>(entry + 4)) + std::int64_t(index & (s.span - 1)) - std::int64_t(s.span / 2);
  while (offset < 0) {
    if (block == 0) return fail(PairFault::Kind::kBeforeFirst, s.sparse_index + kSparseEntrySize * k);
    offset += std::int64_t(block_length(--block)) + 1;
  }
  while (offset > std::int64_t(block_length(block))) {
    offset -= std::int64_t(block_length(block)) + 1;
    if (++block >= s.block_count) return fail(PairFault::Kind::kPastLast, s.block_lengths);
  }
  if (block >= s.block_count) return fail(PairFault::Kind::kPadding, s.sparse_index + kSparseEntrySize * k);
  at = PairBlockPosition{block, std::uint32_t(offset)};
  return true;
}

}  // namespace

Error PairFault::to_error(const std::string& name) const {
  switch (kind) {
    case Kind::kPastSparse: return pair_code_fault(name, offset, "index past the sparse index");
    case Kind::kBeforeFirst: return pair_code_fault(name, offset, "sparse index walks before the first block");
    case Kind::kPastLast: return pair_code_fault(name, offset, "sparse index walks past the last block");
    case Kind::kPadding: return pair_code_fault(name, offset, "sparse index names a padding block");
    case Kind::kSymbolRange: return pair_code_fault(name, offset, "symbol " + std::to_string(symbol) + " out of range in a block");
    case Kind::kPastEnd: return pair_code_fault(name, offset, "block's symbols run past its end");
    case Kind::kNone: break;
  }
  return pair_code_fault(name, offset, "no fault");
}

Result<PairBlockPosition> locate_pair_block(const SubtableLayout& s, const std::byte* base, std::uint64_t index,
                                            const std::string& name) {
  PairBlockPosition at;
  PairFault fault;
  if (!locate(s, base, index, at, fault)) return fault.to_error(name);
  return at;
}

namespace {

// A block's bits, most significant first, in a 64-bit window refilled 32 bits at a time. Refills
// past the block's end (the last symbols need fewer bits than the window holds) read zeros; the
// symbols themselves must lie inside the block. Reading may start at any bit of the block.
struct BlockBits {
  BlockBits(const std::byte* block, std::size_t block_size, std::uint32_t start = 0)
      : p(block), size(block_size), limit(std::uint64_t{8} * block_size), consumed(start) {
    // From the 4-byte word holding the start, so that refills stay on 4-byte steps.
    const std::size_t first = std::size_t(start / 32) * 4;
    const int skip = int(start % 32);
    std::uint64_t v = 0;
    if (first + 8 <= size) {
      v = load_be<std::uint64_t>(p + first);
    } else {
      for (std::size_t i = 0; i < 8; ++i) v = (v << 8) | (first + i < size ? std::uint8_t(p[first + i]) : 0U);
    }
    bits = v << skip;
    available = 64 - skip;
    next = first + 8;
  }
  // Drops `used` bits; false when the symbols would run past the block's end.
  bool advance(int used) {
    consumed += std::uint64_t(used);
    if (consumed >= limit) return false;
    bits <<= used;
    available -= used;
    if (available <= 32) {
      available += 32;
      if (next + 4 <= size) bits |= std::uint64_t(load_be<std::uint32_t>(p + next)) << (64 - available);
      next += 4;
    }
    return true;
  }

  const std::byte* p;
  std::size_t size;
  std::uint64_t limit;
  std::uint64_t bits = 0;
  std::uint64_t consumed = 0;
  std::size_t next = 8;
  int available = 64;
};

// decode_pair_in_block's work: the value, or -1 with the fault noted.
int decode_in_block(const SubtableLayout& s, const std::byte* base, PairBlockPosition at, PairFault& fault) {
  const std::uint32_t block = at.block;
  const std::size_t block_start = s.data + std::size_t(block) * s.block_size;
  __builtin_prefetch(base + block_start);  // while the marks, which say where to start, arrive
  // Decode from the last mark before the offset (or the block's start) to the symbol covering it,
  // noting the marks passed on the way.
  std::uint32_t* marks = s.marks.of(block);
  std::uint32_t start = 0, before = 0;
  int next_mark = s.marks.per_block();
  std::uint32_t next_target = std::uint32_t(-1);
  if (marks) {
    for (int j = 0; j < s.marks.per_block(); ++j) {
      const std::uint32_t mark = std::atomic_ref(marks[j]).load(std::memory_order_relaxed);
      if (mark != 0 && BlockMarks::values_before(mark) <= at.offset && BlockMarks::values_before(mark) >= before) {
        start = BlockMarks::bit_of(mark);
        before = BlockMarks::values_before(mark);
      }
    }
    next_mark = 0;
    while (next_mark < s.marks.per_block() && s.marks.target(next_mark) <= start) ++next_mark;
    if (next_mark < s.marks.per_block()) next_target = s.marks.target(next_mark);
  }
  std::int64_t offset = std::int64_t(at.offset) - before;
  BlockBits in(base + block_start, s.block_size, start);
  const std::uint16_t* lowest = s.lowest.data();
  const std::uint64_t* code_base = s.base.data();
  const SubtableLayout::FastCode* fast = s.fast.data();
  std::size_t sym = 0;
  for (;;) {
    // Most codes are short: one table look-up; longer ones walk the bases.
    const SubtableLayout::FastCode f = fast[in.bits >> (64 - SubtableLayout::kFastCodeBits)];
    int used = f.run_bits;
    if (used != 0 && offset >= std::int64_t(f.run_values)) {
      // Every value of the whole codes in these bits lies before the offset: skip them together.
      offset -= f.run_values;
    } else {
      used = f.length;
      sym = f.symbol;
      std::int64_t values = f.symbol_values;
      if (used == 0) {
        std::size_t len = f.symbol;  // the first length the code can have
        while (in.bits < code_base[len]) ++len;
        used = int(len) + s.min_len;
        sym = std::size_t((in.bits - code_base[len]) >> (64 - used)) + lowest[len];
        if (sym >= s.symbol_count) {
          fault = PairFault{PairFault::Kind::kSymbolRange, block_start, sym};
          return -1;
        }
        values = std::int64_t(s.nodes[sym].expands) + 1;
      }
      if (offset < values) break;
      offset -= values;
    }
    if (!in.advance(used)) {
      fault = PairFault{PairFault::Kind::kPastEnd, block_start, 0};
      return -1;
    }
    if (in.consumed >= next_target) {
      // A symbol boundary at or past the next mark's place: note it (the values before it are those
      // skipped so far), then aim at the mark after the one this boundary reaches.
      const std::uint32_t values = std::uint32_t(std::int64_t(at.offset) - offset);
      const std::uint32_t mark = BlockMarks::make(std::uint32_t(in.consumed), values);
      while (next_mark < s.marks.per_block() && in.consumed >= s.marks.target(next_mark)) ++next_mark;
      std::atomic_ref(marks[next_mark - 1]).store(mark, std::memory_order_relaxed);
      next_target = next_mark < s.marks.per_block() ? s.marks.target(next_mark) : std::uint32_t(-1);
    }
  }
  // Descend the pair tree to the value at the offset (0 <= offset <= the symbol's expands), down to
  // a leaf or a uniform symbol.
  if (sym & SubtableLayout::kUniform) return int(sym & ~std::size_t{SubtableLayout::kUniform});
  const SubtableLayout::Node* nodes = s.nodes.data();
  SubtableLayout::Node n = nodes[sym];
  std::uint32_t at_value = std::uint32_t(offset);
  while (n.left_values != 0) {
    const bool left = at_value < n.left_values;
    at_value -= left ? 0 : n.left_values;
    n = nodes[left ? n.left : n.right];
  }
  return int(n.left);
}

}  // namespace

Result<int> decode_pair_in_block(const SubtableLayout& s, const std::byte* base, PairBlockPosition at,
                                 const std::string& name) {
  PairFault fault;
  const int v = decode_in_block(s, base, at, fault);
  if (v < 0) return fault.to_error(name);
  return v;
}

int pair_value_or_fault(const SubtableLayout& s, const std::byte* base, std::uint64_t index, PairFault& fault) {
  PairBlockPosition at;
  if (!locate(s, base, index, at, fault)) return -1;
  return decode_in_block(s, base, at, fault);
}

Result<std::uint32_t> expand_pair_block(const SubtableLayout& s, const std::byte* base, std::uint32_t block,
                                        std::span<std::uint16_t> out, const std::string& name) {
  if (block >= s.block_count) return pair_code_fault(name, s.block_lengths, "no block " + std::to_string(block));
  const std::uint32_t count = std::uint32_t(load_le<std::uint16_t>(base + s.block_lengths + 2 * std::size_t(block))) + 1;
  if (out.size() < count) return pair_code_fault(name, s.block_lengths, "block longer than the buffer");
  const std::size_t block_start = s.data + std::size_t(block) * s.block_size;
  const std::byte* tree = base + s.tree;
  BlockBits in(base + block_start, s.block_size);
  std::uint32_t written = 0;
  // A symbol's values, leftmost first, from an explicit stack (expansions are at most 256 values).
  std::array<std::uint16_t, 2 * (kMaxExpansion + 1)> stack{};
  while (written < count) {
    std::size_t len = 0;
    while (in.bits < s.base[len]) ++len;
    const int used = int(len) + s.min_len;
    const std::size_t sym = std::size_t((in.bits - s.base[len]) >> (64 - used)) + s.lowest[len];
    if (sym >= s.symbol_count) return pair_code_fault(name, block_start, "symbol " + std::to_string(sym) + " out of range in a block");
    std::size_t depth = 0;
    stack[depth++] = std::uint16_t(sym);
    while (depth > 0 && written < count) {
      const std::uint16_t top = stack[--depth];
      if (tree_right(tree + kTreeEntrySize * top) == pairs::kLeafMark) {  // a leaf (read from the file, not the nodes)
        out[written++] = tree_left(tree + kTreeEntrySize * top);
      } else {
        stack[depth++] = tree_right(tree + kTreeEntrySize * top);
        stack[depth++] = tree_left(tree + kTreeEntrySize * top);
      }
    }
    if (written == count) break;
    if (!in.advance(used)) return pair_code_fault(name, block_start, "block's symbols run past its end");
  }
  return count;
}

}  // namespace tbkit::formats::syzygy
