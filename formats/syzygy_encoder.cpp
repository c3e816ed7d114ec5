// Syzygy writer: value preparation (WDL, DTZ) and file layout. The compression core (pair
// symbols, Huffman codes, blocks) is formats/syzygy_pairs.cpp.
#include "formats/syzygy_encoder.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <numeric>
#include <optional>
#include <string>
#include <utility>

#include "formats/byte_order.h"
#include "formats/syzygy_pairs.h"
#include "formats/table_file.h"

namespace tbkit::formats::syzygy {
namespace {

using pairs::append_le;
using pairs::kLeafMark;
using pairs::kMaxByteLeaves;
using pairs::kMaxSymbols;
using pairs::single_value_record;
using pairs::SymbolDef;
using pairs::SymbolStream;

constexpr std::size_t kFillChunk = std::size_t{1} << 16;

pairs::StreamOptions stream_options(int max_block_log2, const EncodeOptions& options) {
  pairs::StreamOptions out;
  out.min_pair_frequency = options.min_pair_frequency;
  out.max_block_log2 = max_block_log2;
  out.parallel = options.parallel;
  out.pack_ratio = options.pack_ratio;
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
  pairs::StreamValues<std::uint8_t> data(size);
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
  return pairs::compress_stream(stream, std::move(defs), flags, stream_options(options.max_wdl_block_log2, options));
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
  pairs::StreamValues<T> data(size);
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
    out = pairs::compress_stream(stream, std::move(defs), flags, stream_options(options.max_dtz_block_log2, options));
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

// ---- Estimates -------------------------------------------------------------------------------------

Result<std::uint64_t> estimate_wdl_bytes(std::span<const std::uint8_t> codes, const EncodeOptions& options) {
  const WdlFill fill = [&codes](int, int, std::uint64_t begin, std::span<std::uint8_t> out) {
    std::copy_n(codes.begin() + std::ptrdiff_t(begin), out.size(), out.begin());
  };
  auto c = compress_wdl_subtable(codes.size(), 0, 0, fill, 0, options);
  if (!c) return c.error();
  return pairs::stored_bytes(*c);
}

Result<std::uint64_t> estimate_dtz_bytes(std::span<const DtzSlot> slots, const EncodeOptions& options) {
  const DtzFill fill = [&slots](int, int, std::uint64_t begin, std::span<DtzSlot> out) {
    std::copy_n(slots.begin() + std::ptrdiff_t(begin), out.size(), out.begin());
  };
  auto c = compress_dtz_subtable(slots.size(), 0, 0, fill, false, false, options);
  if (!c) return c.error();
  return pairs::stored_bytes(*c);
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
  const int given_sides = index.sides;
  if (auto st = check_index(index, given_sides == 2 ? 2 : 1); !st) return st.error();
  const bool symmetric = index.material.is_symmetric();
  // Statistics of both sides everywhere: they decide the ply accuracy of the whole table (a win or
  // loss of exactly 100 plies on either side, as Syzygy decides it) and the maps.
  std::vector<std::array<DtzStats, 2>> stats(std::size_t(index.files));
  // white_plies: white's wins / black's losses of exactly 100 plies occur; black_plies the reverse.
  // A symmetric table's black-to-move half is its white-to-move half mirrored.
  bool white_plies = false, black_plies = false;
  for (int f = 0; f < index.files; ++f)
    for (int side = 0; side < (symmetric ? 1 : 2); ++side) {
      auto st = gather_dtz_stats(index.at(side, f).size(), side, f, fill);
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
  std::vector<PieceList> kept_orders;
  std::vector<std::array<int, 2>> kept_nibbles;
  for (int f = 0; f < index.files; ++f) {
    std::optional<CompressedSubtable> best;
    int best_side = 0;
    for (int side = 0; side < (symmetric ? 1 : 2); ++side) {
      const int wanted = options.dtz_sides[std::size_t(f)];
      if (wanted >= 0 && !symmetric && side != wanted) continue;
      // The side to move's wins are its own colour's; its losses the other colour's wins.
      const bool w = options.force_win_plies || (side == 0 ? white_plies : black_plies);
      const bool l = options.force_loss_plies || (side == 0 ? black_plies : white_plies);
      auto c = compress_dtz_with_stats(index.at(side, f).size(), side, f, fill,
                                       stats[std::size_t(f)][std::size_t(side)], w, l, options);
      if (!c) return c.error();
      if (!best || pairs::stored_bytes(*c) < pairs::stored_bytes(*best)) best = std::move(*c), best_side = side;
    }
    subtables.push_back(std::move(*best));
    const SubtableIndex& kept = index.at(best_side, f);
    PieceList order{};
    std::copy(kept.pieces().begin(), kept.pieces().end(), order.begin());
    kept_orders.push_back(order);
    kept_nibbles.push_back({kept.order0(), kept.order1()});
  }
  if (given_sides == 1) return assemble_file(index, TableKind::kDtz, subtables);
  auto stored = make_table_index(index.material, 1, kept_orders, kept_nibbles);
  if (!stored) return stored.error();
  return assemble_file(*stored, TableKind::kDtz, subtables);
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
