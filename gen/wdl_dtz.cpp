#include "gen/wdl_dtz.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cassert>
#include <optional>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "formats/large_allocator.h"
#include "gen/one_ply50.h"
#include "gen/parallel.h"
#include "gen/unmove_index.h"

namespace tbkit::gen {

using namespace chess;

void DtzSet::add_entries(const Material& m, const DtzTable* whole, const WdlTable* wdl_only) {
  entries_.push_back({m.key(), false, whole, wdl_only});
  if (!m.is_symmetric()) entries_.push_back({m.flipped().key(), true, whole, wdl_only});
}

void DtzSet::add(std::shared_ptr<const DtzTable> table) {
  assert(table != nullptr);
  add_entries(table->material(), table.get(), nullptr);
  whole_.push_back(std::move(table));
}

void DtzSet::add(std::shared_ptr<const WdlTable> table) {
  assert(table != nullptr);
  add_entries(table->material(), nullptr, table.get());
  wdl_only_.push_back(std::move(table));
}

bool DtzSet::add_from(const DtzSet& other, const Material& normalized) {
  for (const auto& t : other.whole_)
    if (t->material() == normalized) return add(t), true;
  for (const auto& t : other.wdl_only_)
    if (t->material() == normalized) return add(t), true;
  return false;
}

const DtzTable* DtzSet::find(const Material& normalized) const {
  for (const auto& t : whole_)
    if (t->material() == normalized) return t.get();
  return nullptr;
}

bool DtzSet::contains(const Material& normalized) const {
  if (find(normalized)) return true;
  return std::any_of(wdl_only_.begin(), wdl_only_.end(), [&](const auto& t) { return t->material() == normalized; });
}

const DtzSet::Entry* DtzSet::entry(std::uint32_t key) const {
  for (const Entry& e : entries_)
    if (e.key == key) return &e;
  return nullptr;
}

Dtz DtzSet::probe(const Board& b) const {
  const std::uint32_t key = b.material_key();
  if (key == 0) return 0;
  const Entry* e = entry(key);
  assert(e && e->whole && "DtzSet::probe: table not loaded whole");
  return e->flip ? e->whole->dtz(color_flipped(b)) : e->whole->dtz(b);
}

int DtzSet::wdl(const Board& b) const {
  const std::uint32_t key = b.material_key();
  if (key == 0) return 0;
  const Entry* e = entry(key);
  assert(e && "DtzSet::wdl: table not loaded");
  if (e->whole) return wdl50(e->flip ? e->whole->dtz(color_flipped(b)) : e->whole->dtz(b));
  return e->flip ? e->wdl_only->wdl(color_flipped(b)) : e->wdl_only->wdl(b);
}

namespace {

// A WdlTable of n slots a side whose slot i of side s holds wdl(s, i) (as wdl50 gives it, or 0 for an
// unused slot), packed in parallel; null when wdl returns kRefuse for some slot.
constexpr int kRefuse = 3;
template <class F>
std::shared_ptr<const WdlTable> pack_wdl(const Material& m, std::uint64_t n, tbb::task_arena& arena, F&& wdl) {
  auto out = std::make_shared<WdlTable>(m);
  for (int s = 0; s < 2; ++s) out->packed[s] = formats::ZeroedArray<std::uint8_t>((n + 2) / 3);
  std::atomic<bool> refused{false};
  // Chunks of a multiple of 3 slots: each byte is written by one task.
  parallel_side_chunks(arena, n, std::uint64_t{3} << 16, [&](int side, std::uint64_t first, std::uint64_t last,
                                                            std::uint64_t) {
    if (refused.load(std::memory_order_relaxed)) return;
    std::uint8_t* bytes = out->packed[side].data();
    for (std::uint64_t i = first; i < last; i += 3) {
      int byte = 0;
      for (std::uint64_t k = std::min(last - i, std::uint64_t{3}); k-- > 0;) {
        const int w = wdl(side, i + k);
        if (w == kRefuse) {
          refused.store(true, std::memory_order_relaxed);
          return;
        }
        byte = byte * 5 + w + 2;
      }
      bytes[i / 3] = std::uint8_t(byte);
    }
  });
  return refused.load() ? nullptr : out;
}

}  // namespace

std::shared_ptr<const WdlTable> WdlTable::of(const DtzTable& table, tbb::task_arena& arena) {
  return pack_wdl(table.material(), table.scheme.size(), arena, [&](int side, std::uint64_t i) {
    const Dtz d = table.values[side].data()[i];
    return d == kDtzIllegal ? 0 : wdl50(d);
  });
}

std::shared_ptr<const WdlTable> WdlTable::of_short_dtm(const SolvedTable& dtm, tbb::task_arena& arena) {
  return pack_wdl(dtm.material(), dtm.scheme.size(), arena, [&](int side, std::uint64_t i) {
    const DtmValue v = dtm.values[side][i];
    if (v.is_illegal() || v.is_draw()) return 0;
    if (v.plies() > kShortDtmPlies) return kRefuse;
    return v.is_win() ? 2 : -2;
  });
}

namespace {

// Working states, kept in the result's own arrays (int16):
//   kIllegal                  unused slot (also the final value)
//   0                         draw (final)
//   1 .. kWinOpen - 1         win: the shortest distance found so far, final once its ply is propagated
//   kWinOpen                  win, no distance found yet
//   -1 .. -kMaxDistance       loss, resolved: -d (final)
//   kLossOpen + 256 f + c     loss with c (1..255) non-zeroing moves not yet resolved, weighted as
//                             in the DTM solver (a child that is its own mirror image counts
//                             twice); its best zeroing move
//                             gives no floor (f = 0), 1 (f = 1) or 101 plies (f = 2)
constexpr Dtz kIllegal = kDtzIllegal;
constexpr Dtz kLossOpen = kDtzIllegal;  // plus at least one move: never kIllegal
constexpr Dtz kWinOpen = std::numeric_limits<Dtz>::max();
constexpr int kMaxDistance = 30000;
// A zeroing move into a blessed loss (or, for the loser, into a cursed win).
constexpr int kCursedExit = 101;

// The counter lives in the state, so a count-down touches one slot: one cache miss, not two.
constexpr int kOpenLossCodes = 3 * 256;
static_assert(kLossOpen + kOpenLossCodes <= -kMaxDistance, "open losses overlap resolved ones");
constexpr bool is_open_loss(Dtz s) { return s > kLossOpen && s < kLossOpen + kOpenLossCodes; }
constexpr int floor_of(Dtz s) {
  const int f = (s - kLossOpen) >> 8;
  return f == 0 ? 0 : f == 1 ? 1 : kCursedExit;
}
constexpr int moves_of(Dtz s) { return (s - kLossOpen) & 255; }
constexpr Dtz open_loss(int floor, int moves) {
  return Dtz(kLossOpen + 256 * (floor == 0 ? 0 : floor == 1 ? 1 : 2) + moves);
}

constexpr std::uint64_t kChunk = 1 << 12;
// A chunk remembers which plies (modulo kPlyModulus) were set in it, so a ply's scan skips the rest.
constexpr int kPlyWords = 4;
constexpr int kPlyModulus = 64 * kPlyWords;

// The pawn levels of a scheme. Pawn moves are the only moves within a table that change the pawns,
// and each raises the pawns' progress, so the positions of one pawn placement (for every king pair
// and piece placement) depend only on placements of more progress through their zeroing moves. In
// the index (docs/index.md) the pawns' numbers are the digits after the king pair, so a placement's
// slots under one king pair are `span` consecutive slots.
// Placements of one level with consecutive numbers are consecutive slots, so a level is kept as
// runs of them: a pass over a level makes one call per run, not per placement (pawn tables with
// no other piece have a slot per placement, and a call per slot cost more than the work).
struct PlacementRun {
  std::uint64_t first = 0;  // placement number
  std::uint64_t count = 0;
};
using Level = std::vector<PlacementRun>;  // ascending
struct Levels {
  std::uint64_t span = 0;     // slots of one pawn placement under one king pair
  std::vector<Level> levels;  // most advanced first
};

// Progress: the ranks White's pawns have advanced plus those Black's have.
int pawn_progress(const Board& b) {
  int progress = 0;
  for (Bitboard bb = b.pieces(Color::kWhite, PieceType::kPawn); bb;) progress += pop_lsb(bb).rank();
  for (Bitboard bb = b.pieces(Color::kBlack, PieceType::kPawn); bb;) progress += 7 - pop_lsb(bb).rank();
  return progress;
}

Levels plan_levels(const IndexScheme& scheme) {
  const int pawn_digits = int(scheme.group_of(Color::kWhite, PieceType::kPawn) >= 0) +
                          int(scheme.group_of(Color::kBlack, PieceType::kPawn) >= 0);
  std::uint64_t placements = 1;
  for (int d = 1; d <= pawn_digits; ++d) placements *= scheme.digit_radix(d);
  Levels levels;
  levels.span = scheme.pair_stride() / placements;
  assert(levels.span * placements == scheme.pair_stride());
  if (pawn_digits == 0) {
    levels.levels = {Level{PlacementRun{0, 1}}};
    return levels;
  }
  std::vector<int> progress(placements);
  int most = 0;
  for (std::uint64_t c = 0; c < placements; ++c) {
    // Some king pair leaves the pawns' squares free (pair 0 has both kings on the first rank).
    Board b;
    for (int pair = 0; pair < scheme.king_pairs(); ++pair)
      if (scheme.decode(std::uint64_t(pair) * scheme.pair_stride() + c * levels.span, Color::kWhite, b)) break;
    progress[c] = pawn_progress(b);
    most = std::max(most, progress[c]);
  }
  std::vector<Level> by_progress(std::size_t(most) + 1);
  for (std::uint64_t c = 0; c < placements; ++c) {
    Level& level = by_progress[std::size_t(progress[c])];
    if (!level.empty() && level.back().first + level.back().count == c) ++level.back().count;
    else level.push_back({c, 1});
  }
  for (int p = most; p >= 0; --p)
    if (!by_progress[std::size_t(p)].empty()) levels.levels.push_back(std::move(by_progress[std::size_t(p)]));
  return levels;
}

class DtzSolver {
 public:
  DtzSolver(const SolvedTable& dtm, const DtzSet& subtables, tbb::task_arena& arena, const DtzProgressFn& progress)
      : dtm_(dtm), table_(std::make_shared<DtzTable>(dtm.material())), scheme_(table_->scheme),
        subtables_(subtables), arena_(arena), progress_(progress), pawns_(dtm.material().has_pawns()),
        levels_(plan_levels(scheme_)) {}

  Result<std::shared_ptr<DtzTable>> run();

 private:
  std::atomic_ref<Dtz> state(int side, std::uint64_t i) { return std::atomic_ref(out_[side][i]); }
  // Slot i of `side` got a value to propagate at ply d.
  void note(int side, std::uint64_t i, int d) {
    assert(d >= 1 && d <= kMaxDistance && "a distance beyond the state encoding");
    int cur = max_ply_.load(std::memory_order_relaxed);
    while (d > cur && !max_ply_.compare_exchange_weak(cur, d, std::memory_order_relaxed)) {}
    const int bit = d % kPlyModulus;
    const std::uint64_t mask = std::uint64_t{1} << (bit % 64);
    std::atomic_ref word(chunk_plies_[side][i / kChunk * kPlyWords + std::uint64_t(bit / 64)]);
    if (!(word.load(std::memory_order_relaxed) & mask)) word.fetch_or(mask, std::memory_order_relaxed);
  }
  // Read only while no task notes this side (a scan of one side updates the other).
  [[nodiscard]] bool chunk_may_hold(int side, std::uint64_t i, int ply) const {
    const int bit = ply % kPlyModulus;
    return (chunk_plies_[side][i / kChunk * kPlyWords + std::uint64_t(bit / 64)] >> (bit % 64)) & 1;
  }
  // The next slot in [i, last) of `side` whose state is ply or -ply, or `last`.
  [[nodiscard]] std::uint64_t next_at(int side, std::uint64_t i, std::uint64_t last, int ply) const;

  // Calls body(side, first, last) over ranges covering the slots of `level` on the given sides, in
  // parallel, each task's ranges in increasing order; body returns a count, and the sum is returned.
  template <class F>
  std::uint64_t for_level(int level, bool both_sides, int side, F&& body);

  // The slots of `level` at `ply` (state ply or -ply) on `side`, resolved: their predecessors are
  // gathered and updated (a loss's, unless `pulled`). Walks only the chunks noted for the ply, and in
  // each only the level's ranges (level_ranges_), in parallel; returns how many there were. The cost
  // follows the chunks noted, not the level's king pairs and runs: a pawn table whose pawns are its
  // only men has runs of a few slots, thousands of them a king pair, and a walk of them at every ply
  // cost many times the DTM solve (docs/results.md, "a ply's scan walks the chunks noted for it").
  std::uint64_t resolve_ply(int side, int ply, bool pulled);
  // Calls visit(first, last) for each range of the current level's slots in [first, last), in order.
  template <class F>
  void for_level_slots(std::uint64_t first, std::uint64_t last, F&& visit) const;

  // The WDL50 of a zeroing move's child, for the child's side to move (a double push: with the
  // en-passant captures it allows).
  [[nodiscard]] int child_wdl(const Board& child, const MoveInfo& mi) const;
  [[nodiscard]] Dtz initial_state(int side, std::uint64_t i, const Board* b);
  [[nodiscard]] Dtz win_exit(const Board& b) const;
  [[nodiscard]] Dtz loss_start(const Board& b);
  // The predecessors of one resolved slot, gathered (and their slots prefetched) before they are
  // updated.
  struct Preds {
    std::array<std::uint64_t, 128> index;
    std::array<std::uint8_t, 128> weight;
    std::size_t n = 0;
    bool loss = false;  // the slot is a loss: its predecessors win
  };
  // Gathers into `out` the predecessors of slot i of `side` (b its board; `loss`: its state is a
  // loss) by non-zeroing un-moves, prefetching their slots.
  void gather(int side, std::uint64_t i, const Board& b, bool loss, Preds& out) const;
  // Counts of one task's updates, added to the solver's at its end.
  struct Counts {
    std::uint64_t wins_closed = 0;    // wins given their distance
    std::uint64_t losses_next = 0;    // losses resolved at the next ply
    std::uint64_t losses_cursed = 0;  // losses resolved at kCursedExit
  };
  // Updates the predecessors of `preds`, gathered from a slot of `side` resolved at `ply`.
  void apply(int side, const Preds& preds, int ply, Counts& counts);
  [[nodiscard]] bool improve_win(int side, std::uint64_t i, int d);
  // The distance of the loss resolved, or 0 when the slot stays open (or is no open loss).
  [[nodiscard]] int count_down(int side, std::uint64_t i, int ply, int weight);
  void add_counts(int side, int ply, const Counts& counts);
  // Whether the wins of `side` still open pull their distance from their children at `ply` rather
  // than be pushed it by the other side's losses at `ply`: when they are fewer than half those
  // losses. The first time, it lists them (in `listed_`; wins that close drop out as they are met).
  bool pull_now(int side, int level, int ply);
  // The pull: each open win of `side` with a non-zeroing move into a loss of the other side at
  // `ply` wins at ply + 1.
  void pull(int side, int ply);

  const SolvedTable& dtm_;
  std::shared_ptr<DtzTable> table_;
  const IndexScheme& scheme_;
  const DtzSet& subtables_;
  tbb::task_arena& arena_;
  const DtzProgressFn& progress_;
  const bool pawns_;
  const Levels levels_;
  // The current level's slots within one king pair: [first, last) offsets, ascending, disjoint.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> level_ranges_;
  std::array<Dtz*, 2> out_{};
  std::array<std::vector<std::uint64_t>, 2> chunk_plies_;
  std::atomic<int> max_ply_{0};
  // Per level: the wins of each side without their final distance (kWinOpen, or a cursed exit that
  // a loss child may still better), and the losses of each side by distance, both exact.
  std::array<std::uint64_t, 2> open_wins_{};
  std::array<std::vector<std::uint64_t>, 2> losses_at_;
  // Per side, whether its open wins are listed (in `listed_`, ascending) for pulls.
  std::array<bool, 2> listing_{};
  std::array<std::vector<std::uint64_t>, 2> listed_;
  std::atomic<bool> inconsistent_{false};
};

std::uint64_t DtzSolver::next_at(int side, std::uint64_t i, std::uint64_t last, int ply) const {
  const Dtz* st = out_[side];
  const Dtz win = Dtz(ply), loss = Dtz(-ply);
#if defined(__SSE2__)
  const __m128i w = _mm_set1_epi16(win), l = _mm_set1_epi16(loss);
  for (; i + 16 <= last; i += 16) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(st + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(st + i + 8));
    const __m128i ma = _mm_or_si128(_mm_cmpeq_epi16(a, w), _mm_cmpeq_epi16(a, l));
    const __m128i mb = _mm_or_si128(_mm_cmpeq_epi16(b, w), _mm_cmpeq_epi16(b, l));
    const unsigned bits = unsigned(_mm_movemask_epi8(ma)) | (unsigned(_mm_movemask_epi8(mb)) << 16);
    if (bits) return i + std::uint64_t(std::countr_zero(bits)) / 2;
  }
#endif
  for (; i < last; ++i)
    if (st[i] == win || st[i] == loss) return i;
  return last;
}

template <class F>
std::uint64_t DtzSolver::for_level(int level, bool both_sides, int side, F&& body) {
  const Level& runs = levels_.levels[std::size_t(level)];
  const std::uint64_t pairs = std::uint64_t(scheme_.king_pairs());
  const std::uint64_t tasks = both_sides ? 2 * pairs : pairs;
  std::atomic<std::uint64_t> sum{0};
  parallel_each(arena_, tasks, [&](std::uint64_t t) {
    const int s = both_sides ? int(t / pairs) : side;
    const std::uint64_t base = (t % pairs) * scheme_.pair_stride();
    std::uint64_t local = 0;
    for (const PlacementRun& run : runs) {
      const std::uint64_t first = base + run.first * levels_.span;
      local += body(s, first, first + run.count * levels_.span);
    }
    sum.fetch_add(local, std::memory_order_relaxed);
  });
  return sum.load();
}

template <class F>
void DtzSolver::for_level_slots(std::uint64_t first, std::uint64_t last, F&& visit) const {
  const std::uint64_t stride = scheme_.pair_stride();
  while (first < last) {
    const std::uint64_t base = first / stride * stride;
    const std::uint64_t from = first - base, to = std::min(last - base, stride);
    // The first range ending after `from` (the ranges are disjoint and ascending: so are their ends).
    auto r = std::partition_point(level_ranges_.begin(), level_ranges_.end(),
                                  [&](const auto& range) { return range.second <= from; });
    for (; r != level_ranges_.end() && r->first < to; ++r) visit(base + std::max(r->first, from), base + std::min(r->second, to));
    first = base + to;
  }
}

std::uint64_t DtzSolver::resolve_ply(int side, int ply, bool pulled) {
  const std::uint64_t n = scheme_.size();
  // Tasks of 64 chunks (2^18 slots), each walking its chunks in order (SlotBoards steps forward).
  constexpr std::uint64_t kChunksPerTask = 64;
  std::atomic<std::uint64_t> sum{0};
  parallel_ranges(arena_, (n + kChunk - 1) / kChunk, kChunksPerTask, [&](std::uint64_t c_first, std::uint64_t c_last) {
    std::uint64_t local = 0;
    Counts counts;
    SlotBoards boards(scheme_, Color(side));
    // The updates are scattered over the other side's slots: each slot's predecessors are updated
    // one resolved slot later, so that their prefetches have the next slot's gathering to arrive
    // in. Within a ply the updates commute (a count-down's result and a win's improvement do not
    // depend on their order).
    std::array<Preds, 2> preds;
    bool pending = false;  // preds[1 - next] waits to be applied
    std::size_t next = 0;
    auto visit = [&](std::uint64_t first, std::uint64_t last) {
      for (std::uint64_t i = next_at(side, first, last, ply); i < last; i = next_at(side, i + 1, last, ply)) {
        ++local;
        const bool loss = out_[side][i] < 0;
        if (loss && pulled) continue;
        const Board* b = boards.at(i);
        assert(b);
        gather(side, i, *b, loss, preds[next]);
        if (pending) apply(side, preds[1 - next], ply, counts);
        pending = true;
        next = 1 - next;
      }
    };
    for (std::uint64_t c = c_first; c < c_last; ++c)
      if (chunk_may_hold(side, c * kChunk, ply)) for_level_slots(c * kChunk, std::min(n, (c + 1) * kChunk), visit);
    if (pending) apply(side, preds[1 - next], ply, counts);
    if (local != 0) add_counts(1 - side, ply, counts);
    sum.fetch_add(local, std::memory_order_relaxed);
  });
  return sum.load();
}

int DtzSolver::child_wdl(const Board& child, const MoveInfo& mi) const {
  // A pawn move within the table reaches a more advanced level: solved, its values final.
  assert(mi.kind == MoveKind::kConversion || (table_->dtz(child) != kIllegal && table_->dtz(child) != kWinOpen &&
                                              !is_open_loss(table_->dtz(child))));
  return child_wdl50(*table_, subtables_, child, mi);
}

Dtz DtzSolver::win_exit(const Board& b) const {
  int best = kWinOpen;
  if (!may_zero(b)) return Dtz(best);  // most wins of a pawnless table
  // Quiet piece moves come in bulk (ignored here): the other moves capture or move a pawn.
  for_each_legal_move_bulk(
      b, [](PieceType, Square, Bitboard) {},
      [&](const Board& child, const MoveInfo& mi) {
        assert(is_zeroing(b, mi));
        if (best == 1) return;
        const int w = child_wdl(child, mi);
        if (w == -2) best = 1;
        else if (w == -1) best = std::min(best, kCursedExit);
      });
  return Dtz(best);
}

Dtz DtzSolver::loss_start(const Board& b) {
  int moves = 0, floor = 0;
  // Quiet piece moves come in bulk, without their children (IndexScheme::quiet_moves_weight); the
  // other moves capture or move a pawn.
  auto bulk = [&](PieceType t, Square from, Bitboard targets) { moves += scheme_.quiet_moves_weight(b, t, from, targets); };
  for_each_legal_move_bulk(b, bulk, [&](const Board& child, const MoveInfo& mi) {
    assert(is_zeroing(b, mi));
    const int w = child_wdl(child, mi);
    if (w <= 0) inconsistent_.store(true, std::memory_order_relaxed);  // the DTM says every move loses
    floor = std::max(floor, w == 2 ? 1 : kCursedExit);
  });
  assert(moves < 256);
  if (moves > 0) return open_loss(floor, moves);
  if (floor == 0) inconsistent_.store(true, std::memory_order_relaxed);  // no move, yet not checkmate
  return Dtz(-std::max(floor, 1));
}

Dtz DtzSolver::initial_state(int side, std::uint64_t i, const Board* b) {
  const DtmValue v = dtm_.values[side][i];
  if (v.is_illegal() || !b || !is_legal(*b)) return kIllegal;
  if (v.is_draw()) return 0;
  // A mate in one is a zeroing distance of one whichever move mates; checkmated: -1 (0 plies to
  // the end, reported as -1 like Stockfish; its predecessors mate in one, already 1).
  if (v.is_win()) return v.plies() == 1 ? Dtz(1) : win_exit(*b);
  return v.plies() == 0 ? Dtz(-1) : loss_start(*b);
}

bool DtzSolver::improve_win(int side, std::uint64_t i, int d) {
  auto ref = state(side, i);
  Dtz cur = ref.load(std::memory_order_relaxed);
  // Only wins (positive) can be longer than d; draws, losses and unused slots are not.
  while (cur > d) {
    if (ref.compare_exchange_weak(cur, Dtz(d), std::memory_order_relaxed)) {
      note(side, i, d);
      return true;
    }
  }
  return false;
}

int DtzSolver::count_down(int side, std::uint64_t i, int ply, int weight) {
  auto ref = state(side, i);
  Dtz cur = ref.load(std::memory_order_relaxed);
  for (;;) {
    if (!is_open_loss(cur)) return 0;
    assert(moves_of(cur) >= weight);
    const bool last = moves_of(cur) == weight;
    const int d = std::max(ply + 1, floor_of(cur));
    if (ref.compare_exchange_weak(cur, last ? Dtz(-d) : Dtz(cur - weight), std::memory_order_relaxed)) {
      if (!last) return 0;
      note(side, i, d);
      return d;
    }
  }
}

void DtzSolver::gather(int side, std::uint64_t i, const Board& b, bool loss, Preds& out) const {
  // Predecessors by non-zeroing moves only: pawns stay where they are (a pawn move is an exit of
  // the less advanced level, counted when that level starts). Most predecessor indexes follow from
  // this slot's digits.
  const Dtz* pred_states = out_[1 - side];
  out.n = 0;
  out.loss = loss;
  auto add = [&](std::uint64_t p, int weight) {
    __builtin_prefetch(&pred_states[p], 1);
    assert(out.n < out.index.size());
    out.index[out.n] = p;
    out.weight[out.n++] = std::uint8_t(weight);
  };
  const CoveredUnmoves covered = for_each_indexed_unmove(scheme_, b, i, [&](std::uint64_t p, PieceType) { add(p, 1); });
  if (!covered.all(b))
    for_each_unmove(
        b, [&](const Board& pred, const UnmoveInfo&) { add(scheme_.encode(pred), loss ? 1 : scheme_.stabilizer_size(pred)); },
        b.by_type[index_of(PieceType::kPawn)] | covered.men, covered.king_from);
}

void DtzSolver::apply(int side, const Preds& preds, int ply, Counts& counts) {
  const int pred_side = 1 - side;
  if (preds.loss) {
    for (std::size_t k = 0; k < preds.n; ++k) counts.wins_closed += improve_win(pred_side, preds.index[k], ply + 1);
    return;
  }
  for (std::size_t k = 0; k < preds.n; ++k) {
    const int d = count_down(pred_side, preds.index[k], ply, preds.weight[k]);
    counts.losses_next += d == ply + 1;
    counts.losses_cursed += d > ply + 1;
  }
}

void DtzSolver::add_counts(int side, int ply, const Counts& counts) {
  // Called once per task, under a lock-free fetch-add each.
  std::atomic_ref(open_wins_[side]).fetch_sub(counts.wins_closed, std::memory_order_relaxed);
  const auto next = std::size_t(std::min(ply + 1, kMaxDistance));
  std::atomic_ref(losses_at_[side][next]).fetch_add(counts.losses_next, std::memory_order_relaxed);
  std::atomic_ref(losses_at_[side][kCursedExit]).fetch_add(counts.losses_cursed, std::memory_order_relaxed);
}

bool DtzSolver::pull_now(int side, int level, int ply) {
  // A pull generates an open win's moves and reads their children; a push gathers a loss's
  // un-moves from its digits. On KQRvKR, pulling once the open wins are fewer than 1, 2 or 4 times
  // the pushing losses measured alike (the pass 1.7-2 s shorter; the push-only pass, 12.5-14.6 s).
  constexpr std::uint64_t kPushesPerPull = 2;
  const std::uint64_t pushing = losses_at_[1 - side][std::size_t(ply)];
  if (open_wins_[side] * kPushesPerPull >= pushing) return false;
  if (listing_[side]) return true;
  listing_[side] = true;
  // The open wins, listed in slot order: for_level gives each task the ranges of one king pair.
  std::vector<std::vector<std::uint64_t>> parts(std::size_t(scheme_.king_pairs()));
  for_level(level, false, side, [&](int s, std::uint64_t first, std::uint64_t last) {
    std::vector<std::uint64_t>& part = parts[first / scheme_.pair_stride()];
    for (std::uint64_t i = first; i < last; ++i)
      if (out_[s][i] > ply + 1) part.push_back(i);
    return std::uint64_t{0};
  });
  std::vector<std::uint64_t>& list = listed_[side];
  list.clear();
  for (const auto& part : parts) list.insert(list.end(), part.begin(), part.end());
  return true;
}

void DtzSolver::pull(int side, int ply) {
  std::vector<std::uint64_t>& list = listed_[side];
  constexpr std::uint64_t kDone = ~std::uint64_t{0};
  const Dtz* child_states = out_[1 - side];
  const Dtz loss = Dtz(-ply);
  std::atomic<std::uint64_t> closed{0};
  parallel_chunks(arena_, list.size(), std::uint64_t{1} << 12, [&](std::uint64_t first, std::uint64_t last) {
    SlotBoards boards(scheme_, Color(side));
    std::uint64_t local = 0;
    for (std::uint64_t k = first; k < last; ++k) {
      const std::uint64_t i = list[k];
      // Only this task writes the slot: the other side's scan is over. A win closed by a push of an
      // earlier ply, or a cursed exit no loss child can better any more, drops out.
      if (out_[side][i] <= ply + 1) {
        list[k] = kDone;
        continue;
      }
      const Board* b = boards.at(i);
      assert(b);
      bool found = false;
      for_each_quiet_child(scheme_, *b, i, [&](std::uint64_t c) { found |= child_states[c] == loss; });
      if (!found) continue;
      out_[side][i] = Dtz(ply + 1);
      note(side, i, ply + 1);
      list[k] = kDone;
      ++local;
    }
    closed.fetch_add(local, std::memory_order_relaxed);
  });
  open_wins_[side] -= closed.load();
  std::erase(list, kDone);
}

Result<std::shared_ptr<DtzTable>> DtzSolver::run() {
  const std::uint64_t n = scheme_.size();
  for (int s = 0; s < 2; ++s) {
    table_->values[s] = formats::ZeroedArray<Dtz>(n);  // mapped, not yet touched
    out_[s] = table_->values[s].data();
  }
  // First touched by both threads: the kernel zeroes each page as it is touched.
  parallel_side_chunks(arena_, n, std::uint64_t{1} << 20, [&](int side, std::uint64_t first, std::uint64_t last, std::uint64_t) {
    std::fill(out_[side] + first, out_[side] + last, kIllegal);
  });
  const int levels = int(levels_.levels.size());
  const std::uint64_t chunk_words = (n + kChunk - 1) / kChunk * kPlyWords;
  for (int level = 0; level < levels; ++level) {
    std::uint64_t placements = 0;
    for (const PlacementRun& run : levels_.levels[std::size_t(level)]) placements += run.count;
    const std::uint64_t level_slots = 2 * std::uint64_t(scheme_.king_pairs()) * placements * levels_.span;
    level_ranges_.clear();
    for (const PlacementRun& run : levels_.levels[std::size_t(level)])
      level_ranges_.emplace_back(run.first * levels_.span, (run.first + run.count) * levels_.span);
    for (auto& words : chunk_plies_) words.assign(chunk_words, 0);
    max_ply_.store(0);
    if (progress_) progress_({"init", level, levels, 0, 0, level_slots});
    for (int side = 0; side < 2; ++side) {
      open_wins_[side] = 0;
      losses_at_[side].assign(std::size_t(kMaxDistance) + 1, 0);
      listing_[side] = false;
      listed_[side].clear();
    }
    for_level(level, true, 0, [&](int side, std::uint64_t first, std::uint64_t last) {
      SlotBoards boards(scheme_, Color(side));
      std::uint64_t open = 0, loss_one = 0, loss_cursed = 0;
      for (std::uint64_t i = first; i < last; ++i) {
        // Illegal slots and draws need no board (most slots of some tables are draws).
        const DtmValue v = dtm_.values[side][i];
        const Dtz s = v.is_illegal() ? kIllegal : v.is_draw() ? Dtz(0) : initial_state(side, i, boards.at(i));
        out_[side][i] = s;
        open += s > 1;  // kWinOpen or a cursed exit
        loss_one += s == -1;
        loss_cursed += s == -kCursedExit;
        if (s != kIllegal && s != 0 && s != kWinOpen && !is_open_loss(s)) note(side, i, s > 0 ? s : -s);
      }
      std::atomic_ref(open_wins_[side]).fetch_add(open, std::memory_order_relaxed);
      std::atomic_ref(losses_at_[side][1]).fetch_add(loss_one, std::memory_order_relaxed);
      std::atomic_ref(losses_at_[side][kCursedExit]).fetch_add(loss_cursed, std::memory_order_relaxed);
      return std::uint64_t{0};
    });
    if (inconsistent_.load())
      return make_error(ErrorCode::kCorrupt, scheme_.material().name() + ": the DTM table disagrees with its subtables' DTZ");
    std::uint64_t resolved = 0;
    for (int ply = 1; ply <= max_ply_.load(); ++ply) {
      // One side at a time: a scan's updates go to the other side's slots.
      for (int side = 0; side < 2; ++side) {
        const bool listed = listing_[1 - side];
        const bool pulled = pull_now(1 - side, level, ply);  // then this side's losses push nothing
        if (pulled && !listed && progress_)
          progress_({"pull", level, levels, ply, listed_[1 - side].size(), level_slots});
        resolved += resolve_ply(side, ply, pulled);
        if (pulled) pull(1 - side, ply);
      }
      if (progress_) progress_({"retro", level, levels, ply, resolved, level_slots});
    }
  }
  chunk_plies_ = {};
  // Every win and loss got its distance, unless the DTM table is not self-consistent.
  std::atomic<bool> open{false};
  parallel_side_chunks(arena_, n, 1 << 16, [&](int side, std::uint64_t first, std::uint64_t last, std::uint64_t) {
    for (std::uint64_t i = first; i < last; ++i)
      if (out_[side][i] == kWinOpen || is_open_loss(out_[side][i])) open.store(true, std::memory_order_relaxed);
  });
  if (open.load())
    return make_error(ErrorCode::kCorrupt, scheme_.material().name() + ": a DTM win or loss without a zeroing distance");
  return table_;
}

}  // namespace

Result<std::shared_ptr<DtzTable>> solve_dtz(const SolvedTable& dtm, const DtzSet& subtables, tbb::task_arena& arena,
                                            const DtzProgressFn& progress) {
  // Only the tables this one converts into: a probe looks its table up in a short list.
  DtzSet own;
  for (const Material& sub : dtm.material().conversions())
    if (!own.add_from(subtables, sub))
      return make_error(ErrorCode::kUnavailable, dtm.material().name() + ": needs the DTZ table " + sub.name() + " first");
  DtzSolver solver(dtm, own, arena, progress);
  return solver.run();
}

}  // namespace tbkit::gen
