// The retrograde solver (gen/solver.h). One class template over its state store (16-bit states, or
// 12-bit ones five to a word for large tables), kept in one file past 800 lines on purpose: its
// members split over files would each need explicit instantiations for both stores.
#include "gen/solver.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <new>
#include <optional>

#include <tbb/enumerable_thread_specific.h>

#include "formats/large_allocator.h"
#include "gen/cluster.h"
#include "gen/model.h"
#include "gen/parallel.h"
#include "gen/solver_state.h"
#include "gen/state_store.h"
#include "gen/unmove_index.h"
#include "model/value_ops.h"

namespace tbkit::gen {

using namespace chess;

namespace {

// The state encoding: gen/solver_state.h.
using namespace solver_state;

constexpr std::uint64_t kChunk = 1 << 12;
// A chunk remembers which plies were set in it, modulo this many: the scans run past 64 plies in
// many 5-piece tables (KRPvKR: 147), and a smaller modulus made late plies rescan every chunk.
constexpr int kPlyWords = 4;
constexpr int kPlyModulus = 64 * kPlyWords;

// A position's best conversion: over captures, promotions and double pushes into an en-passant
// stalemate; and over captures and promotions alone (what capture-resolved files compare with).
struct BestConversion {
  std::optional<DtmValue> value, capture;
  // The state's mark (kConvBit) for a value equal to the conversion's.
  [[nodiscard]] std::uint16_t mark() const { return capture && *capture == *value ? kConvBit : 0; }
};

// A double push that the opponent may answer en passant; revisited at `ply` (see solve_table).
struct Deferred {
  int ply;
  int side;
  std::uint64_t pred;
  std::uint64_t succ;
};

// An update sent to the rank that owns its slot (split solve): bits 0-21 the argument (the ply to
// mark a win with, or a loss's count weight), bit 22 set for a count-down, bit 23 the side, bits
// 24-63 the index.
constexpr std::uint64_t pack_update(int side, bool count, std::uint64_t index, int arg) {
  return index << 24 | std::uint64_t(side) << 23 | std::uint64_t(count) << 22 | std::uint64_t(arg);
}

// Slices per group of a split solve's map (SliceMap::group): enough for a group's states to fill a
// 2 MiB huge page, so that each rank touches only its own share of the state arrays, but at most
// a 16th of a rank's share, so that every rank gets many groups from all over the table.
std::uint64_t slice_group(const IndexScheme& scheme, int ranks) {
  const std::uint64_t stride = scheme.pair_stride();
  const std::uint64_t slices = (scheme.size() + stride - 1) / stride;
  const std::uint64_t page = (std::uint64_t{2} << 20) / (stride * sizeof(std::uint16_t));
  return std::max<std::uint64_t>(1, std::min(page, slices / (16 * std::uint64_t(ranks))));
}

template <class States>
class Solver {
 public:
  Solver(const Material& m, const TableSet& subtables, tbb::task_arena& arena, const ProgressFn& progress,
         const SplitSolve* split, bool marks, std::filesystem::path scratch)
      : table_(std::make_shared<SolvedTable>(m)), scheme_(table_->scheme), subtables_(subtables), arena_(arena),
        progress_(progress), symmetric_(m.is_symmetric()), marks_(marks), cluster_(split ? split->cluster : nullptr),
        map_{cluster_ ? cluster_->ranks() : 1, split ? split->seed : 0, slice_group(scheme_, cluster_ ? cluster_->ranks() : 1)},
        rank_(cluster_ ? cluster_->rank() : 0), scratch_(std::move(scratch)) {}

  // The table, or null when a ply went past what States can hold (then solve with WideStates).
  // Errors: kIo (the values' scratch file).
  Result<std::shared_ptr<SolvedTable>> run();

 private:
  // Chunks remember which plies (mod kPlyModulus) were set in them, so a ply's scan skips the others.
  void note_chunk(int side, std::uint64_t i, int ply) {
    const int bit = ply % kPlyModulus;
    const std::uint64_t mask = std::uint64_t{1} << (bit % 64);
    std::atomic_ref word(chunk_plies_[side][i / kChunk * kPlyWords + bit / 64]);
    // Most chunks already have the bit: a plain load spares the locked instruction.
    if (!(word.load(std::memory_order_relaxed) & mask)) word.fetch_or(mask, std::memory_order_relaxed);
  }
  // Read only while no task writes this side's marks (a scan of `side` updates the other side).
  [[nodiscard]] bool chunk_may_hold(int side, std::uint64_t first, int ply) const {
    const int bit = ply % kPlyModulus;
    return (chunk_plies_[side][first / kChunk * kPlyWords + bit / 64] >> (bit % 64)) & 1;
  }
  // The next slot in [i, last) whose state, mark bit aside, is `target`, or `last`. Plain loads:
  // the scan of one side runs while only the other side's states change.
  std::uint64_t next_at(int side, std::uint64_t i, std::uint64_t last, std::uint16_t target) const {
    return state_[side].next_at(i, last, target);
  }
  void note_ply(int ply) {
    // A ply past States::kMaxPly (but within the 16-bit encoding) ends the solve after its ply.
    assert(ply <= kMaxPly && "a ply beyond the state encoding");
    int cur = max_ply_.load(std::memory_order_relaxed);
    while (ply > cur && !max_ply_.compare_exchange_weak(cur, ply, std::memory_order_relaxed)) {}
  }
  // Best value of the en-passant captures available in `b` onto ep_square, for b's side to move.
  std::optional<DtmValue> en_passant_value(const Board& b, Square ep_square) const {
    std::optional<DtmValue> best;
    for_each_en_passant(b, ep_square, [&](const Board& gc) {
      const DtmValue v = back_up(subtables_.probe(gc));
      best = best ? better_of(*best, v) : v;
    });
    return best;
  }

  // A move's part in the best conversion of its position: a capture or promotion, or a double push
  // into a stalemate but for the en-passant capture (true: the move is a conversion). `ep` is set to
  // a double push's best en-passant reply, for the caller.
  bool add_conversion(const Board& child, const MoveInfo& mi, BestConversion& best, std::optional<DtmValue>& ep) const;
  // The best conversion of slot i of `side` (a legal position), as init_position found it.
  BestConversion best_conversion(int side, std::uint64_t i) const;
  // decoded: the board of slot i, or null for an unused slot.
  // [first, last): the slots this thread initialises around slot i (States::init).
  void init_position(int side, std::uint64_t i, std::uint64_t first, std::uint64_t last, const Board* decoded,
                     std::vector<Deferred>& deferred);
  // b: the board of slot i (side to move = side).
  void propagate(int side, std::uint64_t i, const Board& b, int ply);
  // `cur`: the state just loaded from `at`, slot i of `side`.
  void mark_win(int side, std::uint64_t i, typename States::Slot at, std::uint16_t cur, int ply);
  void count_down(int side, std::uint64_t i, typename States::Slot at, int successor_ply, int weight);
  void count_down(int side, std::uint64_t i, int successor_ply, int weight) {
    count_down(side, i, state_[side].slot(i), successor_ply, weight);
  }

  // A side's output: in memory, or in a scratch file (SolveStorage::scratch).
  Result<ValueArray> output_values(std::uint64_t n) const {
    if (scratch_.empty()) return ValueArray(n);  // pages come as they are first written
    return ValueArray::scratch_file(scratch_, n);
  }
  // After max_ply_ has grown past what States holds, the solve is given up (run() returns null).
  [[nodiscard]] bool past_states() const { return max_ply_.load() > States::kMaxPly; }

  // Split solve: which rank owns slot i (its king-pair slice), and body(a, b) for each part of
  // [first, last) this rank owns (all of it when not split).
  [[nodiscard]] int owner(std::uint64_t i) const { return map_.owner(i / scheme_.pair_stride()); }
  [[nodiscard]] bool owns(std::uint64_t i) const { return !cluster_ || owner(i) == rank_; }
  template <class F>
  void for_owned(std::uint64_t first, std::uint64_t last, F&& body) const {
    if (!cluster_) return body(first, last);
    const std::uint64_t stride = scheme_.pair_stride();
    for (std::uint64_t slice = first / stride; slice * stride < last; ++slice)
      if (map_.owner(slice) == rank_) body(std::max(first, slice * stride), std::min(last, (slice + 1) * stride));
  }
  // An update of a slot another rank owns, queued for the end of the ply (any thread).
  void send(int side, bool count, std::uint64_t index, int arg) {
    auto& out = outboxes_.local();
    if (out.empty()) out.resize(std::size_t(map_.ranks));
    out[std::size_t(owner(index))].push_back(pack_update(side, count, index, arg));
  }
  // The end of a ply of a split solve: the queued updates go to their owners and are applied there.
  void exchange_updates(int ply);
  // Deferred double pushes go to the rank owning the pushed position, which decides their count.
  void route_deferred(std::vector<Deferred>& deferred);
  // After the last ply of a split solve: rank 0 gets every slice's states of `side`.
  void gather_states(int side);

  std::shared_ptr<SolvedTable> table_;
  const IndexScheme& scheme_;
  const TableSet& subtables_;
  tbb::task_arena& arena_;
  const ProgressFn& progress_;
  // A symmetric material (KQvKQ): Black to move at slot j has the value of White to move at the
  // slot of the colour-flipped board, so only White's side is kept and solved; an update of a
  // Black-to-move position goes to its flipped twin's slot (docs/tables.md, "Symmetric materials").
  const bool symmetric_;
  const bool marks_;  // fill SolvedTable::no_better
  // Fresh pages, all 0 (PackedStates::init relies on it); the initialisation writes every state.
  std::array<States, 2> state_;
  std::array<std::vector<std::uint64_t>, 2> chunk_plies_;  // kPlyWords words per chunk
  std::atomic<int> max_ply_{0};
  // Split solve (null when alone): this rank computes the slots of its slices; the others' slots
  // stay untouched (unmapped pages) until gather_states.
  Cluster* cluster_;
  SliceMap map_;
  int rank_;
  // Where the values go (SolveStorage::scratch), or empty: in memory.
  std::filesystem::path scratch_;
  tbb::enumerable_thread_specific<std::vector<std::vector<std::uint64_t>>> outboxes_;  // [destination rank]
};

template <class States>
bool Solver<States>::add_conversion(const Board& child, const MoveInfo& mi, BestConversion& best,
                            std::optional<DtmValue>& ep) const {
  auto better = [](std::optional<DtmValue>& best_so_far, DtmValue v) {
    best_so_far = best_so_far ? better_of(*best_so_far, v) : v;
  };
  if (mi.kind == MoveKind::kConversion) {
    const DtmValue v = back_up(subtables_.probe(child));
    better(best.value, v);
    better(best.capture, v);
    return true;
  }
  if (mi.kind != MoveKind::kDoublePush) return false;
  ep = en_passant_value(child, mi.ep_square);
  if (!ep || in_check(child) || has_legal_move(child)) return false;
  // Stalemate but for the en-passant capture: the capture is the opponent's only move, so the
  // push is worth exactly what the capture gives, like a conversion. (The table's own value of
  // the pushed position, a stalemate without the right, never reaches this position.)
  better(best.value, back_up(*ep));
  return true;
}

template <class States>
void Solver<States>::init_position(int side, std::uint64_t i, std::uint64_t first, std::uint64_t last,
                                   const Board* decoded, std::vector<Deferred>& deferred) {
  if (!decoded || !is_legal(*decoded)) {
    state_[side].init(i, kIllegal, first, last);
    return;
  }
  const Board& b = *decoded;
  int in_table = 0;
  bool any_move = false;
  BestConversion conversion;
  // Quiet piece moves are counted without building the children (IndexScheme::quiet_moves_weight).
  auto bulk = [&](PieceType t, Square from, Bitboard targets) {
    any_move = true;
    in_table += scheme_.quiet_moves_weight(b, t, from, targets);
  };
  for_each_legal_move_bulk(b, bulk, [&](const Board& child, const MoveInfo& mi) {
    any_move = true;
    std::optional<DtmValue> ep;
    if (add_conversion(child, mi, conversion, ep)) return;
    // Weights make the count match the decrements propagate() will deliver: a successor that is its
    // own mirror image is reached by twice as many un-moves (see docs/tables.md, "Algorithm", 4: symmetric positions).
    in_table += scheme_.stabilizer_size(child);
    // If the en-passant reply wins for the opponent in k plies, this move loses by ply k at the
    // latest, even if the pushed position itself is not yet known: revisit it at ply k.
    if (ep && ep->is_win())
      deferred.push_back({ep->plies(), side, i, scheme_.encode(symmetric_ ? color_flipped(child) : child)});
  });
  assert(in_table <= kCountMask);
  std::uint16_t s = std::uint16_t(kOpen | in_table);
  if (!any_move) {
    s = in_check(b) ? resolved(0) : kNoLoss;
  } else if (const auto& v = conversion.value) {
    const std::uint16_t mark = conversion.mark();
    if (v->is_win()) {
      s = std::uint16_t(resolved(v->plies()) | mark);
    } else if (v->is_draw()) {
      s = mark ? kNoLoss : kNoLossOther;
    } else if (in_table == 0) {
      s = std::uint16_t(resolved(v->plies()) | mark);
    } else if (v->plies() > 0) {
      s |= kFloorBit;
    }
  }
  if (is_resolved(s)) {
    note_ply(ply_of(s));
    note_chunk(side, i, ply_of(s));
  }
  state_[side].init(i, s, first, last);
}

template <class States>
void Solver<States>::mark_win(int side, std::uint64_t i, typename States::Slot at, std::uint16_t cur, int ply) {
  for (;;) {
    assert(cur != kIllegal);
    if (is_resolved(cur)) {
      assert(ply_of(cur) % 2 == 1 && "a predecessor of a loss cannot be lost");
      if (ply_of(cur) <= ply) return;
    }
    if (States::cas(at, cur, resolved(ply))) break;
  }
  note_ply(ply);
  note_chunk(side, i, ply);
}

template <class States>
BestConversion Solver<States>::best_conversion(int side, std::uint64_t i) const {
  Board b;
  [[maybe_unused]] const bool placed = scheme_.decode(i, Color(side), b);
  assert(placed);
  BestConversion best;
  for_each_legal_move_bulk(b, [](PieceType, Square, Bitboard) {}, [&](const Board& child, const MoveInfo& mi) {
    std::optional<DtmValue> ep;
    add_conversion(child, mi, best, ep);
  });
  return best;
}

template <class States>
void Solver<States>::count_down(int side, std::uint64_t i, typename States::Slot at, int successor_ply, int weight) {
  std::uint16_t cur = States::load(at);
  for (;;) {
    if (!can_lose(cur)) return;
    assert((cur & kCountMask) >= weight);
    if ((cur & kCountMask) == weight) break;
    if (States::cas(at, cur, std::uint16_t(cur - weight))) return;
  }
  // The last of its moves within the table loses. No other update reaches the slot now: every other
  // move is counted down already, and a position with a winning move never runs out of count.
  int ply = successor_ply + 1;
  std::uint16_t mark = 0;
  if (cur & kFloorBit) {
    // A losing conversion: the position loses no faster than it (the floor, computed again here
    // rather than kept in every slot), and when exactly as fast, the value is the conversion's.
    const BestConversion conversion = best_conversion(side, i);
    assert(conversion.value && conversion.value->is_loss());
    if (const int floor = conversion.value->plies(); floor >= ply) {
      ply = floor;
      mark = conversion.mark();
    }
  }
  States::store(at, std::uint16_t(resolved(ply) | mark));
  note_ply(ply);
  note_chunk(side, i, ply);
}

template <class States>
void Solver<States>::propagate(int side, std::uint64_t i, const Board& b, int ply) {
  const int pred_side = 1 - side;
  // Collect the predecessors first and prefetch their slots: the updates are scattered over the
  // whole table, and overlapping their cache misses is most of the gain.
  struct Update {
    std::uint64_t index;
    typename States::Slot at;  // where slot `index` is
    int arg;                   // wins: the ply to mark; losses: the count weight
  };
  std::array<Update, 128> updates;
  std::size_t n = 0;
  // A man other than a king moving keeps the king pair, hence the orientation (unless the diagonal
  // case compares two images), so the predecessor's index follows from this one: only the numbers
  // of the man's group and of the groups after it change (they rank over the squares the earlier
  // men leave free). The same holds for a king whose new pair is canonical as it stands, with the
  // pair number changed too and only the pieces' groups (pawns do not see the kings).
  const bool full = scheme_.diagonal_case(b);
  std::array<IndexScheme::GroupPlacement, IndexScheme::kMaxGroups> groups;
  const int group_count = scheme_.group_placements(b, groups);
  std::array<std::uint64_t, IndexScheme::kMaxGroups> number{};  // of each group of several men
  for (int h = 0; h < group_count; ++h)
    if (groups[h].count > 1) number[h] = combination_rank(groups[h].placed, groups[h].avail);
  // The change of group h's number when a man of an earlier group (or a king) stands on `from`
  // instead of `at`: a single man's rank moves by one when the moving man crosses it.
  auto later_change = [&](int h, Bitboard at, Bitboard from) {
    const auto& gr = groups[h];
    if (gr.count == 1) return (std::uint64_t(at < gr.placed) - std::uint64_t(from < gr.placed)) * gr.stride;
    return (combination_rank(gr.placed, (gr.avail | at) & ~from) - number[h]) * gr.stride;
  };
  // The index of the predecessor in which a man of group g stands on `from` instead of `at`.
  auto man_index = [&](int g, Bitboard at, Bitboard from) {
    const auto& gr = groups[g];
    std::uint64_t p = i;
    if (gr.count == 1)
      p += std::uint64_t(std::int64_t(popcount(gr.avail & (from - 1)) - popcount(gr.avail & (at - 1)))) * gr.stride;
    else
      p += (combination_rank(gr.placed ^ at ^ from, gr.avail) - number[g]) * gr.stride;
    for (int h = g + 1; h < group_count; ++h) p += later_change(h, at, from);
    return p;
  };
  // The index of the predecessor in which the king stands on `from`, the new pair canonical.
  const int pair = int(i / scheme_.pair_stride());
  auto king_index = [&](int new_pair, Bitboard at, Bitboard from) {
    std::uint64_t p = i + std::uint64_t(std::int64_t(new_pair - pair)) * scheme_.pair_stride();
    for (int h = 0; h < group_count; ++h)
      if (!groups[h].pawn) p += later_change(h, at, from);
    return p;
  };
  // Un-moves made without a board: every man's but a pawn's whose double push the opponent could
  // answer en passant, and the king's when its new pair is canonical as it stands. A predecessor
  // that leaves the side not to move in check is an illegal slot (kIllegal): the masks below leave
  // out most such un-moves, and the updates pass over the slots of any others, so no board and no
  // legality test either. Their weight is 1: a pawn's (no pawn board is its
  // own image), a piece's and a king's because this board is canonical: outside the diagonal case
  // its kings do not both stand on a long diagonal (a canonical white king in a1-d1-d4 is off the
  // a8-h1 diagonal), and so neither do a piece's predecessor's, nor a king's with a canonical pair
  // that is not the diagonal case. In the diagonal case (two images to compare) all go the
  // callback's way.
  const Color mover = Color(pred_side);
  const Bitboard occ = b.occupied();
  const int direct_arg = ply % 2 == 0 ? ply + 1 : 1;
  auto add_direct = [&]([[maybe_unused]] PieceType t, [[maybe_unused]] Square at, [[maybe_unused]] Square from, std::uint64_t p) {
#ifndef NDEBUG
    Board pred = b;
    pred.remove(mover, t, at);
    pred.put(mover, t, from);
    pred.side = mover;
    assert(p == scheme_.encode(pred));
    assert(scheme_.stabilizer_size(pred) == 1 || (t != PieceType::kKing && ply % 2 == 0));
    assert(!owns(p) || is_legal(pred) == (States::load(state_[pred_side].slot(p)) != kIllegal));
#endif
    const typename States::Slot where = state_[pred_side].slot(p);
    __builtin_prefetch(States::where(where), 1);
    assert(n < updates.size());
    updates[n++] = {p, where, direct_arg};
  };
  Bitboard direct_men = 0, direct_king_from = 0;
  if (!full) {
    // The squares a man may come from without leaving the side to move here in check (gen/
    // unmove_index.h). Measured on the 3+4 set: a quarter of the wins phase's un-moves gave illegal
    // predecessors. Exclusions only: what is left may still be illegal, and the updates pass over
    // those slots.
    assert(b.side == Color(side));
    const UnmoveFroms legal_froms(b);
#ifndef NDEBUG
    auto assert_illegal = [&](PieceType t, Square at, Bitboard froms) {
      for (; froms;) {
        Board pred = b;
        pred.remove(mover, t, at);
        pred.put(mover, t, pop_lsb(froms));
        pred.side = mover;
        assert(!is_legal(pred) && "an un-move left out gives a legal predecessor");
      }
    };
#else
    auto assert_illegal = [](PieceType, Square, Bitboard) {};
#endif
    for (PieceType t : {PieceType::kKnight, PieceType::kBishop, PieceType::kRook, PieceType::kQueen}) {
      const int g = scheme_.group_of(mover, t);
      if (g < 0) continue;
      for (Bitboard men = groups[g].placed; men;) {
        const Square at = pop_lsb(men);
        direct_men |= at.bb();
        const Bitboard all_froms = model::detail::attacks_of(t, at, occ) & ~occ, allowed = legal_froms(t, at);
        assert_illegal(t, at, all_froms & ~allowed);
        for (Bitboard froms = all_froms & allowed; froms;) {
          const Square from = pop_lsb(froms);
          add_direct(t, at, from, man_index(g, at.bb(), from.bb()));
        }
      }
    }
    if (const int g = scheme_.group_of(mover, PieceType::kPawn); g >= 0) {
      const int back = mover == Color::kWhite ? -8 : 8;
      const Bitboard enemy_pawns = b.pieces(Color(side), PieceType::kPawn);
      for (Bitboard men = groups[g].placed; men;) {
        const Square at = pop_lsb(men);
        const int rank = at.relative_rank(mover);
        const Square one(at.index() + back);
        // A double push beside an enemy pawn may be answered en passant: the callback's way.
        if (rank == 3 && (pawn_attacks(mover, one) & enemy_pawns)) continue;
        direct_men |= at.bb();
        if (rank < 2 || (occ & one.bb())) continue;
        const Square two(one.index() + back);
        const Bitboard all_froms = one.bb() | (rank == 3 && !(occ & two.bb()) ? two.bb() : 0);
        const Bitboard allowed = legal_froms(PieceType::kPawn, at);
        assert_illegal(PieceType::kPawn, at, all_froms & ~allowed);
        if (allowed & one.bb()) add_direct(PieceType::kPawn, at, one, man_index(g, at.bb(), one.bb()));
        if (all_froms & allowed & two.bb()) add_direct(PieceType::kPawn, at, two, man_index(g, at.bb(), two.bb()));
      }
    }
    const Square at = b.king(mover);
    const bool white = mover == Color::kWhite;
    const Bitboard all_froms = model::detail::attacks_of(PieceType::kKing, at, occ) & ~occ;
    const Bitboard allowed = legal_froms(PieceType::kKing, at);
    // The squares left out count as done, so the un-moves made on a board below skip them too.
    direct_king_from = all_froms & ~allowed;
    assert_illegal(PieceType::kKing, at, direct_king_from);
    for (Bitboard froms = all_froms & allowed; froms;) {
      const Square from = pop_lsb(froms);
      const int new_pair = scheme_.plain_pair(white ? from : b.king(Color::kWhite), white ? b.king(Color::kBlack) : from);
      if (new_pair < 0) continue;
      direct_king_from |= from.bb();
      add_direct(PieceType::kKing, at, from, king_index(new_pair, at.bb(), from.bb()));
    }
  }
  // The rest (often none) are made on a board and encoded in full.
  const Bitboard king_left = king_attacks(b.king(mover)) & ~occ & ~direct_king_from;
  const bool all_direct = !king_left && !(b.by_color[index_of(mover)] & ~b.by_type[index_of(PieceType::kKing)] & ~direct_men);
  if (!all_direct) for_each_unmove(b, [&](const Board& pred, const UnmoveInfo& ui) {
    const std::uint64_t p = scheme_.encode(pred);
    std::optional<DtmValue> ep;
    if (ui.double_push) ep = en_passant_value(b, Square((ui.from.index() + ui.to.index()) / 2));
    int arg = 0;
    if (ply % 2 == 0) {
      arg = ply + 1;
      if (ep) {
        // The opponent chooses between this position and the en-passant capture.
        if (!ep->is_loss()) return;
        arg = std::max(ply, ep->plies()) + 1;
      }
    } else {
      if (ep && ep->is_win() && ep->plies() < ply) return;  // counted at ply ep->plies() already
      arg = ui.type != PieceType::kKing && !kings_on_long_diagonal(b) ? 1 : scheme_.stabilizer_size(pred);
    }
    const typename States::Slot at = state_[pred_side].slot(p);
    __builtin_prefetch(States::where(at), 1);
    assert(n < updates.size());
    updates[n++] = {p, at, arg};
  }, direct_men, direct_king_from);
  if (cluster_) {
    // Split solve: the updates of other ranks' slots wait for the end of the ply.
    std::size_t kept = 0;
    for (std::size_t k = 0; k < n; ++k) {
      if (owns(updates[k].index)) updates[kept++] = updates[k];
      else send(pred_side, ply % 2 == 1, updates[k].index, updates[k].arg);
    }
    n = kept;
  }
  if (ply % 2 == 0) {
    // Illegal predecessors (made without a board) are passed over here rather than in mark_win:
    // measured, testing them in mark_win's compare-and-swap loop made the 3+4 set 3% slower.
    for (std::size_t k = 0; k < n; ++k)
      if (const std::uint16_t cur = States::load(updates[k].at); cur != kIllegal)
        mark_win(pred_side, updates[k].index, updates[k].at, cur, updates[k].arg);
    return;
  }
  for (std::size_t k = 0; k < n; ++k) count_down(pred_side, updates[k].index, updates[k].at, ply, updates[k].arg);
}

template <class States>
Result<std::shared_ptr<SolvedTable>> Solver<States>::run() {
  const std::uint64_t n = scheme_.size();
  const int sides = symmetric_ ? 1 : 2;
  for (int s = 0; s < sides; ++s) {
    state_[s].allocate(n);
    chunk_plies_[s].assign((n + kChunk - 1) / kChunk * kPlyWords, 0);
  }
  const std::uint64_t per_side = (n + kChunk - 1) / kChunk;
  std::vector<std::vector<Deferred>> chunk_deferred(2 * per_side);
  if (progress_) progress_({"init", 0, 0, 2 * n});
  auto init_chunk = [&](int side, std::uint64_t first, std::uint64_t last, std::uint64_t chunk) {
    // Consecutive slots mostly differ by one step of the last man: no full decode for those.
    for_owned(first, last, [&](std::uint64_t from, std::uint64_t to) {
      Board b;
      bool placed = false;
      for (std::uint64_t i = from; i < to; ++i) {
        if (!placed || !scheme_.advance(i, b)) placed = scheme_.decode(i, Color(side), b);
        init_position(side, i, from, to, placed ? &b : nullptr, chunk_deferred[chunk]);
      }
    });
  };
  if (symmetric_)
    parallel_chunks(arena_, n, kChunk, [&](std::uint64_t first, std::uint64_t last) { init_chunk(0, first, last, first / kChunk); });
  else
    parallel_side_chunks(arena_, n, kChunk, init_chunk);
  std::vector<Deferred> deferred;
  for (auto& d : chunk_deferred) deferred.insert(deferred.end(), d.begin(), d.end());
  chunk_deferred.clear();
  if (cluster_) route_deferred(deferred);
  std::sort(deferred.begin(), deferred.end(), [](const Deferred& a, const Deferred& b) { return a.ply < b.ply; });
  int last_deferred = deferred.empty() ? 0 : deferred.back().ply;
  if (cluster_) {
    last_deferred = int(cluster_->max(std::uint64_t(last_deferred)));
    max_ply_ = int(cluster_->max(std::uint64_t(max_ply_.load())));
  }
  if (past_states()) return std::shared_ptr<SolvedTable>();

  std::uint64_t resolved_total = 0;
  std::size_t next_deferred = 0;
  for (int ply = 0; ply <= std::max(max_ply_.load(), last_deferred); ++ply) {
    std::atomic<std::uint64_t> found{0};
    const std::uint16_t target = resolved(ply);
    if (symmetric_) {
      // White's slots resolved at this ply stand for Black's twins too. The twins' predecessors are
      // White's slots, so the scan ends before any update: first the twins' indexes, then their
      // propagation.
      std::vector<std::vector<std::uint64_t>> twins(per_side);
      parallel_chunks(arena_, n, kChunk, [&](std::uint64_t first, std::uint64_t last) {
        if (!chunk_may_hold(0, first, ply)) return;
        auto& out = twins[first / kChunk];
        SlotBoards boards(scheme_, Color::kWhite);
        for_owned(first, last, [&](std::uint64_t from, std::uint64_t to) {
          for (std::uint64_t i = next_at(0, from, to, target); i < to; i = next_at(0, i + 1, to, target)) {
            const Board* b = boards.at(i);
            assert(b);
            out.push_back(scheme_.encode(color_flipped(*b)));
          }
        });
      });
      parallel_each(arena_, per_side, [&](std::uint64_t c) {
        Board b;
        for (const std::uint64_t j : twins[c]) {
          [[maybe_unused]] const bool ok = scheme_.decode(j, Color::kBlack, b);
          assert(ok);
          propagate(1, j, b, ply);
        }
        found.fetch_add(2 * twins[c].size(), std::memory_order_relaxed);
      });
    } else {
      // One side at a time: its positions' predecessors are on the other side, so the side scanned
      // does not change during its scan.
      for (int side = 0; side < 2; ++side) {
        parallel_chunks(arena_, n, kChunk, [&](std::uint64_t first, std::uint64_t last) {
          if (!chunk_may_hold(side, first, ply)) return;
          std::uint64_t local = 0;
          SlotBoards boards(scheme_, Color(side));
          for_owned(first, last, [&](std::uint64_t from, std::uint64_t to) {
            for (std::uint64_t i = next_at(side, from, to, target); i < to; i = next_at(side, i + 1, to, target)) {
              ++local;
              const Board* b = boards.at(i);
              assert(b);
              propagate(side, i, *b, ply);
            }
          });
          found.fetch_add(local, std::memory_order_relaxed);
        });
      }
    }
    for (; next_deferred < deferred.size() && deferred[next_deferred].ply <= ply; ++next_deferred) {
      const Deferred& d = deferred[next_deferred];
      assert(d.ply == ply);
      const std::uint16_t succ = state_[symmetric_ ? 0 : 1 - d.side].get(d.succ);
      if (is_resolved(succ) && ply_of(succ) % 2 == 1 && ply_of(succ) <= ply) continue;  // counted by propagate
      if (owns(d.pred)) count_down(d.side, d.pred, ply, 1);
      else send(d.side, true, d.pred, 1);
    }
    if (cluster_) {
      // The updates of this ply all resolve slots at later plies (a win at ply + 1 or a count-down),
      // so the ranks meet once per ply. (Deferred entries are with the pushed position's owner,
      // which reads its state above: no update of this ply can change what it tests.)
      exchange_updates(ply);
      found = cluster_->sum(found.load());
      max_ply_ = int(cluster_->max(std::uint64_t(max_ply_.load())));
    }
    // (A split solve's ranks agree on max_ply_ here, so they all stop together.)
    if (past_states()) return std::shared_ptr<SolvedTable>();
    resolved_total += found.load();
    if (progress_) progress_({"retro", ply, resolved_total, 2 * n});
  }

  if (progress_) progress_({"finish", 0, resolved_total, 2 * n});
  if (cluster_) {
    // Rank 0 gets the whole table; the others are done (their table has no values).
    for (int s = 0; s < sides; ++s) gather_states(s);
    if (rank_ != 0) return table_;
  }
  for (int s = 0; s < sides; ++s) {
    // The output grows over the states it replaces, which go back to the system a range at a time,
    // so the two never both hold a whole side (and with a scratch file, the output is the page
    // cache's): the solve's state stays the peak.
    auto& out = table_->values[s];
    auto made = output_values(n);
    if (!made) return made.error();
    out = std::move(*made);
    auto& no_better = table_->no_better[s];
    if (marks_) no_better.assign((n + 63) / 64, 0);
    constexpr std::uint64_t kRange = std::uint64_t{1} << 24;  // slots: whole pages and 64-slot words
    for (std::uint64_t first = 0; first < n; first += kRange) {
      const std::uint64_t last = std::min(n, first + kRange);
      // Whole 64-slot words of no_better per task, so no two tasks share a word.
      parallel_ranges(arena_, (last - first + 63) / 64, kChunk / 64, [&](std::uint64_t from, std::uint64_t to) {
        for (std::uint64_t w = first / 64 + from; w != first / 64 + to; ++w) {
          std::uint64_t bits = 0;
          for (std::uint64_t i = w * 64; i < std::min(n, w * 64 + 64); ++i) {
            const std::uint16_t st = state_[s].get(i);
            bool mark = false;
            if (st == kIllegal) {
              out[i] = DtmValue::illegal();
            } else if (is_resolved(st)) {
              const int ply = ply_of(st);
              out[i] = ply % 2 ? DtmValue::win_in_plies(ply) : DtmValue::loss_in_plies(ply);
              mark = ply == 0 || (st & kConvBit);  // checkmate, or a conversion's value
            } else {
              out[i] = DtmValue::draw();
              mark = st == kNoLoss;  // stalemate, or a conversion's draw
            }
            bits |= std::uint64_t(mark) << (i % 64);
          }
          if (marks_) no_better[w] = bits;
        }
      });
      state_[s].release(first, last);
    }
    state_[s].reset();
  }
  if (symmetric_) {
    // Black's side: each legal slot takes the value and the mark of its colour-flipped twin.
    const auto& white = table_->values[0];
    const auto& white_marks = table_->no_better[0];
    auto& out = table_->values[1];
    auto made = output_values(n);
    if (!made) return made.error();
    out = std::move(*made);
    auto& no_better = table_->no_better[1];
    if (marks_) no_better.assign((n + 63) / 64, 0);
    parallel_ranges(arena_, (n + 63) / 64, kChunk / 64, [&](std::uint64_t from, std::uint64_t to) {
      SlotBoards boards(scheme_, Color::kBlack);
      for (std::uint64_t w = from; w != to; ++w) {
        std::uint64_t bits = 0;
        for (std::uint64_t i = w * 64; i < std::min(n, w * 64 + 64); ++i) {
          const Board* b = boards.at(i);
          if (!b || !is_legal(*b)) {
            out[i] = DtmValue::illegal();
            continue;
          }
          const std::uint64_t k = scheme_.encode(color_flipped(*b));
          out[i] = white[k];
          if (marks_) bits |= ((white_marks[k / 64] >> (k % 64)) & 1) << (i % 64);
        }
        if (marks_) no_better[w] = bits;
      }
    });
  }
  return table_;
}

template <class States>
void Solver<States>::exchange_updates(int ply) {
  std::vector<std::vector<std::uint64_t>> out(std::size_t(map_.ranks));
  for (auto& local : outboxes_)
    for (std::size_t r = 0; r < local.size(); ++r) {
      out[r].insert(out[r].end(), local[r].begin(), local[r].end());
      local[r].clear();
    }
  const std::vector<std::uint64_t> in = cluster_->exchange(out);
  parallel_ranges(arena_, in.size(), std::uint64_t{1} << 14, [&](std::uint64_t first, std::uint64_t last) {
    constexpr std::uint64_t kAhead = 16;
    auto slot = [&](std::uint64_t k) { return States::where(state_[int(in[k] >> 23 & 1)].slot(in[k] >> 24)); };
    for (std::uint64_t k = first; k < std::min(last, first + kAhead); ++k) __builtin_prefetch(slot(k), 1);
    for (std::uint64_t k = first; k < last; ++k) {
      if (k + kAhead < last) __builtin_prefetch(slot(k + kAhead), 1);
      const std::uint64_t u = in[k];
      const int side = int(u >> 23 & 1);
      const std::uint64_t index = u >> 24;
      const int arg = int(u & 0x3FFFFF);
      assert(owns(index));
      if (u >> 22 & 1) count_down(side, index, ply, arg);
      else {
        const typename States::Slot at = state_[side].slot(index);
        if (const std::uint16_t cur = States::load(at); cur != kIllegal) mark_win(side, index, at, cur, arg);
      }
    }
  });
}

template <class States>
void Solver<States>::route_deferred(std::vector<Deferred>& deferred) {
  std::vector<std::vector<std::uint64_t>> out(std::size_t(map_.ranks));
  for (const Deferred& d : deferred) {
    auto& o = out[std::size_t(owner(d.succ))];
    o.insert(o.end(), {std::uint64_t(d.ply), std::uint64_t(d.side), d.pred, d.succ});
  }
  const std::vector<std::uint64_t> in = cluster_->exchange(out);
  deferred.clear();
  for (std::size_t k = 0; k + 4 <= in.size(); k += 4) deferred.push_back({int(in[k]), int(in[k + 1]), in[k + 2], in[k + 3]});
}

template <class States>
void Solver<States>::gather_states(int side) {
  const std::uint64_t n = scheme_.size(), stride = scheme_.pair_stride();
  const std::uint64_t slices = (n + stride - 1) / stride;
  std::vector<std::uint16_t> mine;
  for (std::uint64_t slice = 0; slice < slices; ++slice)
    if (map_.owner(slice) == rank_)
      for (std::uint64_t i = slice * stride; i < std::min(n, (slice + 1) * stride); ++i) mine.push_back(state_[side].get(i));
  const std::vector<std::uint16_t> all = cluster_->gather(mine);
  if (rank_ != 0) return;
  // Rank r's part is its slices in order, after the parts of ranks 0..r-1.
  std::size_t at = 0;
  for (int r = 0; r < map_.ranks; ++r)
    for (std::uint64_t slice = 0; slice < slices; ++slice) {
      if (map_.owner(slice) != r) continue;
      const std::uint64_t len = std::min(n, (slice + 1) * stride) - slice * stride;
      if (r != rank_)
        for (std::uint64_t k = 0; k < len; ++k) States::store(state_[side].slot(slice * stride + k), all[at + k]);
      at += len;
    }
  assert(at == all.size());
}

}  // namespace

bool is_large_table(const Material& material) { return IndexScheme(material).size() * 2 * sizeof(DtmValue) >= kLargeTableBytes; }

SolveBytes solve_bytes(const Material& material, bool scratch) {
  const std::uint64_t n = IndexScheme(material).size();
  // The state, both sides; the output replaces it a range at a time (Solver::run), in memory or in
  // scratch files; the no-better marks (1 bit a slot and side, when asked for) come on top.
  const bool large = is_large_table(material);
  const std::uint64_t state = large ? n * 2 * 8 / 5 : n * 2 * 2;
  const std::uint64_t output = n * 2 * sizeof(DtmValue);
  SolveBytes out;
  out.memory = (large && scratch ? state : std::max(state, output)) + n / 4 + (96U << 20);
  out.scratch = large && scratch ? output : 0;
  return out;
}

Result<std::shared_ptr<SolvedTable>> solve_table(const Material& material, const TableSet& subtables,
                                                 tbb::task_arena& arena, const ProgressFn& progress,
                                                 const SplitSolve* split, bool no_better_marks,
                                                 const SolveStorage& storage) {
  // Only the tables this one converts into: a probe looks its table up in a short list (a run's
  // set may hold dozens).
  TableSet own;
  for (const Material& sub : material.conversions()) {
    auto table = subtables.shared(sub);
    if (!table) return make_error(ErrorCode::kUnavailable, material.name() + ": needs table " + sub.name() + " first");
    own.add(std::move(table));
  }
  const bool packed =
      storage.layout == StateLayout::kPacked || (storage.layout == StateLayout::kAuto && is_large_table(material));
  if (packed) {
    Solver<PackedStates> solver(material, own, arena, progress, split, no_better_marks, storage.scratch);
    auto solved = solver.run();
    // Null: a ply past 12-bit states (none of 3-6 men come near); solved again in 16 bits.
    if (!solved || *solved) return solved;
  }
  Solver<WideStates> solver(material, own, arena, progress, split, no_better_marks, storage.scratch);
  auto solved = solver.run();
  if (solved) assert(*solved);
  return solved;
}

}  // namespace tbkit::gen
