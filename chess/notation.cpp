#include "chess/notation.h"

#include <cctype>

#include "chess/movegen.h"

namespace tbkit::chess {
namespace {

Error malformed(std::string_view text, const std::string& why) {
  return make_error(ErrorCode::kInvalidArgument, "move '" + std::string(text) + "': " + why);
}
Error illegal(std::string_view text, const std::string& why) {
  return make_error(ErrorCode::kIllegal, "move '" + std::string(text) + "': " + why);
}

const char* piece_name(PieceType t) {
  static constexpr const char* kNames[] = {"pawn", "knight", "bishop", "rook", "queen", "king"};
  return kNames[index_of(t)];
}

bool is_file(char c) { return c >= 'a' && c <= 'h'; }
bool is_rank(char c) { return c >= '1' && c <= '8'; }

}  // namespace

PieceType piece_type_from_letter(char c) {
  switch (c) {
    case 'P': return PieceType::kPawn;
    case 'N': return PieceType::kKnight;
    case 'B': return PieceType::kBishop;
    case 'R': return PieceType::kRook;
    case 'Q': return PieceType::kQueen;
    case 'K': return PieceType::kKing;
    default: return PieceType::kNone;
  }
}

PieceType promotion_from_letter(char c) {
  PieceType t = piece_type_from_letter(char(std::toupper(static_cast<unsigned char>(c))));
  return (t == PieceType::kKnight || t == PieceType::kBishop || t == PieceType::kRook || t == PieceType::kQueen)
             ? t
             : PieceType::kNone;
}

std::string to_uci(Move m) {
  if (m.is_none()) return "0000";
  std::string s = m.from().name() + m.to().name();
  if (m.is_promotion()) s += "pnbrqk"[index_of(m.promotion())];
  return s;
}

Result<Move> parse_uci(const Position& pos, std::string_view text) {
  if (text.size() != 4 && text.size() != 5) return malformed(text, "UCI moves have 4 or 5 characters");
  if (!is_file(text[0]) || !is_rank(text[1]) || !is_file(text[2]) || !is_rank(text[3]))
    return malformed(text, "expected two squares like e2e4");
  const Square from(text[0] - 'a', text[1] - '1');
  Square to(text[2] - 'a', text[3] - '1');
  PieceType promo = PieceType::kNone;
  if (text.size() == 5) {
    promo = promotion_from_letter(text[4]);
    if (promo == PieceType::kNone) return malformed(text, "bad promotion piece '" + std::string(1, text[4]) + "'");
  }
  // King-takes-rook castling (Polyglot, Chess960 GUIs) names the rook's square; it can only mean castling.
  const Piece mover = pos.piece_on(from);
  const Piece target = pos.piece_on(to);
  const bool takes_own_rook = mover.type() == PieceType::kKing && target.type() == PieceType::kRook &&
                              target.color() == mover.color() && to.rank() == from.rank() &&
                              (to.file() == 0 || to.file() == 7);
  if (takes_own_rook) to = Square(to.file() == 7 ? 6 : 2, from.rank());
  for (Move m : legal_moves(pos)) {
    if (takes_own_rook && !m.is_castling()) continue;
    if (m.from() == from && m.to() == to && m.promotion() == promo) return m;
  }
  return illegal(text, "not a legal move in this position");
}

std::string to_san(const Position& pos, Move m) {
  std::string s;
  if (m.is_castling()) {
    s = m.to().file() == 6 ? "O-O" : "O-O-O";
  } else {
    const PieceType t = pos.moved_piece(m).type();
    const bool capture = pos.is_capture(m);
    if (t == PieceType::kPawn) {
      if (capture) s += char('a' + m.from().file());
    } else {
      s += "PNBRQK"[index_of(t)];
      bool clash = false, same_file = false, same_rank = false;
      for (Move o : legal_moves(pos)) {
        if (o == m || o.to() != m.to() || pos.moved_piece(o).type() != t) continue;
        clash = true;
        same_file |= o.from().file() == m.from().file();
        same_rank |= o.from().rank() == m.from().rank();
      }
      if (clash) {
        if (!same_file) s += char('a' + m.from().file());
        else if (!same_rank) s += char('1' + m.from().rank());
        else s += m.from().name();
      }
    }
    if (capture) s += 'x';
    s += m.to().name();
    if (m.is_promotion()) {
      s += '=';
      s += "PNBRQK"[index_of(m.promotion())];
    }
  }
  Position after = pos;
  after.do_move(m);
  if (after.in_check()) s += has_legal_move(after) ? '+' : '#';
  return s;
}

Result<Move> parse_san(const Position& pos, std::string_view text) {
  std::string_view s = text;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  while (!s.empty() && (s.back() == '+' || s.back() == '#' || s.back() == '!' || s.back() == '?')) s.remove_suffix(1);
  if (s.size() > 4 && s.substr(s.size() - 4) == "e.p.") s.remove_suffix(4);
  // "exd6 e.p." puts a space before the suffix.
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  if (s.empty()) return malformed(text, "empty");

  if (s == "O-O" || s == "0-0" || s == "O-O-O" || s == "0-0-0") {
    const int file = s.size() == 3 ? 6 : 2;
    for (Move m : legal_moves(pos))
      if (m.is_castling() && m.to().file() == file) return m;
    return illegal(text, std::string("castling ") + (file == 6 ? "short" : "long") + " is not legal here");
  }

  PieceType promo = PieceType::kNone;
  if (s.size() >= 4 && s.back() == ')' && s[s.size() - 3] == '(') {
    promo = promotion_from_letter(s[s.size() - 2]);
    if (promo == PieceType::kNone) return malformed(text, "bad promotion piece");
    s.remove_suffix(3);
  } else if (s.size() >= 3 && s[s.size() - 2] == '=') {
    promo = promotion_from_letter(s.back());
    if (promo == PieceType::kNone) return malformed(text, "bad promotion piece");
    s.remove_suffix(2);
  } else if (s.size() >= 3 && (s[s.size() - 2] == '8' || s[s.size() - 2] == '1') && promotion_from_letter(s.back()) != PieceType::kNone &&
             !is_rank(s.back())) {
    promo = promotion_from_letter(s.back());
    s.remove_suffix(1);
  }

  // A capture mark or dash belongs before the destination square ("Qxh5", "e2-e4"), not after it.
  if (!s.empty() && (s.back() == 'x' || s.back() == ':' || s.back() == '-'))
    return malformed(text, std::string("'") + s.back() + "' after the destination square");
  PieceType type = PieceType::kPawn;
  if (PieceType t = piece_type_from_letter(s.front()); t != PieceType::kNone) {
    type = t;
    s.remove_prefix(1);
  }
  std::string rest;
  for (char c : s)
    if (c != 'x' && c != ':' && c != '-') rest += c;
  if (rest.size() < 2 || rest.size() > 4) return malformed(text, "expected a destination square");
  const char tf = rest[rest.size() - 2], tr = rest[rest.size() - 1];
  if (!is_file(tf) || !is_rank(tr)) return malformed(text, "bad destination square '" + rest.substr(rest.size() - 2) + "'");
  const Square to(tf - 'a', tr - '1');
  int from_file = -1, from_rank = -1;
  for (std::size_t i = 0; i + 2 < rest.size(); ++i) {
    const char c = rest[i];
    if (is_file(c) && from_file < 0) from_file = c - 'a';
    else if (is_rank(c) && from_rank < 0) from_rank = c - '1';
    else return malformed(text, "bad disambiguation '" + rest.substr(0, rest.size() - 2) + "'");
  }
  if (promo != PieceType::kNone && type != PieceType::kPawn) return malformed(text, "only pawns promote");

  Move found = Move::none();
  int matches = 0;
  std::string candidates;
  bool needs_promo = false;
  for (Move m : legal_moves(pos)) {
    // A king move written to the castling square (Kg1) names castling too.
    if (m.to() != to || pos.moved_piece(m).type() != type) continue;
    if (from_file >= 0 && m.from().file() != from_file) continue;
    if (from_rank >= 0 && m.from().rank() != from_rank) continue;
    if (m.is_promotion() && promo == PieceType::kNone) {
      needs_promo = true;
      continue;
    }
    if (m.promotion() != promo) continue;
    ++matches;
    found = m;
    if (!candidates.empty()) candidates += ", ";
    candidates += to_san(pos, m);
  }
  if (matches == 1) return found;
  if (matches > 1) return illegal(text, "ambiguous: could be " + candidates);
  if (needs_promo) return illegal(text, "a pawn reaching the last rank must name its promotion piece");
  return illegal(text, std::string("no ") + piece_name(type) + " can move to " + to.name());
}

}  // namespace tbkit::chess
