#include "chess/movegen.h"

#include <algorithm>

namespace tbkit::chess {
namespace {

constexpr Square pawn_step_back(Color us, Square to, int ranks) {
  return us == Color::kWhite ? Square(to.index() - 8 * ranks) : Square(to.index() + 8 * ranks);
}

void add_promotions(MoveList& out, Square from, Square to, bool noisy_only) {
  out.push(Move(from, to, Move::Kind::kPromotion, PieceType::kQueen));
  if (noisy_only) return;
  out.push(Move(from, to, Move::Kind::kPromotion, PieceType::kRook));
  out.push(Move(from, to, Move::Kind::kPromotion, PieceType::kBishop));
  out.push(Move(from, to, Move::Kind::kPromotion, PieceType::kKnight));
}

// Generates legal moves. target: squares non-king pieces may move to (check evasion mask minus own pieces).
template <Color Us, bool NoisyOnly>
void generate(const Position& pos, MoveList& out) {
  constexpr Color Them = ~Us;
  const Bitboard us_bb = pos.pieces(Us), them_bb = pos.pieces(Them), occ = us_bb | them_bb;
  const Square ksq = pos.king_square(Us);
  const Bitboard checkers = pos.checkers();

  // King moves: test destination safety with the king removed so sliders see through it.
  {
    Bitboard targets = king_attacks(ksq) & ~us_bb;
    if (NoisyOnly) targets &= them_bb;
    const Bitboard occ_no_king = occ ^ ksq.bb();
    while (targets) {
      Square to = pop_lsb(targets);
      if (!(pos.attackers_to(to, occ_no_king) & them_bb)) out.push(Move(ksq, to));
    }
  }
  if (more_than_one(checkers)) return;

  Bitboard target = ~us_bb;
  if (checkers) target = between_bb(ksq, lsb(checkers)) | checkers;
  Bitboard piece_target = NoisyOnly ? (target & them_bb) : target;
  const Bitboard pinned = pos.blockers_for_king(Us) & us_bb;

  // Knights (a pinned knight can never move).
  for (Bitboard b = pos.pieces(Us, PieceType::kKnight) & ~pinned; b;) {
    Square from = pop_lsb(b);
    for (Bitboard t = knight_attacks(from) & piece_target; t;) out.push(Move(from, pop_lsb(t)));
  }
  // Sliders; a pinned slider stays on the line through its king.
  const Bitboard diag = pos.pieces(Us, PieceType::kBishop) | pos.pieces(Us, PieceType::kQueen);
  const Bitboard orth = pos.pieces(Us, PieceType::kRook) | pos.pieces(Us, PieceType::kQueen);
  for (Bitboard b = diag; b;) {
    Square from = pop_lsb(b);
    Bitboard t = bishop_attacks(from, occ) & piece_target;
    if (pinned & from.bb()) t &= line_bb(ksq, from);
    while (t) out.push(Move(from, pop_lsb(t)));
  }
  for (Bitboard b = orth; b;) {
    Square from = pop_lsb(b);
    Bitboard t = rook_attacks(from, occ) & piece_target;
    if (pinned & from.bb()) t &= line_bb(ksq, from);
    while (t) out.push(Move(from, pop_lsb(t)));
  }

  // Pawns.
  constexpr Bitboard kPromoRank = Us == Color::kWhite ? kRank8 : kRank1;
  constexpr Bitboard kThirdRank = Us == Color::kWhite ? rank_bb(2) : rank_bb(5);
  const Bitboard pawns = pos.pieces(Us, PieceType::kPawn);
  const Bitboard empty = ~occ;
  for (Bitboard b = pawns; b;) {
    Square from = pop_lsb(b);
    Bitboard allowed = target;
    if (pinned & from.bb()) allowed &= line_bb(ksq, from);
    Bitboard caps = pawn_attacks(Us, from) & them_bb & allowed;
    Bitboard single = pawn_push(Us, from.bb()) & empty;
    Bitboard pushes = single & allowed;
    Bitboard dbl = pawn_push(Us, single & kThirdRank) & empty & allowed;
    if (NoisyOnly) {
      pushes &= kPromoRank;
      dbl = 0;
    }
    for (Bitboard t = caps | pushes; t;) {
      Square to = pop_lsb(t);
      if (to.bb() & kPromoRank) add_promotions(out, from, to, NoisyOnly);
      else out.push(Move(from, to));
    }
    if (dbl) out.push(Move(from, lsb(dbl)));
  }

  // En passant: the captured pawn may be the checker; verify by occupancy since a rank pin through
  // both pawns is invisible to the pin mask.
  const Square ep = pos.en_passant();
  if (!ep.is_none()) {
    const Square captured = pawn_step_back(Us, ep, 1);
    if ((target & (ep.bb() | captured.bb()))) {
      for (Bitboard b = pawn_attacks(Them, ep) & pawns; b;) {
        Square from = pop_lsb(b);
        Bitboard after = (occ ^ from.bb() ^ captured.bb()) | ep.bb();
        Bitboard sliders = (rook_attacks(ksq, after) & (pos.pieces(Them, PieceType::kRook) | pos.pieces(Them, PieceType::kQueen))) |
                           (bishop_attacks(ksq, after) & (pos.pieces(Them, PieceType::kBishop) | pos.pieces(Them, PieceType::kQueen)));
        if (!sliders) out.push(Move(from, ep, Move::Kind::kEnPassant));
      }
    }
  }

  // Castling: not out of check, path empty, king's path not attacked.
  if (!NoisyOnly && !checkers) {
    const std::uint8_t rights = pos.castling_rights();
    constexpr std::uint8_t kShort = Us == Color::kWhite ? kWhiteShort : kBlackShort;
    constexpr std::uint8_t kLong = Us == Color::kWhite ? kWhiteLong : kBlackLong;
    constexpr int kRank = Us == Color::kWhite ? 0 : 7;
    if ((rights & kShort) && !(occ & (Square(5, kRank).bb() | Square(6, kRank).bb())) &&
        !pos.is_attacked(Square(5, kRank), Them) && !pos.is_attacked(Square(6, kRank), Them))
      out.push(Move(ksq, Square(6, kRank), Move::Kind::kCastling));
    if ((rights & kLong) && !(occ & (Square(1, kRank).bb() | Square(2, kRank).bb() | Square(3, kRank).bb())) &&
        !pos.is_attacked(Square(3, kRank), Them) && !pos.is_attacked(Square(2, kRank), Them))
      out.push(Move(ksq, Square(2, kRank), Move::Kind::kCastling));
  }
}

}  // namespace

bool MoveList::contains(Move m) const { return std::find(begin(), end(), m) != end(); }

void generate_legal(const Position& pos, MoveList& out) {
  if (pos.side_to_move() == Color::kWhite) generate<Color::kWhite, false>(pos, out);
  else generate<Color::kBlack, false>(pos, out);
}

void generate_legal_noisy(const Position& pos, MoveList& out) {
  if (pos.side_to_move() == Color::kWhite) generate<Color::kWhite, true>(pos, out);
  else generate<Color::kBlack, true>(pos, out);
}

MoveList legal_moves(const Position& pos) {
  MoveList list;
  generate_legal(pos, list);
  return list;
}

bool has_legal_move(const Position& pos) { return !legal_moves(pos).empty(); }

bool is_legal(const Position& pos, Move m) { return legal_moves(pos).contains(m); }

GameStatus Position::status() const {
  if (!has_legal_move(*this)) return in_check() ? GameStatus::kCheckmate : GameStatus::kStalemate;
  if (has_insufficient_material()) return GameStatus::kInsufficientMaterial;
  if (halfmove_clock() >= 100) return GameStatus::kFiftyMoves;
  if (repetition_count() >= 2) return GameStatus::kRepetition;
  return GameStatus::kOngoing;
}

}  // namespace tbkit::chess
