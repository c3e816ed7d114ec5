// Predecessor and successor indexes computed from a slot's index digits rather than by encoding a
// board: the technique of the DTM solver's propagation (gen/solver.cpp), for passes that move or
// un-move pieces and kings only (the WDL50/DTZ50 pass's non-zeroing un-moves, and its pull's quiet
// moves).
#pragma once

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <optional>
#include <utility>

#include "gen/model.h"
#include "model/board.h"
#include "model/index_scheme.h"

namespace tbkit::gen {

// Calls direct(p, type) with the index p of each predecessor of the canonical board `b` of slot
// `i` of `scheme` reached by a non-capturing knight, bishop, rook, queen or king un-move of the
// side not to move (~b.side) that can be numbered from i's digits, and returns the men and king
// squares it covered. Un-moves that would leave b.side's king in check from the moving man, or
// expose it, are mostly left out; the rest may still give an illegal predecessor, whose slot the
// caller's table marks illegal. Every predecessor passed has stabilizer size 1 (it stands for one
// board). The un-moves not covered go through model::for_each_unmove(b, f, skip | covered.men,
// covered.king_from), which then gives exactly the legal predecessors not passed here. In the
// pawnless diagonal case (both kings on a1-h8) nothing is covered. Pawns never move here.
struct CoveredUnmoves {
  chess::Bitboard men = 0;        // men (of ~b.side) whose every un-move was covered
  chess::Bitboard king_from = 0;  // squares the king's un-moves from were covered (or excluded)
  // Whether nothing is left for for_each_unmove, given the pieces it would move.
  [[nodiscard]] bool all(const Board& b) const {
    using namespace chess;
    const Color mover = ~b.side;
    const Bitboard pieces = b.by_color[index_of(mover)] & ~b.by_type[index_of(PieceType::kKing)] &
                            ~b.by_type[index_of(PieceType::kPawn)];
    return !(king_attacks(b.king(mover)) & ~b.occupied() & ~king_from) && !(pieces & ~men);
  }
};

// The squares from which a man of ~b.side now on `at` may have come (a non-capturing un-move)
// without the predecessor leaving b.side's king in check, which would make it illegal: a knight's or
// pawn's check by another man stays; of two slider checks by other men one stays, and one is
// blocked only from a square between; a man that alone shields the king from a slider must come
// back onto that segment; and a man cannot come from a square it checks from. Exclusions only:
// some squares left may still give an illegal predecessor. Used by the DTM solver's propagation and
// by for_each_indexed_unmove.
class UnmoveFroms {
 public:
  explicit UnmoveFroms(const Board& b)
      : side_(b.side), ksq_(b.king(b.side)), occ_(b.occupied()) {
    using namespace chess;
    const Bitboard mine = b.by_color[index_of(~side_)];
    const Bitboard queens = b.by_type[index_of(PieceType::kQueen)];
    straight_ = (b.by_type[index_of(PieceType::kRook)] | queens) & mine;
    diagonal_ = (b.by_type[index_of(PieceType::kBishop)] | queens) & mine;
    leaper_checkers_ = ((knight_attacks(ksq_) & b.by_type[index_of(PieceType::kKnight)]) |
                        (pawn_attacks(side_, ksq_) & b.by_type[index_of(PieceType::kPawn)])) &
                       mine;
    slider_checkers_ = (rook_attacks(ksq_, occ_) & straight_) | (bishop_attacks(ksq_, occ_) & diagonal_);
  }

  [[nodiscard]] chess::Bitboard operator()(chess::PieceType t, chess::Square at) const {
    using namespace chess;
    const Bitboard x = at.bb();
    if (leaper_checkers_ & ~x) return Bitboard{0};
    Bitboard allowed = ~Bitboard{0};
    if (const Bitboard others = slider_checkers_ & ~x) {
      if (others & (others - 1)) return Bitboard{0};
      allowed = between_bb(ksq_, lsb(others));
    }
    const Bitboard without = occ_ & ~x;
    if (line_bb(ksq_, at)) {
      const Bitboard shielded =
          ((rook_attacks(ksq_, without) & straight_) | (bishop_attacks(ksq_, without) & diagonal_)) & ~slider_checkers_ & ~x;
      if (shielded) allowed &= between_bb(ksq_, lsb(shielded));
    }
    switch (t) {
      case PieceType::kPawn: return allowed & ~pawn_attacks(side_, ksq_);
      case PieceType::kKnight: return allowed & ~knight_attacks(ksq_);
      case PieceType::kBishop: return allowed & ~bishop_attacks(ksq_, without);
      case PieceType::kRook: return allowed & ~rook_attacks(ksq_, without);
      case PieceType::kQueen: return allowed & ~queen_attacks(ksq_, without);
      default: return allowed & ~king_attacks(ksq_);
    }
  }

 private:
  chess::Color side_;
  chess::Square ksq_;
  chess::Bitboard occ_;
  chess::Bitboard straight_ = 0, diagonal_ = 0, leaper_checkers_ = 0, slider_checkers_ = 0;
};

// The index of slot i's board with one man or king on another square, computed from i's digits
// (not by encoding a board): for a canonical board `b` of slot `i` outside the pawnless diagonal
// case. Moves in either direction (an un-move's or a move's) are alike here.
class SlotDigits {
 public:
  SlotDigits(const model::IndexScheme& scheme, const Board& b, std::uint64_t i)
      : i_(i), pair_(int(i / scheme.pair_stride())), stride_(scheme.pair_stride()) {
    count_ = scheme.group_placements(b, groups_);
    for (int h = 0; h < count_; ++h) {
      const auto& gr = groups_[std::size_t(h)];
      if (gr.count == 1) continue;
      number_[std::size_t(h)] = model::combination_rank(gr.placed, gr.avail);
      if (gr.count == 2)
        pair_ranks_[std::size_t(h)] = {rank_in(gr.avail, gr.placed & -gr.placed), rank_in(gr.avail, gr.placed & (gr.placed - 1))};
    }
  }
  [[nodiscard]] const model::IndexScheme::GroupPlacement& group(int g) const { return groups_[std::size_t(g)]; }

  // The index with the man of group g on `at` on `to` instead.
  [[nodiscard]] std::uint64_t man(int g, chess::Bitboard at, chess::Bitboard to) const {
    using namespace chess;
    const auto& gr = groups_[std::size_t(g)];
    std::uint64_t p = i_;
    if (gr.count == 1) {
      p += std::uint64_t(std::int64_t(popcount(gr.avail & (to - 1)) - popcount(gr.avail & (at - 1)))) * gr.stride;
    } else if (gr.count == 2) {
      // Two like men: the other one's rank stays; the number is C(low, 1) + C(high, 2).
      const auto [lo, hi] = pair_ranks_[std::size_t(g)];
      p += (pair_number(at == (gr.placed & -gr.placed) ? hi : lo, rank_in(gr.avail, to)) - number_[std::size_t(g)]) * gr.stride;
    } else {
      p += (model::combination_rank(gr.placed ^ at ^ to, gr.avail) - number_[std::size_t(g)]) * gr.stride;
    }
    for (int h = g + 1; h < count_; ++h) p += later_change(h, at, to);
    return p;
  }
  // The index with a king on `at` on `to` instead, making king pair new_pair (canonical as it stands).
  [[nodiscard]] std::uint64_t king(int new_pair, chess::Bitboard at, chess::Bitboard to) const {
    std::uint64_t p = i_ + std::uint64_t(std::int64_t(new_pair - pair_)) * stride_;
    for (int h = 0; h < count_; ++h)
      if (!groups_[std::size_t(h)].pawn) p += later_change(h, at, to);
    return p;
  }

 private:
  // A man of an earlier group (or a king) on `to` instead of `at` changes a later group's number:
  // a single man's rank moves by one when the moving man crosses it.
  [[nodiscard]] std::uint64_t later_change(int h, chess::Bitboard at, chess::Bitboard to) const {
    const auto& gr = groups_[std::size_t(h)];
    if (gr.count == 1) return (std::uint64_t(at < gr.placed) - std::uint64_t(to < gr.placed)) * gr.stride;
    if (gr.count == 2) {
      // Each man's rank moves by one where the moving man crosses it.
      const chess::Bitboard low = gr.placed & -gr.placed, high = gr.placed & (gr.placed - 1);
      const auto [lo, hi] = pair_ranks_[std::size_t(h)];
      const int new_lo = lo + int(at < low) - int(to < low), new_hi = hi + int(at < high) - int(to < high);
      return (pair_number(new_lo, new_hi) - number_[std::size_t(h)]) * gr.stride;
    }
    return (model::combination_rank(gr.placed, (gr.avail | at) & ~to) - number_[std::size_t(h)]) * gr.stride;
  }
  // The rank of square `sq` (a one-bit board) among `avail`'s squares.
  [[nodiscard]] static int rank_in(chess::Bitboard avail, chess::Bitboard sq) { return chess::popcount(avail & (sq - 1)); }
  // combination_rank of two men of ranks a and b (a != b), either order.
  [[nodiscard]] static std::uint64_t pair_number(int a, int b) {
    const std::uint64_t low = std::uint64_t(std::min(a, b)), high = std::uint64_t(std::max(a, b));
    return low + high * (high - 1) / 2;
  }

  std::uint64_t i_;
  int pair_;
  std::uint64_t stride_;
  int count_ = 0;
  std::array<model::IndexScheme::GroupPlacement, model::IndexScheme::kMaxGroups> groups_;
  std::array<std::uint64_t, model::IndexScheme::kMaxGroups> number_{};  // of each group of several men
  std::array<std::pair<int, int>, model::IndexScheme::kMaxGroups> pair_ranks_{};  // of each group of two: low, high
};

template <class Direct>
CoveredUnmoves for_each_indexed_unmove(const model::IndexScheme& scheme, const Board& b, std::uint64_t i,
                                       Direct&& direct) {
  using namespace chess;
  CoveredUnmoves covered;
  if (scheme.diagonal_case(b)) return covered;
  const SlotDigits digits(scheme, b, i);
  const Color mover = ~b.side;
  const Bitboard occ = b.occupied();
  const UnmoveFroms legal_froms(b);
  for (PieceType t : {PieceType::kKnight, PieceType::kBishop, PieceType::kRook, PieceType::kQueen}) {
    const int g = scheme.group_of(mover, t);
    if (g < 0) continue;
    for (Bitboard men = digits.group(g).placed; men;) {
      const Square at = pop_lsb(men);
      covered.men |= at.bb();
      for (Bitboard froms = model::detail::attacks_of(t, at, occ) & ~occ & legal_froms(t, at); froms;)
        direct(digits.man(g, at.bb(), pop_lsb(froms).bb()), t);
    }
  }
  const Square at = b.king(mover);
  const bool white = mover == Color::kWhite;
  const Bitboard all_froms = model::detail::attacks_of(PieceType::kKing, at, occ) & ~occ;
  const Bitboard allowed = legal_froms(PieceType::kKing, at);
  // The squares left out count as covered: their predecessors are illegal.
  covered.king_from = all_froms & ~allowed;
  for (Bitboard froms = all_froms & allowed; froms;) {
    const Square from = pop_lsb(froms);
    const int new_pair = scheme.plain_pair(white ? from : b.king(Color::kWhite), white ? b.king(Color::kBlack) : from);
    if (new_pair < 0) continue;
    covered.king_from |= from.bb();
    direct(digits.king(new_pair, at.bb(), from.bb()), PieceType::kKing);
  }
  return covered;
}

// Calls f(c) with the index c of each child of the canonical board `b` of slot `i` by a legal
// non-capturing move of a knight, bishop, rook, queen or king of the side to move: the moves that
// leave a table's men and pawns as they are, so that c is a slot of the same table, with the other
// side to move. The WDL/DTZ pass's pull (gen/wdl_dtz.cpp) reads them. Indexes come from i's digits
// where the king pair stays canonical as it stands, else from the child board.
template <class F>
void for_each_quiet_child(const model::IndexScheme& scheme, const Board& b, std::uint64_t i, F&& f) {
  using namespace chess;
  const Color us = b.side;
  const bool white = us == Color::kWhite;
  const bool full = scheme.diagonal_case(b);
  std::optional<SlotDigits> digits;
  if (!full) digits.emplace(scheme, b, i);
  auto encoded = [&](PieceType t, Square from, Square to) {
    Board c = b;
    c.remove(us, t, from);
    c.put(us, t, to);
    c.side = ~us;
    return scheme.encode(c);
  };
  model::for_each_legal_move_bulk(
      b,
      [&](PieceType t, Square from, Bitboard targets) {
        const int g = t == PieceType::kKing ? -1 : scheme.group_of(us, t);
        while (targets) {
          const Square to = pop_lsb(targets);
          std::uint64_t c;
          if (full) {
            c = encoded(t, from, to);
          } else if (g >= 0) {
            c = digits->man(g, from.bb(), to.bb());
          } else {
            const int pair = scheme.plain_pair(white ? to : b.king(Color::kWhite), white ? b.king(Color::kBlack) : to);
            c = pair >= 0 ? digits->king(pair, from.bb(), to.bb()) : encoded(t, from, to);
          }
          assert(c == encoded(t, from, to));
          f(c);
        }
      },
      [](const Board&, const model::MoveInfo&) {});
}

}  // namespace tbkit::gen
