#include "gen/syzygy_output.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <limits>
#include <numeric>
#include <optional>
#include <vector>

#include "formats/large_allocator.h"
#include "formats/syzygy_encoder.h"
#include "formats/syzygy_file.h"
#include "formats/syzygy_order_search.h"
#include "gen/one_ply50.h"
#include "gen/parallel.h"
#include "gen/stats.h"

namespace tbkit::gen {

using namespace chess;
namespace sz = formats::syzygy;

std::filesystem::path syzygy_path(const std::filesystem::path& dir, const Material& m, std::string_view extension) {
  return dir / (m.name() + std::string(extension));
}

namespace {

// What Syzygy's readers find out by themselves at a position of WDL50 w: whether a capture reaches
// w (the WDL file's search), and whether a win w is reached by a capture or pawn move (the DTZ
// file's).
struct Reach {
  bool capture = false;
  bool zeroing = false;
};

// A slot's codes in the two files.
struct SlotCodes {
  std::uint8_t wdl = sz::kWdlDontCare;
  sz::DtzSlot dtz;  // default: a don't-care
};

class SlotCoder {
 public:
  SlotCoder(const DtzTable& table, const DtzSet& subtables, bool flip)
      : table_(table), subtables_(subtables), flip_(flip) {}

  // Both files' codes of a subtable's placement (don't-cares where it is no legal position), from
  // one board and one pass over its legal moves.
  SlotCodes codes_of(const sz::SubtableIndex& sub, int side, const sz::SquareList& squares) const {
    const auto b = board_of(sub, side, squares);
    if (!b) return {};
    const int d = table_.dtz(*b);
    const int w = wdl50(d);
    const Reach reach = search(*b, w);
    SlotCodes out;
    // WDL: the exact value, or the freedom a capture leaves: any value up to the capture's, since
    // readers take the better of the two. That holds where every move captures too: Stockfish then
    // reads no table, but Fathom (and the engines built on it) does.
    if (reach.capture && w > -2) out.wdl = sz::wdl_at_most(w + 2);
    else out.wdl = std::uint8_t(w + 2);
    // DTZ: a don't-care where readers answer without the file: a win a zeroing move gives. A loss
    // whose moves all zero is stored (Fathom reads it; Stockfish answers without the file).
    if (d != 0 && !reach.zeroing) out.dtz = {std::uint16_t(std::abs(d)), std::int8_t(w)};
    return out;
  }

 private:
  // The board of a subtable's placement (table orientation as Syzygy's), in our orientation, or
  // nullopt for a placement that is no legal position.
  std::optional<Board> board_of(const sz::SubtableIndex& sub, int side, const sz::SquareList& squares) const {
    Board b;
    for (int k = 0; k < sub.piece_count(); ++k) {
      const Piece p = sub.piece(k);
      if (b.occupied() & squares[std::size_t(k)].bb()) return std::nullopt;
      b.put(p.color(), p.type(), squares[std::size_t(k)]);
    }
    b.side = Color(side);
    if (flip_) b = color_flipped(b);
    if (!is_legal(b)) return std::nullopt;
    return b;
  }

  // What Syzygy's probing searches find at a position of WDL50 w, for its side to move: whether a
  // capture reaches w (the WDL file's search), and whether a capture or pawn move reaches a win w
  // (the DTZ file's). No move does better than w, so the search stops once a capture reaches it.
  // A loss needs none: its WDL code is exact, and no zeroing move of a loss wins (the pass checked
  // that every zeroing move of a DTM loss loses). A draw or blessed loss needs its captures only
  // (a placement has no en-passant square).
  Reach search(const Board& b, int w) const {
    Reach reach;
    if (w == -2 || (w > 0 ? !may_zero(b) : !may_capture(b))) return reach;
    // Quiet piece moves neither capture nor move a pawn: they come in bulk without their children
    // (most of a position's moves), and are passed over.
    const auto pass_quiet = [](PieceType, Square, Bitboard) {};
    for_each_legal_move_bulk(b, pass_quiet, [&](const Board& child, const MoveInfo& mi) {
      if (reach.capture) return;
      const bool capture = (b.occupied() & mi.to.bb()) != 0;
      if (!capture && (w <= 0 || reach.zeroing || !is_zeroing(b, mi))) return;
      if (-child_wdl50(table_, subtables_, child, mi) < w) return;
      reach.zeroing = w > 0;
      reach.capture = capture;
    });
    return reach;
  }

 private:
  const DtzTable& table_;
  const DtzSet& subtables_;
  bool flip_;
};

// Subtables' codes, each computed in parallel when first asked for. The encoder reads a subtable in
// order, perhaps more than once: a WDL file each subtable once (one is kept), a DTZ file every
// subtable twice, statistics of all first, then values of both sides to move (all are kept, since
// each costs a capture search per slot).
template <class Code>
class SubtableCache {
 public:
  explicit SubtableCache(bool keep_all) : keep_all_(keep_all) {}

  // A subtable's codes, the code of each index computed from its placement in `sub`.
  template <class Compute>
  std::span<const Code> get_placed(const sz::SubtableIndex& sub, int side, int file, tbb::task_arena& arena,
                                   Compute&& compute) {
    return get_ranges(side, file, sub.size(), arena, [&](std::uint64_t first, std::span<Code> out) {
      if (out.empty()) return;
      sz::SubtableWalk walk(sub, first);
      for (std::size_t k = 0;;) {
        out[k] = compute(first + k, walk.squares());
        if (++k == out.size()) break;
        walk.next();
      }
    });
  }

  // The same, the codes computed a range at a time: fill(first, out) sets out[k] to the code of
  // index first + k.
  template <class Fill>
  std::span<const Code> get_ranges(int side, int file, std::uint64_t size, tbb::task_arena& arena, Fill&& fill) {
    if (const auto codes = held(side, file, size); !codes.empty()) return codes;
    if (!keep_all_) entries_.clear();
    Entry& e = entries_.emplace_back();
    e.key = file * 2 + side;
    e.codes = Codes(size);
    parallel_chunks(arena, size, kSlotChunk, [&](std::uint64_t first, std::uint64_t last) {
      fill(first, e.span().subspan(first, last - first));
    });
    return e.span();
  }

  // The codes of a subtable already held, or none.
  [[nodiscard]] std::span<const Code> held(int side, int file, std::uint64_t size) const {
    const int key = file * 2 + side;
    for (const Entry& e : entries_)
      if (e.key == key && e.codes.size() == size) return e.span();
    return {};
  }
  [[nodiscard]] bool contains(int side, int file, std::uint64_t size) const { return !held(side, file, size).empty(); }

  // Room for a subtable's codes, to be filled by the caller before any get() of it (a get() then
  // returns them); nothing when they are already held.
  std::span<Code> reserve(int side, int file, std::uint64_t size) {
    if (contains(side, file, size)) return {};
    if (!keep_all_) entries_.clear();
    Entry& e = entries_.emplace_back();
    e.key = file * 2 + side;
    e.codes = Codes(size);
    return e.span();
  }

  // Frees a subtable's codes.
  void release(int side, int file) {
    const int key = file * 2 + side;
    std::erase_if(entries_, [&](const Entry& e) { return e.key == key; });
  }

 private:
  // Hundreds of MB read at random through OrderMaps: on huge pages, most reads miss no TLB. The
  // pages are not cleared first (every code is written before it is read), so the threads that fill
  // them are the first to touch them.
  using Codes = formats::ZeroedArray<Code>;
  struct Entry {
    int key = -1;
    Codes codes;
    [[nodiscard]] std::span<Code> span() { return {codes.data(), codes.size()}; }
    [[nodiscard]] std::span<const Code> span() const { return {codes.data(), codes.size()}; }
  };
  bool keep_all_;
  std::vector<Entry> entries_;
};

// Indices of a subtable in one piece order -> indices of the same side and lead file in the order
// the codes are computed in: decode, put the squares in the other order, encode (both apply the
// same board symmetries, under which values do not change).
class OrderMap {
 public:
  OrderMap(const sz::SubtableIndex& from, const sz::SubtableIndex& to) : from_(from), to_(to) {
    std::array<bool, sz::kMaxPieces> used{};
    for (int k = 0; k < to.piece_count(); ++k)
      for (int j = 0; j < from.piece_count(); ++j)
        if (!used[std::size_t(j)] && from.piece(j) == to.piece(k)) {
          used[std::size_t(j)] = true;
          source_[std::size_t(k)] = j;
          break;
        }
    identity_ = from.order0() == to.order0() && from.order1() == to.order1();
    for (int k = 0; k < to.piece_count(); ++k) identity_ = identity_ && from.piece(k) == to.piece(k);
    // Orders that begin alike (the leading group, then in pawn tables the other colour's pawns)
    // bring a placement into the same normal form: `from`'s squares need no symmetry in `to`.
    const int fixed = from.group_length(0) + from.material().other_pawn_count();
    same_lead_ = true;
    for (int k = 0; k < fixed; ++k) same_lead_ = same_lead_ && from.piece(k) == to.piece(k);
    prefix_len_ = fixed;
    pawn_group_ = from.material().other_pawn_count() > 0;
  }
  [[nodiscard]] bool identity() const { return identity_; }
  // Whether the target index splits into the prefix's part and the rest's (same_lead_): the rest's
  // part is then kept while the walk changes only the prefix.
  [[nodiscard]] bool splits() const { return same_lead_; }
  // The parts of a splitting map's target index, their sum (SubtableIndex::prefix_value, rest_value).
  [[nodiscard]] std::uint64_t prefix_part(const sz::SubtableWalk& walk) const {
    return to_.prefix_value(walk.digit(0), pawn_group_ ? walk.digit(1) : 0);
  }
  [[nodiscard]] std::uint64_t rest_part(const sz::SubtableWalk& walk) const {
    const std::span<const int> positions = walk.rest_positions();
    std::array<int, sz::kMaxPieces> ordered{};
    const int n = to_.piece_count();
    for (int k = prefix_len_; k < n; ++k) ordered[std::size_t(k - prefix_len_)] = positions[std::size_t(source_[std::size_t(k)])];
    return to_.rest_value(std::span<const int>(ordered).first(std::size_t(n - prefix_len_)));
  }
  [[nodiscard]] const sz::SubtableIndex& from() const { return from_; }
  // The target index of the placement a walk of `from` stands on, kNoIndex when the target cannot
  // encode it (no legal position). For maps that do not split (a splitting map's index is
  // prefix_part + rest_part).
  [[nodiscard]] std::uint64_t operator()(const sz::SubtableWalk& walk) const {
    // Square numbers, not a SquareList: a list of 1-byte squares put together in a register spilled
    // through overlapping stores that the loads after them could not be forwarded, which cost about
    // half of copy_mapped's time.
    const std::span<const int> squares = walk.square_numbers();
    std::array<int, sz::kMaxPieces> ordered{};
    const auto n = std::size_t(to_.piece_count());
    for (std::size_t k = 0; k < n; ++k) ordered[k] = squares[std::size_t(source_[k])];
    const auto placed = std::span<const int>(ordered).first(n);
    return to_.encode_distinct(placed);
  }

 private:
  const sz::SubtableIndex& from_;
  const sz::SubtableIndex& to_;
  std::array<int, sz::kMaxPieces> source_{};
  bool identity_ = false;
  bool same_lead_ = false;
  bool pawn_group_ = false;  // group 1 is the other colour's pawns (part of the prefix)
  int prefix_len_ = 0;
};

// out[k] = the code of index begin + k of `sub`, read from `codes` (those of `computed`).
template <class Code>
void copy_mapped(const OrderMap& map, std::span<const Code> codes, std::uint64_t begin, std::span<Code> out,
                 Code dont_care) {
  if (map.identity()) {
    std::copy_n(codes.begin() + std::ptrdiff_t(begin), out.size(), out.begin());
    return;
  }
  // The mapped indices scatter over `codes` (hundreds of MB for a 5-man table): each read would be a
  // cache and TLB miss in turn. Indices are mapped a batch at a time and their codes prefetched, so
  // the misses overlap one another and the next batch's index arithmetic.
  constexpr std::size_t kBatch = 32;
  std::array<std::uint64_t, kBatch> at;
  if (out.empty()) return;
  sz::SubtableWalk walk(map.from(), begin);
  const int men = map.from().piece_count();
  std::uint64_t rest = 0;  // a splitting map's rest part, kept while only the prefix steps
  for (std::size_t k0 = 0; k0 < out.size(); k0 += kBatch) {
    const std::size_t n = std::min(kBatch, out.size() - k0);
    for (std::size_t t = 0; t < n; ++t) {
      if (k0 + t > 0) walk.next();
      if (map.splits()) {
        if (walk.rest_changed() < men) rest = map.rest_part(walk);
        at[t] = map.prefix_part(walk) + rest;
      } else {
        at[t] = map(walk);
      }
      if (at[t] != sz::SubtableIndex::kNoIndex) __builtin_prefetch(codes.data() + at[t]);
    }
    for (std::size_t t = 0; t < n; ++t) out[k0 + t] = at[t] == sz::SubtableIndex::kNoIndex ? dont_care : codes[at[t]];
  }
}

// The piece order of one subtable (side, lead file of `computed`) whose sample compresses smallest,
// `estimate` giving a sample's bytes; `cost`, when given, gets that sample's bytes. Candidates are
// judged in parallel, each on its own sample, so the choice does not depend on the thread count.
template <class Code, class Estimate>
Result<sz::SubtableIndex> choose_order(const sz::SubtableIndex& computed, std::span<const Code> codes, Code dont_care,
                                       const SyzygyWriteOptions& options, tbb::task_arena& arena,
                                       const Estimate& estimate, std::uint64_t* cost = nullptr) {
  constexpr std::uint64_t kNotJudged = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t cheapest = kNotJudged;
  // The sampled bytes of each candidate order in `which` (the others keep their cost in `out`).
  const auto judge = [&](std::span<const sz::SubtableIndex> candidates, const std::vector<std::size_t>& which,
                         int fraction_log2, std::uint64_t min_values, std::vector<std::uint64_t>& out) {
    // Every candidate order of a subtable has its size: one set of ranges serves them all.
    const auto ranges = sz::sample_ranges(computed.size(), fraction_log2, min_values, options.sample_segments);
    parallel_each(arena, which.size(), [&](std::uint64_t w) {
      const sz::SubtableIndex& sub = candidates[which[w]];
      const OrderMap map(sub, computed);
      std::uint64_t total = 0;
      for (const auto& [first, last] : ranges) total += last - first;
      std::vector<Code, formats::LargeAllocator<Code>> sample(total);
      std::size_t at = 0;
      for (const auto& [first, last] : ranges) {
        copy_mapped<Code>(map, codes, first, std::span<Code>(sample).subspan(at, std::size_t(last - first)), dont_care);
        at += std::size_t(last - first);
      }
      const Result<std::uint64_t> bytes = estimate(std::span<const Code>(sample));
      out[which[w]] = bytes ? *bytes : kNotJudged;
    });
  };
  const sz::OrderCosts costs = [&](std::span<const sz::SubtableIndex> candidates) {
    std::vector<std::size_t> finalists(candidates.size());
    std::iota(finalists.begin(), finalists.end(), std::size_t{0});
    std::vector<std::uint64_t> out(candidates.size(), kNotJudged);
    const int coarse_log2 = options.sample_fraction_log2 + options.prune_shift;
    const std::uint64_t coarse_min = options.sample_min >> options.prune_shift;
    // Pruning pays only where the coarse sample is smaller than the full one.
    const bool prune = options.prune_keep > 0 && candidates.size() > std::size_t(options.prune_keep) &&
                       sz::sample_values(computed.size(), coarse_log2, coarse_min) <
                           sz::sample_values(computed.size(), options.sample_fraction_log2, options.sample_min);
    if (prune) {
      judge(candidates, finalists, coarse_log2, coarse_min, out);
      // The best prune_keep, ties to the earlier candidate.
      std::stable_sort(finalists.begin(), finalists.end(), [&](std::size_t a, std::size_t b) { return out[a] < out[b]; });
      finalists.resize(std::size_t(options.prune_keep));
      std::sort(finalists.begin(), finalists.end());
      std::fill(out.begin(), out.end(), kNotJudged);
    }
    judge(candidates, finalists, options.sample_fraction_log2, options.sample_min, out);
    for (const std::uint64_t c : out) cheapest = std::min(cheapest, c);
    return out;
  };
  auto chosen = sz::search_piece_order(computed.material(), computed.file(), costs);
  if (cost) *cost = cheapest;  // the chosen order is the cheapest of all judged
  return chosen;
}

// A table index of `chosen` orders ([file * sides + side]).
Result<sz::TableIndex> table_index_of(const sz::TableMaterial& m, int sides,
                                      const std::vector<sz::SubtableIndex>& chosen) {
  std::vector<sz::PieceList> orders;
  std::vector<std::array<int, 2>> nibbles;
  for (const sz::SubtableIndex& sub : chosen) {
    orders.push_back(sz::order_of(sub).pieces);
    nibbles.push_back({sub.order0(), sub.order1()});
  }
  return sz::make_table_index(m, sides, orders, nibbles);
}

// The encoder's parallel loops, run in `arena`.
sz::ParallelFor in_arena(tbb::task_arena& arena) {
  return [&arena](std::size_t tasks, const std::function<void(std::size_t)>& body) {
    parallel_each(arena, tasks, [&](std::uint64_t t) { body(std::size_t(t)); });
  };
}

std::uint64_t bytes_of(const std::filesystem::path& p) {
  std::error_code ec;
  const auto n = std::filesystem::file_size(p, ec);
  return ec ? 0 : std::uint64_t(n);
}

}  // namespace

Result<SyzygyFiles> write_syzygy_files(const std::filesystem::path& dir, const DtzTable& table, const DtzSet& subtables,
                                       tbb::task_arena& arena, const SyzygyWriteOptions& options) {
  const Material& m = table.material();
  auto tm = sz::TableMaterial::from_name(m.name());
  if (!tm) return tm.error();
  // Syzygy's orientation puts the side named first as White, as ours does; a mismatch is flipped.
  bool flip = false;
  for (int t = 0; t < 5; ++t)
    if (tm->count(Color::kWhite, PieceType(t)) != m.count(Color::kWhite, PieceType(t))) flip = true;
  const SlotCoder coder(table, subtables, flip);

  // Codes are computed once per subtable in the default order (`computed`) and kept while the file
  // is written: the order choice and the encoder read them through an OrderMap.
  auto wdl_computed = sz::default_table_index(*tm, sz::TableKind::kWdl);
  if (!wdl_computed) return wdl_computed.error();
  auto dtz_computed = sz::default_table_index(*tm, sz::TableKind::kDtz);
  if (!dtz_computed) return dtz_computed.error();
  // Both default indexes order the pieces alike, so a subtable's WDL and DTZ codes come from one
  // pass over its boards (one decode and one move search each); the DTZ codes are kept for the DTZ
  // file, which reads every side's.
  SubtableCache<std::uint8_t> wdl_cache(true);
  SubtableCache<sz::DtzSlot> dtz_cache(true);
  const auto wdl_codes = [&](int side, int file) {
    const sz::SubtableIndex& sub = wdl_computed->at(side, file);
    const sz::SubtableIndex& dtz_sub = dtz_computed->at(side, file);
    const bool same_order = std::ranges::equal(sub.pieces(), dtz_sub.pieces()) && sub.order0() == dtz_sub.order0() &&
                            sub.order1() == dtz_sub.order1() && sub.file() == dtz_sub.file() &&
                            sub.size() == dtz_sub.size();
    // Codes already held are returned as they are (the DTZ ones then too).
    const bool share = same_order && !wdl_cache.contains(side, file, sub.size());
    const std::span<sz::DtzSlot> dtz = share ? dtz_cache.reserve(side, file, sub.size()) : std::span<sz::DtzSlot>{};
    return wdl_cache.get_placed(sub, side, file, arena, [&](std::uint64_t i, const sz::SquareList& squares) {
      const SlotCodes c = coder.codes_of(sub, side, squares);
      if (!dtz.empty()) dtz[i] = c.dtz;
      return c.wdl;
    });
  };
  sz::TableIndex wdl_index = *wdl_computed;
  if (options.choose_orders) {
    std::vector<sz::SubtableIndex> chosen;
    for (int f = 0; f < wdl_computed->files; ++f)
      for (int side = 0; side < wdl_computed->sides; ++side) {
        auto sub = choose_order<std::uint8_t>(wdl_computed->at(side, f), wdl_codes(side, f), sz::kWdlDontCare,
                                              options, arena, [](std::span<const std::uint8_t> sample) {
                                                return sz::estimate_wdl_bytes(sample);
                                              });
        if (!sub) return sub.error();
        chosen.push_back(std::move(*sub));
      }
    auto index = table_index_of(*tm, wdl_computed->sides, chosen);
    if (!index) return index.error();
    wdl_index = std::move(*index);
  }
  const sz::WdlFill wdl_fill = [&](int side, int file, std::uint64_t begin, std::span<std::uint8_t> out) {
    const OrderMap map(wdl_index.at(side, file), wdl_computed->at(side, file));
    const auto codes = wdl_codes(side, file);
    parallel_ranges(arena, out.size(), kSlotChunk, [&](std::uint64_t first, std::uint64_t last) {
      copy_mapped<std::uint8_t>(map, codes, begin + first, out.subspan(first, last - first), sz::kWdlDontCare);
    });
  };
  SyzygyFiles out;
  const auto wdl_path = syzygy_path(dir, m, kWdlExtension);
  const sz::ParallelFor encode_in_arena = in_arena(arena);
  sz::EncodeOptions wdl_options;
  wdl_options.parallel = encode_in_arena;
  if (auto st = sz::write_wdl_file(wdl_path, wdl_index, wdl_fill, wdl_options); !st) return st.error();
  out.wdl_bytes = bytes_of(wdl_path);

  const auto dtz_codes = [&](int side, int file) {
    const sz::SubtableIndex& sub = dtz_computed->at(side, file);
    return dtz_cache.get_placed(sub, side, file, arena, [&](std::uint64_t, const sz::SquareList& squares) {
      return coder.codes_of(sub, side, squares).dtz;
    });
  };
  // An order per side to move (the encoder keeps the smaller side per lead file, with its order);
  // symmetric materials store white only. Where one side's best sample is clearly the smaller, the
  // encoder compresses that side alone (the full compression of both sides was the writer's largest
  // cost); where the samples are close, it compresses both and keeps the smaller.
  sz::TableIndex dtz_index = *dtz_computed;
  sz::EncodeOptions dtz_options;
  dtz_options.parallel = encode_in_arena;
  if (options.choose_orders) {
    const int sides = tm->is_symmetric() ? 1 : 2;
    std::vector<sz::SubtableIndex> chosen;
    for (int f = 0; f < dtz_computed->files; ++f) {
      std::array<std::uint64_t, 2> cost{};
      for (int side = 0; side < sides; ++side) {
        auto sub = choose_order<sz::DtzSlot>(dtz_computed->at(side, f), dtz_codes(side, f), sz::DtzSlot{}, options,
                                             arena, [](std::span<const sz::DtzSlot> sample) {
                                               return sz::estimate_dtz_bytes(sample);
                                             }, &cost[std::size_t(side)]);
        if (!sub) return sub.error();
        chosen.push_back(std::move(*sub));
      }
      if (sides == 2 && options.side_margin_percent >= 0) {
        const auto clearly_below = [&](std::uint64_t a, std::uint64_t b) {
          return a <= b && (b - a) * 100 > b * std::uint64_t(options.side_margin_percent);
        };
        if (clearly_below(cost[0], cost[1])) dtz_options.dtz_sides[std::size_t(f)] = 0;
        else if (clearly_below(cost[1], cost[0])) dtz_options.dtz_sides[std::size_t(f)] = 1;
      }
    }
    auto index = table_index_of(*tm, sides, chosen);
    if (!index) return index.error();
    dtz_index = std::move(*index);
  }
  // The encoder reads each DTZ subtable twice (statistics, values): it is mapped into its order once,
  // and the default-order codes are then freed.
  SubtableCache<sz::DtzSlot> dtz_ordered(true);
  const sz::DtzFill dtz_fill = [&](int side, int file, std::uint64_t begin, std::span<sz::DtzSlot> slots) {
    const sz::SubtableIndex& sub = dtz_index.at(side, file);
    const OrderMap map(sub, dtz_computed->at(side, file));
    std::span<const sz::DtzSlot> codes;
    if (map.identity()) {
      codes = dtz_codes(side, file);
    } else if (const auto ordered = dtz_ordered.held(side, file, sub.size()); !ordered.empty()) {
      codes = ordered;
    } else {
      const auto computed_codes = dtz_codes(side, file);
      codes = dtz_ordered.get_ranges(side, file, sub.size(), arena, [&](std::uint64_t first, std::span<sz::DtzSlot> range) {
        copy_mapped<sz::DtzSlot>(map, computed_codes, first, range, sz::DtzSlot{});
      });
      dtz_cache.release(side, file);
    }
    std::copy_n(codes.begin() + std::ptrdiff_t(begin), slots.size(), slots.begin());
  };
  const auto dtz_path = syzygy_path(dir, m, kDtzExtension);
  if (auto st = sz::write_dtz_file(dtz_path, dtz_index, dtz_fill, dtz_options); !st) return st.error();
  out.dtz_bytes = bytes_of(dtz_path);
  return out;
}

bool has_valid_syzygy_files(const std::filesystem::path& dir, const Material& m) {
  for (const char* ext : {kWdlExtension, kDtzExtension}) {
    auto file = sz::SyzygyFile::open(syzygy_path(dir, m, ext));
    if (!file || file->material().name() != m.name() || !file->verify_checksum()) return false;
  }
  return true;
}

namespace {

// Solves the WDL/DTZ tables of plan[k] (in dependency order) from the DTM files in `dir` (one-side
// ones through expanded copies in `cache`), for each k where wanted(k), plus those a later wanted
// table converts into (or reads their WDL50 off their DTM, see below), and calls
// visit(k, table, subtables, solve_seconds, seconds) for each wanted one. Tables are held only
// while a later wanted table needs them. `progress` (may be empty) hears of each read and solve.
Status for_each_dtz_table(const std::filesystem::path& dir, const std::filesystem::path& cache,
                          const std::vector<Material>& plan, const std::function<bool(std::size_t)>& wanted,
                          tbb::task_arena& arena,
                          const std::function<Status(std::size_t, std::shared_ptr<DtzTable>, const SolvedTable&,
                                                     const DtzSet&, double)>& visit,
                          const SyzygyProgressFn& progress = {}) {
  // The tables read: the wanted ones and, transitively, those they convert into (the plan lists
  // each table after those it converts into). A table read only for later ones whose DTM decides
  // every position within WdlTable::kShortDtmPlies gives its WDL50 straight from the DTM: neither it
  // nor, for its sake, the tables it converts into are solved. Such a table's DTM is read twice
  // (here, and when its turn comes) rather than its WDL50 held from here on.
  std::vector<bool> read(plan.size()), from_dtm(plan.size());
  auto lists = [&](std::size_t j, const Material& d) {  // plan[j] converts into d
    const auto conv = plan[j].conversions();
    return std::find(conv.begin(), conv.end(), d) != conv.end();
  };
  auto converts_into = [&](std::size_t j, const Material& d) {  // plan[j] is solved and converts into d
    return read[j] && !from_dtm[j] && lists(j, d);
  };
  auto any_after = [&](std::size_t k, auto&& pred) {
    for (std::size_t j = k + 1; j < plan.size(); ++j)
      if (pred(j)) return true;
    return false;
  };
  auto needed_after = [&](const Material& d, std::size_t k) {
    return any_after(k, [&](std::size_t j) { return converts_into(j, d); });
  };
  for (std::size_t j = plan.size(); j-- > 0;) {
    read[j] = wanted(j) || needed_after(plan[j], j);
    if (!read[j] || wanted(j)) continue;
    if (progress) progress({plan[j], "read", true, {}});
    TableSet dtm;
    if (Status st = dtm.load_expanded(dir, plan[j], cache, arena); !st) return st;
    from_dtm[j] = WdlTable::of_short_dtm(*dtm.find(plan[j]), arena) != nullptr;
  }
  // The expanded copies load_expanded makes of one-side tables (its own, and those of the tables it
  // converts into, which making its copy reads) go once no table still to be read may need them.
  auto copy_needed_after = [&](const Material& x, std::size_t k) {
    return any_after(k, [&](std::size_t j) { return read[j] && (plan[j] == x || lists(j, x)); });
  };
  DtzSet held;
  for (std::size_t k = 0; k < plan.size(); ++k) {
    const Material& m = plan[k];
    if (!read[k]) continue;
    const bool dependency = !wanted(k);
    if (progress) progress({m, "read", dependency, {}});
    TableSet dtm;
    if (Status st = dtm.load_expanded(dir, m, cache, arena); !st) return st;
    if (from_dtm[k]) {
      held.add(WdlTable::of_short_dtm(*dtm.find(m), arena));
    } else {
      DtzSet subtables;
      for (const Material& d : m.conversions()) subtables.add_from(held, d);
      const auto t0 = std::chrono::steady_clock::now();
      DtzProgressFn solving;
      if (progress) solving = [&](const DtzProgress& p) { progress({m, "solve", dependency, p}); };
      auto table = solve_dtz(*dtm.find(m), subtables, arena, solving);
      if (!table) return table.error();
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (wanted(k))
        if (Status st = visit(k, *table, *dtm.find(m), subtables, seconds); !st) return st;
      // Later tables read only its WDL50: a sixth of the memory (see WdlTable).
      if (needed_after(m, k)) held.add(WdlTable::of(**table, arena));
    }
    DtzSet keep;  // what later tables still need
    for (const Material& x : plan)
      if (needed_after(x, k)) keep.add_from(held, x);
    held = std::move(keep);
    std::error_code ec;
    for (const Material& x : plan)
      if (!copy_needed_after(x, k)) std::filesystem::remove(table_path(cache, x), ec);
  }
  return {};
}

}  // namespace

Result<std::shared_ptr<DtzTable>> dtz_table_from_dtm_files(const std::filesystem::path& dir, const Material& m,
                                                           tbb::task_arena& arena, const std::filesystem::path& cache) {
  const std::vector<Material> plan = dependency_closure({m});
  std::shared_ptr<DtzTable> out;
  const Status st = for_each_dtz_table(
      dir, cache, plan, [&](std::size_t k) { return plan[k] == m.normalized(); }, arena,
      [&](std::size_t, std::shared_ptr<DtzTable> table, const SolvedTable&, const DtzSet&, double) -> Status {
        out = std::move(table);
        return {};
      });
  if (!st) return st.error();
  return out;
}

Status visit_dtz_tables(const std::filesystem::path& dir, const std::vector<Material>& wanted, tbb::task_arena& arena,
                        const std::filesystem::path& cache, const DtzVisit& visit) {
  std::vector<Material> normalized;
  for (const Material& m : wanted) normalized.push_back(m.normalized());
  const std::vector<Material> plan = dependency_closure(normalized);
  return for_each_dtz_table(
      dir, cache, plan,
      [&](std::size_t k) { return std::find(normalized.begin(), normalized.end(), plan[k]) != normalized.end(); }, arena,
      [&](std::size_t, std::shared_ptr<DtzTable> table, const SolvedTable& dtm, const DtzSet& subtables,
          double seconds) { return visit(*table, dtm, subtables, seconds); });
}

Status generate_syzygy_tables(const std::vector<Material>& wanted, const GenOptions& opts, tbb::task_arena& arena,
                              const std::function<void(const SyzygySummary&)>& summary,
                              const SyzygyWriteOptions& options, const SyzygyProgressFn& progress) {
  const std::vector<Material> plan = dependency_closure(wanted);
  std::vector<bool> missing(plan.size());
  std::error_code ec;
  for (std::size_t k = 0; k < plan.size(); ++k) {
    missing[k] = !has_valid_syzygy_files(opts.dir, plan[k]);
    for (const char* ext : {kWdlExtension, kDtzExtension})
      std::filesystem::remove(syzygy_path(opts.dir, plan[k], ext).string() + ".tmp", ec);
    if (!missing[k] && summary) {
      SyzygySummary s;
      s.material = plan[k];
      s.skipped = true;
      summary(s);
    }
  }
  // Expanded copies go beside the tables, as the DTM run's do (a resumed run may find them).
  const std::filesystem::path cache = opts.dir / kExpandedCacheDir;
  const Status st = for_each_dtz_table(
      opts.dir, cache, plan, [&](std::size_t k) { return bool(missing[k]); }, arena,
      [&](std::size_t k, std::shared_ptr<DtzTable> table, const SolvedTable&, const DtzSet& subtables,
          double seconds) -> Status {
        const auto t0 = std::chrono::steady_clock::now();
        SyzygySummary s;
        s.material = plan[k];
        s.solve_seconds = seconds;
        if (progress) progress({plan[k], "write", false, {}});
        auto files = write_syzygy_files(opts.dir, *table, subtables, arena, options);
        if (!files) return files.error();
        s.wdl_bytes = files->wdl_bytes;
        s.dtz_bytes = files->dtz_bytes;
        const auto stats = compute_stats50(*table, arena);
        for (const auto& x : stats) {
          s.wins += x.win;
          s.cursed_wins += x.cursed_win;
          s.draws += x.draw;
          s.blessed_losses += x.blessed_loss;
          s.losses += x.loss;
        }
        s.seconds = seconds + std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (summary) summary(s);
        return {};
      },
      progress);
  if (std::filesystem::is_empty(cache, ec)) std::filesystem::remove(cache, ec);
  return st;
}

}  // namespace tbkit::gen
