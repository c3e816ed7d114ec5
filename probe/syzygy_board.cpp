#include "probe/syzygy_board.h"

#include <cassert>

#include "chess/attacks.h"

namespace tbkit::probe::detail {

using namespace chess;

namespace {

constexpr PieceType kPromotions[4] = {PieceType::kQueen, PieceType::kRook, PieceType::kBishop, PieceType::kKnight};

// What a legality test needs of the side to move, computed once per board.
struct Safety {
  Color us, them;
  Bitboard own, enemy, occ;
  Square king;
  Bitboard checkers;
  Bitboard pinned;  // own pieces that alone stand between the king and an enemy slider
};

Bitboard attackers_of(const ProbeBoard& b, Square s, Bitboard occ) {
  const Bitboard diag = b.type[index_of(PieceType::kBishop)] | b.type[index_of(PieceType::kQueen)];
  const Bitboard orth = b.type[index_of(PieceType::kRook)] | b.type[index_of(PieceType::kQueen)];
  return (pawn_attacks(Color::kBlack, s) & b.pieces(Color::kWhite, PieceType::kPawn)) |
         (pawn_attacks(Color::kWhite, s) & b.pieces(Color::kBlack, PieceType::kPawn)) |
         (knight_attacks(s) & b.type[index_of(PieceType::kKnight)]) | (bishop_attacks(s, occ) & diag) |
         (rook_attacks(s, occ) & orth) | (king_attacks(s) & b.type[index_of(PieceType::kKing)]);
}

// Whether a man of colour `by` attacks square s (occupancy occ): attackers_of for one side, its
// slider look-ups made only when the side has such sliders.
bool attacked_by(const ProbeBoard& b, Square s, Color by, Bitboard occ) {
  const Bitboard men = b.colour[index_of(by)];
  if ((pawn_attacks(~by, s) & men & b.type[index_of(PieceType::kPawn)]) ||
      (knight_attacks(s) & men & b.type[index_of(PieceType::kKnight)]) ||
      (king_attacks(s) & men & b.type[index_of(PieceType::kKing)]))
    return true;
  const Bitboard queens = b.type[index_of(PieceType::kQueen)];
  const Bitboard diag = men & (b.type[index_of(PieceType::kBishop)] | queens);
  const Bitboard orth = men & (b.type[index_of(PieceType::kRook)] | queens);
  return (diag && (bishop_attacks(s, occ) & diag)) || (orth && (rook_attacks(s, occ) & orth));
}

Safety safety_of(const ProbeBoard& b) {
  Safety s;
  s.us = b.side;
  s.them = ~b.side;
  s.own = b.colour[index_of(s.us)];
  s.enemy = b.colour[index_of(s.them)];
  s.occ = s.own | s.enemy;
  s.king = lsb(b.pieces(s.us, PieceType::kKing));
  s.checkers = attackers_of(b, s.king, s.occ) & s.enemy;
  s.pinned = 0;
  const Bitboard diag = b.type[index_of(PieceType::kBishop)] | b.type[index_of(PieceType::kQueen)];
  const Bitboard orth = b.type[index_of(PieceType::kRook)] | b.type[index_of(PieceType::kQueen)];
  Bitboard snipers = ((rook_attacks(s.king, 0) & orth) | (bishop_attacks(s.king, 0) & diag)) & s.enemy;
  while (snipers) {
    const Bitboard between = between_bb(s.king, pop_lsb(snipers)) & s.occ;
    if (between && !more_than_one(between)) s.pinned |= between & s.own;
  }
  return s;
}

Square behind(Color us, Square to) { return Square(us == Color::kWhite ? to.index() - 8 : to.index() + 8); }

// The legal en-passant captures: the board after each is tested whole, since removing two pawns
// from one rank can expose the king in a way no pin shows.
template <class Visit>
bool visit_en_passant(const ProbeBoard& b, const Safety& s, Visit&& visit) {
  if (b.en_passant.is_none()) return false;
  const Square ep = b.en_passant;
  const Square taken = behind(s.us, ep);
  for (Bitboard from_bb = pawn_attacks(s.them, ep) & b.pieces(s.us, PieceType::kPawn); from_bb;) {
    const Square from = pop_lsb(from_bb);
    const Bitboard after = (s.occ ^ from.bb() ^ taken.bb()) | ep.bb();
    if (attackers_of(b, s.king, after) & s.enemy & ~taken.bb()) continue;
    if (visit(Move(from, ep, Move::Kind::kEnPassant))) return true;
  }
  return false;
}

// The material key of a board whose colours and types are set.
MaterialKey key_of(const ProbeBoard& b) {
  MaterialKey key = 0;
  for (Color c : {Color::kWhite, Color::kBlack})
    for (int t = 0; t < kPieceTypeCount; ++t) key += MaterialKey(popcount(b.pieces(c, PieceType(t)))) * material_unit(c, PieceType(t));
  return key;
}

// Whether any man of the side to move attacks an enemy man, or an en-passant capture is open (pins
// and checks aside): most positions a WDL probe meets have no capture, and this is cheaper than
// finding out which captures are legal.
bool may_capture(const ProbeBoard& b) {
  if (!b.en_passant.is_none()) return true;
  const Color us = b.side;
  const Bitboard enemy = b.colour[index_of(~us)];
  const Bitboard occ = b.occupied();
  const Bitboard own = b.colour[index_of(us)];
  if (pawn_attacks_of(us, b.pieces(us, PieceType::kPawn)) & enemy) return true;
  if (king_attacks(lsb(b.pieces(us, PieceType::kKing))) & enemy) return true;
  for (Bitboard p = own & b.type[index_of(PieceType::kKnight)]; p;)
    if (knight_attacks(pop_lsb(p)) & enemy) return true;
  const Bitboard queens = b.type[index_of(PieceType::kQueen)];
  for (Bitboard p = own & (b.type[index_of(PieceType::kBishop)] | queens); p;)
    if (bishop_attacks(pop_lsb(p), occ) & enemy) return true;
  for (Bitboard p = own & (b.type[index_of(PieceType::kRook)] | queens); p;)
    if (rook_attacks(pop_lsb(p), occ) & enemy) return true;
  return false;
}

}  // namespace

ProbeBoard ProbeBoard::of(const Position& pos) {
  ProbeBoard b;
  for (Color c : {Color::kWhite, Color::kBlack}) b.colour[std::size_t(index_of(c))] = pos.pieces(c);
  for (int t = 0; t < kPieceTypeCount; ++t) b.type[std::size_t(t)] = pos.pieces(PieceType(t));
  b.key = key_of(b);
  b.side = pos.side_to_move();
  // A Position keeps an en-passant square only when a pawn of the side to move can take, from its
  // fifth rank; without such a pawn the square (in the position's state, apart from the board) is
  // not read.
  const Bitboard takers = rank_bb(b.side == Color::kWhite ? 4 : 3);
  b.en_passant = (b.pieces(b.side, PieceType::kPawn) & takers) ? pos.en_passant() : Square::none();
  return b;
}

std::optional<ProbeBoard> ProbeBoard::from_bitboards(Bitboard white, Bitboard black,
                                                     const std::array<Bitboard, kPieceTypeCount>& types, Color side,
                                                     Square en_passant) {
  if (white & black) return std::nullopt;
  Bitboard seen = 0;
  for (const Bitboard t : types) {
    if (seen & t) return std::nullopt;
    seen |= t;
  }
  if (seen != (white | black)) return std::nullopt;
  ProbeBoard b;
  b.colour = {white, black};
  for (int t = 0; t < kPieceTypeCount; ++t) b.type[std::size_t(t)] = types[std::size_t(t)];
  b.side = side;
  constexpr Bitboard kBackRanks = 0xFF000000000000FFULL;
  if (b.type[index_of(PieceType::kPawn)] & kBackRanks) return std::nullopt;
  for (Color c : {Color::kWhite, Color::kBlack})
    if (popcount(b.pieces(c, PieceType::kKing)) != 1 || popcount(b.pieces(c, PieceType::kPawn)) > 8 ||
        popcount(b.colour[index_of(c)]) > 16)
      return std::nullopt;
  b.key = key_of(b);
  const Color them = ~side;
  const Square their_king = lsb(b.pieces(them, PieceType::kKing));
  if (attacked_by(b, their_king, side, b.occupied())) return std::nullopt;
  if (!en_passant.is_none()) {
    if (en_passant.relative_rank(side) != 5) return std::nullopt;
    const Square pushed = behind(side, en_passant);
    const Square origin = Square(side == Color::kWhite ? en_passant.index() + 8 : en_passant.index() - 8);
    if (!(b.pieces(them, PieceType::kPawn) & pushed.bb()) || (b.occupied() & (en_passant.bb() | origin.bb())))
      return std::nullopt;
    if (pawn_attacks(them, en_passant) & b.pieces(side, PieceType::kPawn)) b.en_passant = en_passant;
  }
  return b;
}

PieceType ProbeBoard::type_on(Square s) const {
  for (int t = 0; t < kPieceTypeCount; ++t)
    if (type[std::size_t(t)] & s.bb()) return PieceType(t);
  assert(false && "type_on an empty square");
  return PieceType::kNone;
}

ProbeBoard ProbeBoard::after(Move m) const {
  ProbeBoard b = *this;
  const Color us = side, them = ~side;
  const Square from = m.from(), to = m.to();
  const PieceType moved = type_on(from);
  b.en_passant = Square::none();
  if (m.is_en_passant()) {
    const Square taken = behind(us, to);
    b.colour[index_of(them)] ^= taken.bb();
    b.type[index_of(PieceType::kPawn)] ^= taken.bb();
    b.key -= material_unit(them, PieceType::kPawn);
  } else if (colour[index_of(them)] & to.bb()) {
    const PieceType captured = type_on(to);
    b.colour[index_of(them)] ^= to.bb();
    b.type[index_of(captured)] ^= to.bb();
    b.key -= material_unit(them, captured);
  }
  b.colour[index_of(us)] ^= from.bb() | to.bb();
  b.type[index_of(moved)] ^= from.bb();
  if (m.is_promotion()) {
    b.type[index_of(m.promotion())] |= to.bb();
    b.key += material_unit(us, m.promotion()) - material_unit(us, PieceType::kPawn);
  } else {
    b.type[index_of(moved)] |= to.bb();
  }
  // A double push gives the right only when an enemy pawn could take (Position's rule).
  if (moved == PieceType::kPawn && (from.index() ^ to.index()) == 16) {
    const Square mid((from.index() + to.index()) / 2);
    if (pawn_attacks(us, mid) & b.pieces(them, PieceType::kPawn)) b.en_passant = mid;
  }
  b.side = them;
  return b;
}

void generate_zeroing(const ProbeBoard& b, bool pawn_moves, ZeroingMoves& out) {
  if (!pawn_moves && !may_capture(b)) return;
  const Safety s = safety_of(b);
  for (Bitboard t = king_attacks(s.king) & s.enemy; t;) {
    const Square to = pop_lsb(t);
    if (!attacked_by(b, to, s.them, s.occ ^ s.king.bb())) out.push(Move(s.king, to));
  }
  if (more_than_one(s.checkers)) return;
  // Captures must take the checker; pawn pushes may also block.
  const Bitboard capture_target = s.checkers ? s.checkers : s.enemy;
  const Bitboard push_target = s.checkers ? between_bb(s.king, lsb(s.checkers)) : ~s.occ;
  for (Bitboard p = b.pieces(s.us, PieceType::kKnight) & ~s.pinned; p;) {
    const Square from = pop_lsb(p);
    for (Bitboard t = knight_attacks(from) & capture_target; t;) out.push(Move(from, pop_lsb(t)));
  }
  const auto sliders = [&](Bitboard pieces, auto attacks) {
    while (pieces) {
      const Square from = pop_lsb(pieces);
      Bitboard t = attacks(from, s.occ) & capture_target;
      if (s.pinned & from.bb()) t &= line_bb(s.king, from);
      while (t) out.push(Move(from, pop_lsb(t)));
    }
  };
  const Bitboard queens = b.pieces(s.us, PieceType::kQueen);
  sliders(b.pieces(s.us, PieceType::kBishop) | queens, [](Square q, Bitboard o) { return bishop_attacks(q, o); });
  sliders(b.pieces(s.us, PieceType::kRook) | queens, [](Square q, Bitboard o) { return rook_attacks(q, o); });

  const Bitboard promotion_rank = s.us == Color::kWhite ? kRank8 : kRank1;
  const Bitboard third_rank = s.us == Color::kWhite ? rank_bb(2) : rank_bb(5);
  for (Bitboard p = b.pieces(s.us, PieceType::kPawn); p;) {
    const Square from = pop_lsb(p);
    const Bitboard line = (s.pinned & from.bb()) ? line_bb(s.king, from) : ~Bitboard{0};
    Bitboard t = pawn_attacks(s.us, from) & capture_target & line;
    Bitboard double_push = 0;
    if (pawn_moves) {
      const Bitboard single = pawn_push(s.us, from.bb()) & ~s.occ;
      t |= single & push_target & line;
      double_push = pawn_push(s.us, single & third_rank) & ~s.occ & push_target & line;
    }
    while (t) {
      const Square to = pop_lsb(t);
      if (to.bb() & promotion_rank) {
        for (PieceType promo : kPromotions) out.push(Move(from, to, Move::Kind::kPromotion, promo));
      } else {
        out.push(Move(from, to));
      }
    }
    if (double_push) out.push(Move(from, lsb(double_push)));
  }
  visit_en_passant(b, s, [&](Move m) {
    out.push(m);
    return false;
  });
}

bool has_other_legal_move(const ProbeBoard& b, bool pawn_moves_excluded) {
  const Safety s = safety_of(b);
  for (Bitboard t = king_attacks(s.king) & ~s.occ; t;)
    if (!attacked_by(b, pop_lsb(t), s.them, s.occ ^ s.king.bb())) return true;
  if (more_than_one(s.checkers)) return false;
  // Quiet moves land on empty squares, and out of check only between the king and the checker.
  const Bitboard target = s.checkers ? between_bb(s.king, lsb(s.checkers)) : ~s.occ;
  if (!target) return false;
  for (Bitboard p = b.pieces(s.us, PieceType::kKnight) & ~s.pinned; p;)
    if (knight_attacks(pop_lsb(p)) & target) return true;
  const Bitboard queens = b.pieces(s.us, PieceType::kQueen);
  for (Bitboard p = b.pieces(s.us, PieceType::kBishop) | queens; p;) {
    const Square from = pop_lsb(p);
    Bitboard t = bishop_attacks(from, s.occ) & target;
    if (s.pinned & from.bb()) t &= line_bb(s.king, from);
    if (t) return true;
  }
  for (Bitboard p = b.pieces(s.us, PieceType::kRook) | queens; p;) {
    const Square from = pop_lsb(p);
    Bitboard t = rook_attacks(from, s.occ) & target;
    if (s.pinned & from.bb()) t &= line_bb(s.king, from);
    if (t) return true;
  }
  if (pawn_moves_excluded) return false;
  const Bitboard third_rank = s.us == Color::kWhite ? rank_bb(2) : rank_bb(5);
  for (Bitboard p = b.pieces(s.us, PieceType::kPawn); p;) {
    const Square from = pop_lsb(p);
    const Bitboard line = (s.pinned & from.bb()) ? line_bb(s.king, from) : ~Bitboard{0};
    const Bitboard single = pawn_push(s.us, from.bb()) & ~s.occ;
    const Bitboard double_push = pawn_push(s.us, single & third_rank) & ~s.occ;
    if ((single | double_push) & target & line) return true;
  }
  return false;
}

}  // namespace tbkit::probe::detail
