#include "pgn/reader_san.h"

#include "chess/attacks.h"
#include "chess/movegen.h"
#include "chess/notation.h"
#include "pgn/lexer.h"

namespace tbkit::pgn {
namespace {

using chess::Bitboard;
using chess::Color;
using chess::Move;
using chess::PieceType;
using chess::Position;
using chess::Square;

bool is_file(char c) { return c >= 'a' && c <= 'h'; }
bool is_rank(char c) { return c >= '1' && c <= '8'; }

Move fail(SanFailure& f, const char* code, std::string_view text, const std::string& why) {
  f.reason_code = code;
  f.message = "move '" + printable_token(text) + "': " + why;
  return Move::none();
}

const char* piece_name(PieceType t) {
  static constexpr const char* kNames[] = {"pawn", "knight", "bishop", "rook", "queen", "king"};
  return kNames[chess::index_of(t)];
}

// Castling on the given side, if legal (rare enough to use the full generator).
Move find_castling(const Position& pos, bool kingside) {
  for (Move m : chess::legal_moves(pos))
    if (m.is_castling() && (m.to().file() == 6) == kingside) return m;
  return Move::none();
}

// Is moving the piece on `from` to `to` legal? (Not for castling or en passant.)
bool is_legal_simple(const Position& pos, Square from, Square to) {
  const Color us = pos.side_to_move();
  const Square ksq = pos.king_square(us);
  if (from == ksq) {
    const Bitboard occ = pos.pieces() ^ from.bb();
    return (pos.attackers_to(to, occ) & pos.pieces(~us)) == 0;
  }
  // Only a piece on a line with its king can be pinned; most are not, so the pin scan is rare.
  const Bitboard line = chess::line_bb(from, ksq);
  if (line != 0 && !(line & to.bb()) && (pos.blockers_for_king(us) & from.bb())) return false;
  const Bitboard checkers = pos.checkers();
  if (checkers == 0) return true;
  if (chess::more_than_one(checkers)) return false;
  const Square checker = chess::lsb(checkers);
  return ((checkers | chess::between_bb(ksq, checker)) & to.bb()) != 0;
}

}  // namespace

Move resolve_san(const Position& pos, std::string_view text, SanFailure& failure) {
  std::string_view s = text;
  while (!s.empty() && (s.back() == '+' || s.back() == '#' || s.back() == '!' || s.back() == '?')) s.remove_suffix(1);
  if (s.size() > 4 && s.substr(s.size() - 4) == "e.p.") s.remove_suffix(4);
  if (s.empty()) return fail(failure, "bad_san", text, "empty");
  if (s == "O-O" || s == "0-0" || s == "O-O-O" || s == "0-0-0") {
    const Move m = find_castling(pos, s.size() == 3);
    if (m.is_none()) return fail(failure, "illegal_move", text, "castling is not legal here");
    return m;
  }

  // Promotion suffix: =Q, (Q), or a bare piece letter after a last-rank square (e8Q, e7e8q).
  PieceType promo = PieceType::kNone;
  if (s.size() >= 4 && s.back() == ')' && s[s.size() - 3] == '(') {
    promo = chess::promotion_from_letter(s[s.size() - 2]);
    if (promo == PieceType::kNone) return fail(failure, "bad_san", text, "bad promotion piece");
    s.remove_suffix(3);
  } else if (s.size() >= 3 && s[s.size() - 2] == '=') {
    promo = chess::promotion_from_letter(s.back());
    if (promo == PieceType::kNone) return fail(failure, "bad_san", text, "bad promotion piece");
    s.remove_suffix(2);
  } else if (s.size() >= 3 && (s[s.size() - 2] == '8' || s[s.size() - 2] == '1') && !is_rank(s.back()) &&
             chess::promotion_from_letter(s.back()) != PieceType::kNone) {
    promo = chess::promotion_from_letter(s.back());
    s.remove_suffix(1);
  }

  PieceType type = PieceType::kPawn;
  bool explicit_piece = false;
  if (!s.empty()) {
    if (const PieceType t = chess::piece_type_from_letter(s.front()); t != PieceType::kNone) {
      type = t;
      explicit_piece = true;
      s.remove_prefix(1);
    }
  }
  char rest[4];
  std::size_t n = 0;
  for (char c : s) {
    if (c == 'x' || c == ':' || c == '-') continue;
    if (n == 4) return fail(failure, "bad_san", text, "too long");
    rest[n++] = c;
  }
  if (n < 2) return fail(failure, "bad_san", text, "expected a destination square");
  if (!is_file(rest[n - 2]) || !is_rank(rest[n - 1])) return fail(failure, "bad_san", text, "bad destination square");
  const Square to(rest[n - 2] - 'a', rest[n - 1] - '1');
  int from_file = -1, from_rank = -1;
  for (std::size_t i = 0; i + 2 < n; ++i) {
    if (is_file(rest[i]) && from_file < 0) from_file = rest[i] - 'a';
    else if (is_rank(rest[i]) && from_rank < 0) from_rank = rest[i] - '1';
    else return fail(failure, "bad_san", text, "bad disambiguation");
  }
  if (promo != PieceType::kNone && explicit_piece && type != PieceType::kPawn)
    return fail(failure, "bad_san", text, "only pawns promote");

  const Color us = pos.side_to_move();
  const Bitboard occ = pos.pieces();
  // UCI and long algebraic without a piece letter (e1g1, g1f3): the piece is whatever stands there.
  if (!explicit_piece && from_file >= 0 && from_rank >= 0) {
    const chess::Piece p = pos.piece_on(Square(from_file, from_rank));
    if (!p.is_none() && p.color() == us) type = p.type();
  }
  // Castling written as a king move: Kg1, e1g1, or king takes own rook (e1h1, Chess960 style).
  if (type == PieceType::kKing) {
    const Square ksq = pos.king_square(us);
    const bool from_ok = (from_file < 0 || from_file == ksq.file()) && (from_rank < 0 || from_rank == ksq.rank());
    const bool onto_own_rook = pos.piece_on(to) == chess::Piece(us, PieceType::kRook);
    if (from_ok && to.rank() == ksq.rank() &&
        (onto_own_rook || (ksq.file() == 4 && (to.file() == 6 || to.file() == 2)))) {
      const Move m = find_castling(pos, to.file() > ksq.file());
      if (!m.is_none()) return m;
      return fail(failure, "illegal_move", text, "castling is not legal here");
    }
  }
  if (promo != PieceType::kNone && type != PieceType::kPawn) return fail(failure, "bad_san", text, "only pawns promote");
  if (!pos.piece_on(to).is_none() && pos.piece_on(to).color() == us)
    return fail(failure, "illegal_move", text, "own piece on " + to.name());

  Bitboard from_bb = 0;
  bool en_passant = false;
  const Bitboard ours = pos.pieces(us, type);
  switch (type) {
    case PieceType::kPawn: {
      const bool capture = !pos.piece_on(to).is_none() || to == pos.en_passant();
      if (capture) {
        from_bb = chess::pawn_attacks(~us, to) & ours;
        en_passant = pos.piece_on(to).is_none();
      } else {
        const int back = us == Color::kWhite ? -8 : 8;
        const Square one(to.index() + back >= 0 && to.index() + back < 64 ? to.index() + back : 64);
        if (!one.is_none()) {
          if (ours & one.bb()) {
            from_bb = one.bb();
          } else if (pos.piece_on(one).is_none() && to.relative_rank(us) == 3) {
            from_bb = Square(one.index() + back).bb() & ours;
          }
        }
      }
      break;
    }
    case PieceType::kKnight: from_bb = chess::knight_attacks(to) & ours; break;
    case PieceType::kBishop: from_bb = chess::bishop_attacks(to, occ) & ours; break;
    case PieceType::kRook: from_bb = chess::rook_attacks(to, occ) & ours; break;
    case PieceType::kQueen: from_bb = chess::queen_attacks(to, occ) & ours; break;
    case PieceType::kKing: from_bb = chess::king_attacks(to) & ours; break;
    default: break;
  }
  if (from_file >= 0) from_bb &= chess::file_bb(from_file);
  if (from_rank >= 0) from_bb &= chess::rank_bb(from_rank);

  Move found = Move::none();
  int matches = 0;
  while (from_bb) {
    const Square from = chess::pop_lsb(from_bb);
    Move m;
    if (en_passant) {
      m = Move(from, to, Move::Kind::kEnPassant);
      if (!chess::is_legal(pos, m)) continue;
    } else {
      if (!is_legal_simple(pos, from, to)) continue;
      m = Move(from, to);
    }
    ++matches;
    found = m;
  }
  if (matches > 1) return fail(failure, "ambiguous_move", text, "ambiguous: more than one " + std::string(piece_name(type)) +
                                                                   " can move to " + to.name());
  if (matches == 0) return fail(failure, "illegal_move", text, std::string("no ") + piece_name(type) + " can move to " + to.name());
  if (type == PieceType::kPawn && to.relative_rank(us) == 7) {
    if (promo == PieceType::kNone) return fail(failure, "missing_promotion", text, "a pawn reaching the last rank must name its promotion piece");
    return Move(found.from(), to, Move::Kind::kPromotion, promo);
  }
  if (promo != PieceType::kNone) return fail(failure, "bad_san", text, "promotion to a square that is not on the last rank");
  return found;
}

}  // namespace tbkit::pgn
