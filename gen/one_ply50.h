// One-ply rules of the 50-move values that the Syzygy writer, the consistency check and the
// WDL/DTZ pass share.
#pragma once

#include <algorithm>
#include <optional>

#include "gen/wdl_dtz.h"

namespace tbkit::gen {

// The WDL50 of `child`, reached from a board of `table`'s material by the move `mi`: from
// `subtables` for a capture or promotion, else from `table`; a double push's child also has the
// en-passant captures (and, stalemated but for them, only those).
[[nodiscard]] inline int child_wdl50(const DtzTable& table, const DtzSet& subtables, const Board& child, const MoveInfo& mi) {
  if (mi.kind == MoveKind::kConversion) return subtables.wdl(child);
  const int w = wdl50(table.dtz(child));
  if (mi.kind != MoveKind::kDoublePush) return w;
  std::optional<int> ep;
  for_each_en_passant(child, mi.ep_square, [&](const Board& gc) {
    const int v = -subtables.wdl(gc);
    ep = ep ? std::max(*ep, v) : v;
  });
  if (!ep) return w;
  if (w == 0 && !in_check(child) && !has_legal_move(child)) return *ep;
  return std::max(w, *ep);
}

// Whether a move zeroes the 50-move counter: a capture or a pawn move.
[[nodiscard]] inline bool is_zeroing(const Board& b, const MoveInfo& mi) {
  return (b.occupied() & mi.to.bb()) != 0 || (b.by_type[index_of(chess::PieceType::kPawn)] & mi.from.bb()) != 0;
}

// Whether the side to move attacks a man of the other side: without, it has no capture (but en
// passant, which needs the board's en-passant square).
[[nodiscard]] inline bool may_capture(const Board& b) {
  using namespace chess;
  const Color us = b.side;
  const Bitboard occupied = b.occupied();
  for (Bitboard men = b.by_color[index_of(~us)] & ~b.by_type[index_of(PieceType::kKing)]; men;)
    if (is_attacked(b, pop_lsb(men), us, occupied)) return true;
  return false;
}

// Whether the side to move has a pawn or attacks a man of the other side: without, it has no
// capture nor pawn move, and a search finds none.
[[nodiscard]] inline bool may_zero(const Board& b) {
  return b.pieces(b.side, chess::PieceType::kPawn) || may_capture(b);
}

}  // namespace tbkit::gen
