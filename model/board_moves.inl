// Template bodies for gen/board.h (move and un-move enumeration).
#pragma once

namespace tbkit::model {

namespace detail {

inline chess::Bitboard attacks_of(chess::PieceType t, chess::Square s, chess::Bitboard occ) {
  using chess::PieceType;
  switch (t) {
    case PieceType::kKnight: return chess::knight_attacks(s);
    case PieceType::kBishop: return chess::bishop_attacks(s, occ);
    case PieceType::kRook: return chess::rook_attacks(s, occ);
    case PieceType::kQueen: return chess::queen_attacks(s, occ);
    case PieceType::kKing: return chess::king_attacks(s);
    default: return 0;
  }
}

template <bool kBulk, class Bulk, class F>
void enumerate_legal_moves(const Board& b, Bulk&& bulk, F&& f) {
  using namespace chess;
  const Color us = b.side;
  const Color them = ~us;
  const Bitboard occ = b.occupied();
  const Bitboard own = b.by_color[index_of(us)];
  const Bitboard enemy = b.by_color[index_of(them)];
  const Square ksq = b.king(us);
  // Out of check, a king move is legal unless its target is attacked (seen through the king's own
  // square), and another man's move unless the man is pinned and leaves the pin line. The squares
  // attacked through the king include the king's own when it is in check.
  Bitboard king_danger = 0, pinned = 0;
  const Bitboard occ_no_king = occ & ~ksq.bb();
  for (Bitboard e = enemy & b.by_type[index_of(PieceType::kPawn)]; e;) king_danger |= pawn_attacks(them, chess::pop_lsb(e));
  for (PieceType t : {PieceType::kKnight, PieceType::kBishop, PieceType::kRook, PieceType::kQueen, PieceType::kKing})
    for (Bitboard e = enemy & b.by_type[index_of(t)]; e;) king_danger |= detail::attacks_of(t, chess::pop_lsb(e), occ_no_king);
  const bool checked = (king_danger & ksq.bb()) != 0;
  const Bitboard queens = b.by_type[index_of(PieceType::kQueen)];
  const Bitboard straight = b.by_type[index_of(PieceType::kRook)] | queens;
  const Bitboard diagonal = b.by_type[index_of(PieceType::kBishop)] | queens;
  if (kBulk || !checked) {
    const Bitboard snipers = enemy & ((rook_attacks(ksq, 0) & straight) | (bishop_attacks(ksq, 0) & diagonal));
    for (Bitboard sn = snipers; sn;) {
      const Bitboard between = between_bb(ksq, chess::pop_lsb(sn)) & occ;
      if (between && !(between & (between - 1))) pinned |= between & own;
    }
  }
  // In check, a piece's quiet move is legal when it blocks a single check and the piece is not
  // pinned (a pinned piece's line through the king meets the checking line only at the king).
  Bitboard blocks = ~Bitboard{0};
  if (kBulk && checked) {
    const Bitboard checkers =
        enemy & ((knight_attacks(ksq) & b.by_type[index_of(PieceType::kKnight)]) |
                 (pawn_attacks(us, ksq) & b.by_type[index_of(PieceType::kPawn)]) | (rook_attacks(ksq, occ) & straight) |
                 (bishop_attacks(ksq, occ) & diagonal));
    blocks = checkers & (checkers - 1) ? Bitboard{0} : between_bb(ksq, chess::lsb(checkers));
  }
  auto emit = [&](PieceType moved, Square from, Square to, PieceType promo, MoveKind kind, Square ep) {
    if (!checked) {
      if (moved == PieceType::kKing ? (king_danger & to.bb()) != 0
                                    : (pinned & from.bb()) && !(line_bb(ksq, from) & to.bb()))
        return;
    }
    Board c = b;
    if (enemy & to.bb()) {
      c.remove(them, c.type_on(to), to);
      kind = MoveKind::kConversion;
    }
    c.remove(us, moved, from);
    c.put(us, promo == PieceType::kNone ? moved : promo, to);
    if (promo != PieceType::kNone) kind = MoveKind::kConversion;
    if (checked && is_attacked(c, c.king(us), them, c.occupied())) return;
    c.side = them;
    f(static_cast<const Board&>(c), MoveInfo{kind, from, to, ep});
  };
  for (PieceType t : {PieceType::kKnight, PieceType::kBishop, PieceType::kRook, PieceType::kQueen, PieceType::kKing}) {
    for (Bitboard pcs = b.pieces(us, t); pcs;) {
      const Square from = pop_lsb(pcs);
      Bitboard to = detail::attacks_of(t, from, occ) & ~own;
      if constexpr (kBulk) {
        Bitboard quiet = to & ~enemy;
        if (t == PieceType::kKing) quiet &= ~king_danger;
        else if (pinned & from.bb()) quiet &= checked ? Bitboard{0} : line_bb(ksq, from);
        else quiet &= blocks;
        if (quiet) bulk(t, from, quiet);
        to &= enemy;
      }
      while (to) emit(t, from, pop_lsb(to), PieceType::kNone, MoveKind::kQuiet, Square::none());
    }
  }
  const int forward = us == Color::kWhite ? 8 : -8;
  for (Bitboard pawns = b.pieces(us, PieceType::kPawn); pawns;) {
    const Square from = pop_lsb(pawns);
    const bool promotes = from.relative_rank(us) == 6;
    auto pawn_to = [&](Square to) {
      if (!promotes) {
        emit(PieceType::kPawn, from, to, PieceType::kNone, MoveKind::kQuiet, Square::none());
        return;
      }
      for (PieceType p : {PieceType::kQueen, PieceType::kRook, PieceType::kBishop, PieceType::kKnight})
        emit(PieceType::kPawn, from, to, p, MoveKind::kConversion, Square::none());
    };
    const Square one(from.index() + forward);
    if (!(occ & one.bb())) {
      pawn_to(one);
      const Square two = from.relative_rank(us) == 1 ? Square(one.index() + forward) : one;
      if (two != one && !(occ & two.bb())) {
        const bool capturable = (pawn_attacks(us, one) & b.pieces(them, PieceType::kPawn)) != 0;
        emit(PieceType::kPawn, from, two, PieceType::kNone, capturable ? MoveKind::kDoublePush : MoveKind::kQuiet,
             capturable ? one : Square::none());
      }
    }
    for (Bitboard caps = pawn_attacks(us, from) & enemy; caps;) pawn_to(pop_lsb(caps));
  }
}

}  // namespace detail

template <class F>
void for_each_legal_move(const Board& b, F&& f) {
  detail::enumerate_legal_moves<false>(b, [](chess::PieceType, chess::Square, chess::Bitboard) {}, f);
}

template <class Bulk, class F>
void for_each_legal_move_bulk(const Board& b, Bulk&& bulk, F&& f) {
  detail::enumerate_legal_moves<true>(b, bulk, f);
}

template <class F>
void for_each_en_passant(const Board& b, chess::Square ep_square, F&& f) {
  using namespace chess;
  const Color us = b.side;
  const Color them = ~us;
  const Square victim(us == Color::kWhite ? ep_square.index() - 8 : ep_square.index() + 8);
  for (Bitboard caps = pawn_attacks(them, ep_square) & b.pieces(us, PieceType::kPawn); caps;) {
    const Square from = pop_lsb(caps);
    Board c = b;
    c.remove(them, PieceType::kPawn, victim);
    c.remove(us, PieceType::kPawn, from);
    c.put(us, PieceType::kPawn, ep_square);
    if (is_attacked(c, c.king(us), them, c.occupied())) continue;
    c.side = them;
    f(static_cast<const Board&>(c));
  }
}

template <class F>
void for_each_unmove(const Board& b, F&& f, chess::Bitboard skip, chess::Bitboard king_skip) {
  using namespace chess;
  const Color mover = ~b.side;  // the side that just moved
  const Bitboard occ = b.occupied();
  const Square ksq = b.king(b.side);
  // In the predecessor the side not to move (b.side) must not be in check. If it is not in check in
  // b, only the moved man can give it: directly from its old square, or by uncovering a slider.
  const bool checked = is_attacked(b, ksq, mover, occ);
  auto emit = [&](PieceType t, Square at, Square from, bool double_push) {
    Board p = b;
    p.remove(mover, t, at);
    p.put(mover, t, from);
    p.side = mover;
    if (checked || line_bb(ksq, at)) {
      if (is_attacked(p, ksq, mover, p.occupied())) return;
    } else {
      const Bitboard direct = t == PieceType::kPawn ? pawn_attacks(mover, from) : detail::attacks_of(t, from, p.occupied());
      if (direct & ksq.bb()) return;
    }
    f(static_cast<const Board&>(p), UnmoveInfo{t, from, at, double_push});
  };
  for (PieceType t : {PieceType::kKnight, PieceType::kBishop, PieceType::kRook, PieceType::kQueen, PieceType::kKing}) {
    for (Bitboard pcs = b.pieces(mover, t) & ~skip; pcs;) {
      const Square at = pop_lsb(pcs);
      const Bitboard barred = t == PieceType::kKing ? occ | king_skip : occ;
      for (Bitboard from = detail::attacks_of(t, at, occ) & ~barred; from;) emit(t, at, pop_lsb(from), false);
    }
  }
  const int back = mover == Color::kWhite ? -8 : 8;
  for (Bitboard pawns = b.pieces(mover, PieceType::kPawn) & ~skip; pawns;) {
    const Square at = pop_lsb(pawns);
    const int rr = at.relative_rank(mover);
    if (rr < 2) continue;
    const Square one(at.index() + back);
    if (occ & one.bb()) continue;
    emit(PieceType::kPawn, at, one, false);
    if (rr == 3) {
      const Square two(one.index() + back);
      if (!(occ & two.bb())) emit(PieceType::kPawn, at, two, true);
    }
  }
}

}  // namespace tbkit::model
