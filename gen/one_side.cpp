#include "gen/one_side.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <optional>

#include "gen/parallel.h"

namespace tbkit::gen {

using namespace chess;
using formats::SlotFreedom;

namespace {


SlotFreedom freedom_of(const TableSet& subtables, const Board& b, DtmValue exact) {
  const Conversions conv = conversions_of(subtables, b);
  // Mate and stalemate: the reader sees them on the board; storing a value no better than the
  // true one keeps "stored <= exact" on every legal slot, which lets readers bound a position's
  // value by its stored value alone (probe/tablebase.cpp prunes its one-ply search with it).
  if (!conv.any_move) return SlotFreedom::kNoBetter;
  return conv.best && *conv.best == exact ? SlotFreedom::kNoBetter : SlotFreedom::kExact;
}

void fill_freedom(const SolvedTable& table, Color side, const TableSet& subtables, std::uint64_t first,
                  std::uint64_t last, SlotFreedom* out) {
  Board b;
  for (std::uint64_t i = first; i < last; ++i) {
    const DtmValue v = table.values[index_of(side)][i];
    if (v.is_illegal() || !table.scheme.decode(i, side, b)) {
      out[i - first] = SlotFreedom::kAny;
      continue;
    }
    out[i - first] = freedom_of(subtables, b, v);
  }
}

}  // namespace

Conversions conversions_of(const TableSet& subtables, const Board& b) {
  Conversions out;
  // Quiet piece moves only tell that a move exists: reported in bulk, their children are not built.
  for_each_legal_move_bulk(
      b, [&](PieceType, Square, Bitboard) { out.any_move = true; },
      [&](const Board& child, const MoveInfo& mi) {
        out.any_move = true;
        if (mi.kind != MoveKind::kConversion) return;
        const DtmValue v = back_up(subtables.probe(child));
        out.best = out.best ? better_of(*out.best, v) : v;
      });
  return out;
}

std::vector<SlotFreedom> search_slot_freedom(const SolvedTable& table, Color side, const TableSet& subtables,
                                             tbb::task_arena& arena) {
  std::vector<SlotFreedom> out(table.scheme.size());
  parallel_chunks(arena, out.size(), kSlotChunk, [&](std::uint64_t first, std::uint64_t last) {
    fill_freedom(table, side, subtables, first, last, out.data() + first);
  });
  return out;
}

NoBetterMarks no_better_marks(const SolvedTable& table, Color side, const TableSet& subtables, tbb::task_arena& arena) {
  if (!table.no_better[index_of(side)].empty()) return table.no_better[index_of(side)];
  const std::uint64_t n = table.scheme.size();
  NoBetterMarks marks((n + 63) / 64, 0);
  // Chunks of kSlotChunk slots (a multiple of 64): no two tasks share a word.
  parallel_chunks(arena, n, kSlotChunk, [&](std::uint64_t first, std::uint64_t last) {
    std::vector<SlotFreedom> chunk(last - first);
    fill_freedom(table, side, subtables, first, last, chunk.data());
    for (std::uint64_t i = first; i < last; ++i)
      if (chunk[i - first] == SlotFreedom::kNoBetter) marks[i / 64] |= std::uint64_t{1} << (i % 64);
  });
  return marks;
}

std::vector<SlotFreedom> slot_freedom(const SolvedTable& table, Color side, const TableSet& subtables,
                                      tbb::task_arena& arena) {
  const NoBetterMarks marks = no_better_marks(table, side, subtables, arena);
  const auto& values = table.values[index_of(side)];
  std::vector<SlotFreedom> out(values.size());
  parallel_chunks(arena, out.size(), kSlotChunk, [&](std::uint64_t first, std::uint64_t last) {
    for (std::uint64_t i = first; i < last; ++i) out[i] = freedom_at(values[i], marks, i);
  });
  return out;
}

namespace {

// The values and freedoms of `side`'s storage slots [first, last) in `order`, into values[0 ..
// last - first) and freedom[0 .. last - first).
void gather(const SolvedTable& table, Color side, const NoBetterMarks& marks, const StorageOrder& order,
            std::uint64_t first, std::uint64_t last, DtmValue* values, SlotFreedom* freedom) {
  const auto& source = table.values[index_of(side)];
  order.for_each_slot(first, last, [&](std::uint64_t s, std::uint64_t i) {
    const DtmValue v = source[i];
    values[s - first] = v;
    freedom[s - first] = freedom_at(v, marks, i);
  });
}

StoredValues permuted(const SolvedTable& table, Color side, const NoBetterMarks& marks, const StorageOrder& order,
                      tbb::task_arena& arena) {
  const std::uint64_t n = table.scheme.size();
  StoredValues out{formats::ZeroedArray<DtmValue>(n), formats::ZeroedArray<SlotFreedom>(n)};
  parallel_chunks(arena, n, kSlotChunk, [&](std::uint64_t first, std::uint64_t last) {
    gather(table, side, marks, order, first, last, out.values.data() + first, out.freedom.data() + first);
  });
  return out;
}

// How many legal slots of `side` hold each raw value (TableEncoder::create_from_counts), over
// the storage slots [first, first + count) of each window in `order`; over a whole table the
// counts do not depend on the order.
std::vector<std::uint64_t> value_counts(const SolvedTable& table, Color side, const StorageOrder& order,
                                        std::span<const std::pair<std::uint64_t, std::uint64_t>> windows) {
  std::vector<std::uint64_t> counts(65536, 0);
  const auto& source = table.values[index_of(side)];
  for (const auto& [first, count] : windows)
    order.for_each_slot(first, first + count, [&](std::uint64_t, std::uint64_t i) {
      if (!source[i].is_illegal()) ++counts[source[i].raw()];
    });
  return counts;
}

// The stand-in codec's options: zstd level -1, the first of its fast levels. It picked a better side
// or order for LZMA2 than level 1 (the 3+4 set: 17,045 bytes smaller, one table's choice changed,
// KQvKB 6.4%) at the same cost (docs/results.md, "Balanced retuned").
formats::TableWriteOptions stand_in_options() {
  formats::TableWriteOptions options;
  options.codec = formats::BlockCodec::kZstd;
  options.compression_level = -1;
  return options;
}

constexpr std::uint8_t kFreeNarrow = 0xFF, kNoBetterNarrow = 0x80;

// formats::fill_code for narrow keys (SlotKeys): the same codes.
constexpr std::uint8_t fill_narrow(std::uint8_t& previous, std::uint8_t key) {
  const std::uint8_t own = key & std::uint8_t(~kNoBetterNarrow);
  const bool keep = key == kFreeNarrow || ((key & kNoBetterNarrow) && previous <= own);
  return previous = keep ? previous : own;
}

// Each slot's symbol key (TableEncoder::symbol_key) for `side`, by index, narrow where the codes
// allow; `encoder` keyed().
SlotKeys slot_keys(const SolvedTable& table, Color side, const NoBetterMarks& marks, const formats::TableEncoder& encoder,
                   tbb::task_arena& arena) {
  const auto& values = table.values[index_of(side)];
  SlotKeys keys;
  const bool narrow = encoder.symbol_width() == 1 && encoder.symbol_count() < kNoBetterNarrow - 1u;  // codes <= 126
  if (narrow) keys.narrow.resize(values.size());
  else keys.wide.resize(values.size());
  const std::span<const std::uint16_t> codes = encoder.symbol_codes();  // symbol_key, inlined
  parallel_chunks(arena, values.size(), kSlotChunk, [&](std::uint64_t first, std::uint64_t last) {
    for (std::uint64_t i = first; i < last; ++i) {
      const std::uint16_t key =
          values[i].is_illegal()
              ? formats::kFreeKey
              : std::uint16_t(codes[values[i].raw()] | ((marks[i / 64] >> (i % 64)) & 1 ? formats::kNoBetterKey : 0));
      assert(key == encoder.symbol_key(values[i], freedom_at(values[i], marks, i)));
      if (!narrow) keys.wide[i] = key;
      else if (key == formats::kFreeKey) keys.narrow[i] = kFreeNarrow;
      else keys.narrow[i] = std::uint8_t(key & 0x7F) | (key & formats::kNoBetterKey ? kNoBetterNarrow : 0);
    }
  });
  return keys;
}

// The storage slots [lo, hi) of `order` coded into `out` from `keys` by fill(previous, key),
// `width` bytes a slot (little endian); `previous` is the code before lo (0 at a block's start),
// and is left at hi's.
template <class Key, class Fill>
void code_slots(const std::vector<Key>& keys, const StorageOrder& order, std::uint64_t lo, std::uint64_t hi, int width,
                Key& previous, Fill&& fill, std::byte* out) {
  if (width == 1)
    order.for_each_slot(lo, hi, [&](std::uint64_t, std::uint64_t i) { *out++ = std::byte(fill(previous, keys[i])); });
  else  // two-byte symbols (narrow keys too: their codes' high byte is 0)
    order.for_each_slot(lo, hi, [&](std::uint64_t, std::uint64_t i) {
      const std::uint16_t code = fill(previous, keys[i]);
      *out++ = std::byte(code & 0xFF);
      *out++ = std::byte(code >> 8);
    });
}

// Block k of `side` in `order`, coded from its slots' keys and compressed: of each `stride` slots
// from the block's start, the first `piece`, joined (the fill starts afresh at the block and runs
// on over the pieces). The whole block (piece = stride = block_values()) gives encode_block's bytes
// for the same slots, without gathering values first; choose_stored_side's sample
// (kSamplePiece of every kSampleStride) gives them for the sample's values and freedoms.
Result<std::vector<std::byte>> encode_keyed_block(const formats::TableEncoder& encoder, const SlotKeys& keys,
                                                  const StorageOrder& order, std::uint64_t k, std::uint64_t piece,
                                                  std::uint64_t stride) {
  const std::uint64_t lo = k * encoder.block_values(), hi = std::min<std::uint64_t>(keys.size(), lo + encoder.block_values());
  thread_local std::vector<std::byte> coded;  // kept by the thread for its next block
  const int width = encoder.symbol_width();
  coded.resize((hi - lo) * std::size_t(width));
  std::byte* out = coded.data();
  std::uint8_t narrow_previous = 0;
  std::uint16_t wide_previous = 0;
  for (std::uint64_t a = lo; a < hi; a += stride) {
    const std::uint64_t b = std::min(hi, a + piece);
    if (!keys.narrow.empty())
      code_slots(keys.narrow, order, a, b, width, narrow_previous,
                 [](std::uint8_t& p, std::uint8_t key) { return fill_narrow(p, key); }, out);
    else
      code_slots(keys.wide, order, a, b, width, wide_previous,
                 [](std::uint16_t& p, std::uint16_t key) { return formats::fill_code(p, key); }, out);
    out += (b - a) * std::size_t(width);
  }
  return encoder.compress_coded({coded.data(), std::size_t(out - coded.data())});
}

Result<std::vector<std::byte>> encode_keyed_block(const formats::TableEncoder& encoder, const SlotKeys& keys,
                                                  const StorageOrder& order, std::uint64_t k) {
  return encode_keyed_block(encoder, keys, order, k, encoder.block_values(), encoder.block_values());
}

constexpr std::uint64_t kFailed = ~std::uint64_t{0};

// The file size of `encoder`'s blocks, each coded by code(k) (a Result of its bytes) in parallel
// in `arena`; with a `bound`, kFailed once the blocks done exceed it (see proxy_bytes).
template <class Code>
std::uint64_t bounded_file_size(const formats::TableEncoder& encoder, tbb::task_arena& arena,
                                const std::atomic<std::uint64_t>* bound, Code&& code) {
  std::vector<std::uint64_t> sizes(encoder.block_count(), kFailed);
  std::atomic<std::uint64_t> done{encoder.file_size(0)};  // the blocks coded so far, and the rest of the file
  parallel_each(arena, sizes.size(), [&](std::uint64_t k) {
    if (bound && done.load(std::memory_order_relaxed) > bound->load(std::memory_order_relaxed)) return;
    if (auto bytes = code(k)) {
      sizes[k] = bytes->size();
      done.fetch_add(bytes->size(), std::memory_order_relaxed);
    }
  });
  std::uint64_t sum = 0;
  for (const std::uint64_t size : sizes) {
    if (size == kFailed) return kFailed;
    sum += size;
  }
  return encoder.file_size(sum);
}

// The zstd stand-in for the writer's codec (docs/formats/table.md): bytes of the capture-resolved
// symbols of `side` in `order`, over the storage slots [first, first + count) of each window,
// joined. `counts` are value_counts' for the same arguments. Each block is gathered by the
// thread that codes it, in parallel in `arena` (also when called from one of its loops); the
// bytes are encode_table's for the same values.
//
// With a `bound` (the size of another candidate, which may fall while this one runs), blocks
// not yet begun are skipped once the blocks done exceed it, and the result is kFailed: such a
// candidate cannot be the smallest. So the smallest size is found whatever the timing.
std::uint64_t proxy_bytes(const SolvedTable& table, Color side, const NoBetterMarks& marks, const StorageOrder& order,
                          std::span<const std::pair<std::uint64_t, std::uint64_t>> windows,
                          std::span<const std::uint64_t> counts, tbb::task_arena& arena,
                          const std::atomic<std::uint64_t>* bound = nullptr) {
  std::uint64_t total = 0;
  for (const auto& window : windows) total += window.second;
  formats::TableInfo info;
  info.material = table.material().name();
  info.positions_per_side = total;
  auto encoder = formats::TableEncoder::create_from_counts(info, side, true, counts, stand_in_options());
  if (!encoder) return kFailed;
  const std::uint64_t per_block = encoder->block_values();
  return bounded_file_size(*encoder, arena, bound, [&](std::uint64_t k) {
    // No task of the arena runs inside this body, so the thread's buffers stay this block's.
    thread_local std::vector<DtmValue> values;
    thread_local std::vector<SlotFreedom> freedoms;
    const std::uint64_t lo = k * per_block, hi = std::min(total, lo + per_block);
    values.resize(hi - lo);
    freedoms.resize(hi - lo);
    std::uint64_t base = 0;  // the window's first position in the joined sample
    for (const auto& [first, count] : windows) {
      // The sample's positions [a, b) of this block lie in this window.
      const std::uint64_t a = std::max(lo, base), b = std::min(hi, base + count);
      if (a < b)
        gather(table, side, marks, order, first + (a - base), first + (b - base), values.data() + (a - lo),
               freedoms.data() + (a - lo));
      base += count;
    }
    return encoder->encode_block(values, freedoms);
  });
}

// proxy_bytes over the whole table from a side's keys and its stand-in encoder (keyed()).
std::uint64_t keyed_proxy_bytes(const formats::TableEncoder& encoder, const SlotKeys& keys,
                                const StorageOrder& order, tbb::task_arena& arena,
                                const std::atomic<std::uint64_t>* bound = nullptr) {
  return bounded_file_size(encoder, arena, bound, [&](std::uint64_t k) { return encode_keyed_block(encoder, keys, order, k); });
}

// The stand-in's bytes for the sample of each of `encoder`'s blocks, summed (the blocks alone: the
// two sides' file headers differ).
std::uint64_t keyed_sample_bytes(const formats::TableEncoder& encoder, const SlotKeys& keys, const StorageOrder& order,
                                 tbb::task_arena& arena) {
  const std::uint64_t size = bounded_file_size(encoder, arena, nullptr, [&](std::uint64_t k) {
    return encode_keyed_block(encoder, keys, order, k, kSamplePiece, kSampleStride);
  });
  return size == kFailed ? kFailed : size - encoder.file_size(0);
}

}  // namespace

std::vector<StorageOrder> candidate_orders(const IndexScheme& scheme) {
  std::vector<StorageOrder> out{StorageOrder(scheme)};
  const int n = scheme.digit_count();
  if (n > 4) return out;
  std::vector<int> order(static_cast<std::size_t>(n));
  for (int d = 0; d < n; ++d) order[std::size_t(d)] = d;
  while (std::next_permutation(order.begin(), order.end())) out.emplace_back(scheme, order);
  return out;
}

namespace {

// Makes every block of `encoder`, block k by code(k) (a Result of its bytes), in parallel in
// `arena`, a window of blocks (16 per thread, at least 64) at a time, and hands each window's
// blocks to take(k, bytes) in block order: only a window's blocks are held at once. The first
// error by block number (code's or take's) stops it and is returned.
template <class Code, class Take>
Status code_blocks(const formats::TableEncoder& encoder, tbb::task_arena& arena, Code&& code, Take&& take) {
  const std::uint64_t n = encoder.block_count();
  const std::uint64_t window = std::max<std::uint64_t>(64, 16 * std::uint64_t(std::max(1, arena.max_concurrency())));
  std::vector<std::vector<std::byte>> blocks;
  std::vector<Status> errors;
  for (std::uint64_t first = 0; first < n; first += window) {
    const std::uint64_t count = std::min(window, n - first);
    blocks.assign(count, {});
    errors.assign(count, {});
    parallel_each(arena, count, [&](std::uint64_t j) {
      auto b = code(first + j);
      if (b) blocks[j] = std::move(*b);
      else errors[j] = b.error();
    });
    for (std::uint64_t j = 0; j < count; ++j) {
      if (!errors[j]) return errors[j];
      if (Status st = take(first + j, std::span<const std::byte>(blocks[j])); !st) return st;
      blocks[j] = {};
    }
  }
  return {};
}

// The whole file in memory (for tests and small callers).
Result<std::vector<std::byte>> assemble_blocks(const formats::TableEncoder& encoder, tbb::task_arena& arena,
                                               const BlockCoder& code) {
  std::vector<std::vector<std::byte>> blocks(encoder.block_count());
  Status st = code_blocks(encoder, arena, code, [&](std::uint64_t k, std::span<const std::byte> bytes) {
    blocks[k].assign(bytes.begin(), bytes.end());
    return Status{};
  });
  if (!st) return st.error();
  return encoder.assemble(blocks);
}

// The file streamed to `path` (tmp + rename): the blocks as they come, then the head before them.
Status write_blocks(const std::filesystem::path& path, const formats::TableEncoder& encoder, tbb::task_arena& arena,
                    const BlockCoder& code) {
  auto file = formats::AtomicFile::create(path);
  if (!file) return file.error();
  std::vector<formats::BlockExtent> extents;
  extents.reserve(encoder.block_count());
  std::uint64_t offset = encoder.data_offset();
  Status st = code_blocks(encoder, arena, code, [&](std::uint64_t, std::span<const std::byte> bytes) {
    extents.push_back(formats::extent_of(bytes));
    const std::uint64_t at = offset;
    offset += bytes.size();
    return file->write_at(at, bytes);
  });
  if (!st) return st;
  auto head = encoder.head(extents);
  if (!head) return head.error();
  if (st = file->write_at(0, *head); !st) return st;
  return file->commit();
}

}  // namespace

Result<std::vector<std::byte>> encode_in_parallel(const formats::TableEncoder& encoder, tbb::task_arena& arena) {
  return assemble_blocks(encoder, arena, [&](std::uint64_t k) { return encoder.encode_block(k); });
}

Status write_in_parallel(const std::filesystem::path& path, const formats::TableEncoder& encoder, tbb::task_arena& arena) {
  return write_blocks(path, encoder, arena, [&](std::uint64_t k) { return encoder.encode_block(k); });
}

StoredSide choose_stored_side(const SolvedTable& table, const TableSet& subtables, tbb::task_arena& arena) {
  const bool symmetric = table.material().is_symmetric();
  const int sides = symmetric ? 1 : 2;
  NoBetterMarks marks[2];
  for (int side = 0; side < sides; ++side) marks[side] = no_better_marks(table, Color(side), subtables, arena);
  // The sample: the whole table up to kSample slots, else kWindows windows spread evenly.
  constexpr std::uint64_t kSample = std::uint64_t{8} << 20, kWindows = 32;
  const std::uint64_t n = table.scheme.size();
  std::vector<std::pair<std::uint64_t, std::uint64_t>> windows;
  if (n <= kSample) windows.emplace_back(0, n);
  else
    for (std::uint64_t w = 0; w < kWindows; ++w) windows.emplace_back(w * (n / kWindows), kSample / kWindows);
  const std::vector<StorageOrder> orders = candidate_orders(table.scheme);
  // Over the whole table, each side's value counts, stand-in encoder and slot keys serve all its
  // orders (the counts do not depend on the order there), and the picked side's serve the file.
  std::vector<std::uint64_t> counts[2];
  std::optional<formats::TableEncoder> whole_encoder[2];
  SlotKeys keys[2];
  if (windows.size() == 1)
    parallel_each(arena, std::uint64_t(sides), [&](std::uint64_t side) {
      counts[side] = value_counts(table, Color(side), orders[0], windows);
      formats::TableInfo info;
      info.material = table.material().name();
      info.positions_per_side = n;
      auto encoder = formats::TableEncoder::create_from_counts(info, Color(side), true, counts[side], stand_in_options());
      if (!encoder || !encoder->keyed()) return;  // proxy_bytes then
      keys[side] = slot_keys(table, Color(side), marks[side], *encoder, arena);
      whole_encoder[side] = std::move(*encoder);
    });
  auto size_candidate = [&](int side, std::size_t o, const std::atomic<std::uint64_t>* bound) {
    if (whole_encoder[side]) return keyed_proxy_bytes(*whole_encoder[side], keys[side], orders[o], arena, bound);
    return proxy_bytes(table, Color(side), marks[side], orders[o], windows,
                       value_counts(table, Color(side), orders[o], windows), arena, bound);
  };
  const std::size_t candidates = std::size_t(sides) * orders.size();
  // Which candidates (side * orders.size() + order) are sized, and each side's one sized first.
  std::vector<char> sized(candidates, 1);
  std::size_t first[2] = {0, 0};
  const bool keyed = whole_encoder[0] && (sides == 1 || whole_encoder[1]);
  if (keyed && orders.size() > 1 && n >= kStagedFrom) {
    // Every candidate over an eighth of each block first; only those within 1/kSampleMargin of the
    // smallest sample are then sized in full, each side's smallest sample first
    // (docs/results.md, "Balanced in 2 MiB blocks; the stand-in in two stages").
    std::vector<std::uint64_t> sample(candidates);
    parallel_each(arena, candidates, [&](std::uint64_t k) {
      const int side = int(k / orders.size());
      sample[k] = keyed_sample_bytes(*whole_encoder[side], keys[side], orders[k % orders.size()], arena);
    });
    const std::uint64_t low = *std::min_element(sample.begin(), sample.end());
    for (std::size_t k = 0; k < candidates; ++k) sized[k] = sample[k] - low <= low / kSampleMargin;
    for (int side = 0; side < sides; ++side)
      for (std::size_t o = 1; o < orders.size(); ++o)
        if (sample[side * orders.size() + o] < sample[side * orders.size() + first[side]]) first[side] = o;
  }
  std::vector<std::uint64_t> cost(candidates, kFailed);
  // Each side's first candidate in full; then the others, each given up once it is larger than
  // the smallest so far (only the smallest and its size are used below). Sized over the whole
  // table, the sides are compared by these sizes, so one bound serves both: a side whose orders
  // are all given up (or not sized) is larger than the other's best. Over windows each side's
  // best order is needed, so each side has its own.
  std::atomic<std::uint64_t> smallest[2];
  parallel_each(arena, std::uint64_t(sides), [&](std::uint64_t side) {
    const std::size_t k = side * orders.size() + first[side];
    if (sized[k]) cost[k] = size_candidate(int(side), first[side], nullptr);
    smallest[side].store(cost[k]);
  });
  const bool one_bound = windows.size() == 1;
  if (one_bound && sides == 2) smallest[0].store(std::min(smallest[0].load(), smallest[1].load()));
  std::atomic<std::uint64_t>* bound[2] = {&smallest[0], one_bound ? &smallest[0] : &smallest[1]};
  std::vector<std::size_t> rest;
  for (std::size_t k = 0; k < candidates; ++k)
    if (sized[k] && k % orders.size() != first[k / orders.size()]) rest.push_back(k);
  parallel_each(arena, rest.size(), [&](std::uint64_t r) {
    const std::size_t k = rest[r];
    const int side = int(k / orders.size());
    const std::uint64_t size = size_candidate(side, k % orders.size(), bound[side]);
    cost[k] = size;
    std::uint64_t seen = bound[side]->load();
    while (size < seen && !bound[side]->compare_exchange_weak(seen, size)) {
    }
  });
  // Each side's best order (ties: the earlier candidate, so the identity).
  std::size_t best[2] = {0, 0};
  for (int side = 0; side < sides; ++side)
    for (std::size_t o = 1; o < orders.size(); ++o)
      if (cost[std::size_t(side) * orders.size() + o] < cost[std::size_t(side) * orders.size() + best[side]])
        best[side] = o;
  int pick = 0;
  if (sides == 2) {
    // The sides in their best orders over the whole table (a sample misjudges the side more often).
    std::uint64_t size[2];
    if (windows.size() == 1) {
      for (int side = 0; side < 2; ++side) size[side] = cost[std::size_t(side) * orders.size() + best[side]];
    } else {
      const std::pair<std::uint64_t, std::uint64_t> whole{0, n};
      for (int side = 0; side < 2; ++side)
        size[side] = proxy_bytes(table, Color(side), marks[side], orders[best[side]], {&whole, 1},
                                 value_counts(table, Color(side), orders[0], {&whole, 1}), arena);
    }
    pick = size[1] < size[0] ? 1 : 0;
  }
  return {Color(pick), std::move(marks[pick]), orders[best[pick]], std::move(counts[pick]), std::move(keys[pick])};
}

StoredValues stored_values(const SolvedTable& table, const StoredSide& stored, tbb::task_arena& arena) {
  return permuted(table, stored.side, stored.no_better, stored.order, arena);
}

namespace {

// Hands the encoder of `stored`'s version-3 file and its block coder to use(encoder, code).
Status with_stored_side_coder(const SolvedTable& table, const StoredSide& stored, const formats::TableInfo& info,
                              const formats::TableWriteOptions& options, tbb::task_arena& arena,
                              const std::function<Status(const formats::TableEncoder&, const BlockCoder&)>& use) {
  if (options.dictionary_bytes == 0) {
    const std::pair<std::uint64_t, std::uint64_t> whole{0, table.scheme.size()};
    std::vector<std::uint64_t> counted;
    if (stored.counts.empty()) counted = value_counts(table, stored.side, stored.order, {&whole, 1});
    auto encoder = formats::TableEncoder::create_from_counts(info, stored.side, true,
                                                             stored.counts.empty() ? counted : stored.counts, options);
    if (!encoder) return encoder.error();
    if (encoder->keyed()) {
      // The same counts in preference order give the same keys whatever the codec.
      SlotKeys found;
      if (stored.keys.empty()) found = slot_keys(table, stored.side, stored.no_better, *encoder, arena);
      const SlotKeys& keys = stored.keys.empty() ? found : stored.keys;
      return use(*encoder, [&](std::uint64_t k) { return encode_keyed_block(*encoder, keys, stored.order, k); });
    }
  }
  const StoredValues values = stored_values(table, stored, arena);
  const formats::OneSide one{stored.side, {values.values.data(), values.values.size()},
                             {values.freedom.data(), values.freedom.size()}};
  auto encoder = formats::TableEncoder::create(info, one, options);
  if (!encoder) return encoder.error();
  return use(*encoder, [&](std::uint64_t k) { return encoder->encode_block(k); });
}

}  // namespace

Result<std::vector<std::byte>> encode_stored_side(const SolvedTable& table, const StoredSide& stored,
                                                  const formats::TableInfo& info,
                                                  const formats::TableWriteOptions& options, tbb::task_arena& arena) {
  if (options.format_version == 4) {
    // One static model for the whole table: coded whole, not block by block.
    const StoredValues values = stored_values(table, stored, arena);
    const formats::OneSide one{stored.side, {values.values.data(), values.values.size()},
                               {values.freedom.data(), values.freedom.size()}};
    return formats::encode_table(info, one, options);
  }
  std::vector<std::byte> out;
  Status st = with_stored_side_coder(table, stored, info, options, arena,
                                     [&](const formats::TableEncoder& encoder, const BlockCoder& code) -> Status {
                                       auto bytes = assemble_blocks(encoder, arena, code);
                                       if (!bytes) return bytes.error();
                                       out = std::move(*bytes);
                                       return {};
                                     });
  if (!st) return st.error();
  return out;
}

Status write_stored_side(const std::filesystem::path& path, const SolvedTable& table, const StoredSide& stored,
                         const formats::TableInfo& info, const formats::TableWriteOptions& options,
                         tbb::task_arena& arena) {
  if (options.format_version == 4) {
    auto bytes = encode_stored_side(table, stored, info, options, arena);
    if (!bytes) return bytes.error();
    return formats::write_file_atomically(path, *bytes);
  }
  return with_stored_side_coder(table, stored, info, options, arena,
                                [&](const formats::TableEncoder& encoder, const BlockCoder& code) {
                                  return write_blocks(path, encoder, arena, code);
                                });
}

void expand_table(SolvedTable& table, Color stored, bool capture_resolved, const TableSet& subtables,
                  tbb::task_arena& arena, const SlotProgressFn& progress) {
  const IndexScheme& scheme = table.scheme;
  ValueArray& mine = table.values[index_of(stored)];
  ValueArray& other = table.values[index_of(~stored)];
  const std::uint64_t n = scheme.size();
  other = ValueArray(n);
  std::atomic<std::uint64_t> done{0};
  auto report = [&](std::uint64_t slots) {
    if (progress) progress(done.fetch_add(slots, std::memory_order_relaxed) + slots, 2 * n);
  };
  // Pass 1: the stored side's exact values (mate and stalemate from the board; capture-resolved
  // values raised to their best conversion).
  parallel_chunks(arena, n, kSlotChunk, [&](std::uint64_t first, std::uint64_t last) {
    SlotBoards boards(scheme, stored);
    for (std::uint64_t i = first; i < last; ++i) {
      if (mine[i].is_illegal()) continue;
      const Board* decoded = boards.at(i);
      assert(decoded);
      const Board& b = *decoded;
      const Conversions conv = conversions_of(subtables, b);
      if (!conv.any_move) mine[i] = in_check(b) ? DtmValue::loss_in_plies(0) : DtmValue::draw();
      else if (capture_resolved && conv.best) mine[i] = better_of(mine[i], *conv.best);
    }
    report(last - first);
  });
  // Pass 2: the other side, from the stored side's exact values.
  const bool symmetric = table.material().is_symmetric();
  auto probe = [&](const Board& b) { return subtables.probe(b); };  // en-passant captures leave the table
  parallel_chunks(arena, n, kSlotChunk, [&](std::uint64_t first, std::uint64_t last) {
    SlotBoards boards(scheme, ~stored);
    for (std::uint64_t i = first; i < last; ++i) {
      const Board* decoded = boards.at(i);
      if (!decoded || !is_legal(*decoded)) {
        other[i] = DtmValue::illegal();
        continue;
      }
      const Board& b = *decoded;
      if (symmetric) {
        other[i] = mine[scheme.encode(color_flipped(b))];
        continue;
      }
      std::optional<DtmValue> best;
      for_each_legal_move(b, [&](const Board& child, const MoveInfo& mi) {
        DtmValue reply = mi.kind == MoveKind::kConversion ? subtables.probe(child) : table.value(child);
        if (mi.kind == MoveKind::kDoublePush) reply = with_en_passant(child, mi.ep_square, reply, probe);
        const DtmValue v = back_up(reply);
        best = best ? better_of(*best, v) : v;
      });
      other[i] = best ? *best : in_check(b) ? DtmValue::loss_in_plies(0) : DtmValue::draw();
    }
    report(last - first);
  });
}

}  // namespace tbkit::gen
