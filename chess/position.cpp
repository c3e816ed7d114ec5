#include "chess/position.h"

#include <cassert>

#include "chess/zobrist.h"

namespace tbkit::chess {
namespace {

// Castling rights that survive a move touching each square.
constexpr std::array<std::uint8_t, 64> make_castling_masks() {
  std::array<std::uint8_t, 64> m{};
  for (auto& v : m) v = 0xF;
  m[0] = std::uint8_t(0xF & ~kWhiteLong);
  m[4] = std::uint8_t(0xF & ~(kWhiteShort | kWhiteLong));
  m[7] = std::uint8_t(0xF & ~kWhiteShort);
  m[56] = std::uint8_t(0xF & ~kBlackLong);
  m[60] = std::uint8_t(0xF & ~(kBlackShort | kBlackLong));
  m[63] = std::uint8_t(0xF & ~kBlackShort);
  return m;
}
constexpr std::array<std::uint8_t, 64> kCastlingMask = make_castling_masks();

std::uint64_t castling_keys(std::uint8_t rights) {
  std::uint64_t k = 0;
  for (int bit = 0; bit < 4; ++bit)
    if (rights & (1U << bit)) k ^= zobrist::castling_key(bit);
  return k;
}

// Polyglot's rule: the en-passant file counts only if a pawn of the side to move could capture.
bool en_passant_capturable(const std::array<Piece, 64>& board, Color side, Square ep) {
  if (ep.is_none()) return false;
  Bitboard attackers = pawn_attacks(~side, ep);
  Piece own_pawn(side, PieceType::kPawn);
  while (attackers) {
    if (board[pop_lsb(attackers).index()] == own_pawn) return true;
  }
  return false;
}

}  // namespace

Position::Position() {
  PositionSetup s;
  const PieceType back[8] = {PieceType::kRook, PieceType::kKnight, PieceType::kBishop, PieceType::kQueen,
                             PieceType::kKing, PieceType::kBishop, PieceType::kKnight, PieceType::kRook};
  s.board.fill(Piece::none());
  for (int f = 0; f < 8; ++f) {
    s.board[Square(f, 0).index()] = Piece(Color::kWhite, back[f]);
    s.board[Square(f, 1).index()] = Piece(Color::kWhite, PieceType::kPawn);
    s.board[Square(f, 6).index()] = Piece(Color::kBlack, PieceType::kPawn);
    s.board[Square(f, 7).index()] = Piece(Color::kBlack, back[f]);
  }
  s.castling = 0xF;
  *this = from_setup(s).value();
}

Result<Position> Position::from_setup(const PositionSetup& setup) {
  auto fail = [](std::string field, std::string msg) {
    return make_error(ErrorCode::kIllegal, field + ": " + msg);
  };
  Position p{Uninitialized{}};
  p.board_.fill(Piece::none());
  p.by_type_.fill(0);
  p.by_color_.fill(0);
  int kings[2] = {0, 0}, pawns[2] = {0, 0}, men[2] = {0, 0};
  for (int i = 0; i < 64; ++i) {
    Piece pc = setup.board[i];
    if (pc.is_none()) continue;
    if (pc.code() > 11) return fail("board", "invalid piece code");
    int c = index_of(pc.color());
    ++men[c];
    if (pc.type() == PieceType::kKing) ++kings[c];
    if (pc.type() == PieceType::kPawn) {
      ++pawns[c];
      if (Square(i).rank() == 0 || Square(i).rank() == 7)
        return fail("board", "pawn on " + Square(i).name() + " (pawns cannot stand on rank 1 or 8)");
    }
    p.put_piece(pc, Square(i));
  }
  const char* names[2] = {"white", "black"};
  for (int c = 0; c < 2; ++c) {
    if (kings[c] == 0) return fail("board", std::string("missing ") + names[c] + " king");
    if (kings[c] > 1) return fail("board", std::to_string(kings[c]) + " " + names[c] + " kings (exactly one allowed)");
    if (pawns[c] > 8) return fail("board", std::to_string(pawns[c]) + " " + names[c] + " pawns (at most 8)");
    if (men[c] > 16) return fail("board", std::to_string(men[c]) + " " + names[c] + " men (at most 16)");
  }
  p.side_ = setup.side;
  if (setup.halfmove < 0 || setup.halfmove > 65535) return fail("halfmove clock", "out of range");
  if (setup.fullmove < 1 || setup.fullmove > 1000000) return fail("fullmove number", "out of range");
  p.fullmove_ = setup.fullmove;

  Color them = ~p.side_;
  if (p.is_attacked(p.king_square(them), p.side_))
    return fail("side to move", std::string("the side not to move (") + names[index_of(them)] + ") is in check");

  struct CastleNeed { std::uint8_t bit; char letter; int king; int rook; Color c; };
  const CastleNeed needs[4] = {{kWhiteShort, 'K', 4, 7, Color::kWhite}, {kWhiteLong, 'Q', 4, 0, Color::kWhite},
                               {kBlackShort, 'k', 60, 63, Color::kBlack}, {kBlackLong, 'q', 60, 56, Color::kBlack}};
  if (setup.castling & ~0xF) return fail("castling", "invalid rights bits");
  for (const auto& n : needs) {
    if (!(setup.castling & n.bit)) continue;
    if (p.board_[n.king] != Piece(n.c, PieceType::kKing))
      return fail("castling", std::string("right '") + n.letter + "' but the king is not on " + Square(n.king).name());
    if (p.board_[n.rook] != Piece(n.c, PieceType::kRook))
      return fail("castling", std::string("right '") + n.letter + "' but no rook on " + Square(n.rook).name());
  }

  Square ep = setup.en_passant;
  if (!ep.is_none()) {
    const std::string where = "en passant '" + ep.name() + "'";
    if (ep.relative_rank(p.side_) != 5)
      return fail("en passant", where + " is not on the " + (p.side_ == Color::kWhite ? "6th" : "3rd") + " rank");
    Square pushed = p.side_ == Color::kWhite ? Square(ep.index() - 8) : Square(ep.index() + 8);
    Square origin = p.side_ == Color::kWhite ? Square(ep.index() + 8) : Square(ep.index() - 8);
    if (p.board_[pushed.index()] != Piece(them, PieceType::kPawn))
      return fail("en passant", where + " has no pushed pawn on " + pushed.name());
    if (!p.board_[ep.index()].is_none() || !p.board_[origin.index()].is_none())
      return fail("en passant", where + " but " + ep.name() + " or " + origin.name() + " is occupied");
    if (!en_passant_capturable(p.board_, p.side_, ep)) ep = Square::none();
  }

  StateInfo s;
  s.castling = setup.castling;
  s.en_passant = ep;
  s.halfmove = std::uint16_t(setup.halfmove);
  p.states_.clear();
  p.states_.reserve(256);
  p.states_.push_back(s);
  p.st().checkers = p.compute_checkers();
  p.st().key = p.compute_key();
  return p;
}

PositionSetup Position::setup() const {
  PositionSetup s;
  s.board = board_;
  s.side = side_;
  s.castling = st().castling;
  s.en_passant = st().en_passant;
  s.halfmove = st().halfmove;
  s.fullmove = fullmove_;
  return s;
}

void Position::put_piece(Piece p, Square s) {
  board_[s.index()] = p;
  by_type_[index_of(p.type())] |= s.bb();
  by_color_[index_of(p.color())] |= s.bb();
}

void Position::remove_piece(Square s) {
  Piece p = board_[s.index()];
  by_type_[index_of(p.type())] ^= s.bb();
  by_color_[index_of(p.color())] ^= s.bb();
  board_[s.index()] = Piece::none();
}

void Position::move_piece(Square from, Square to) {
  Piece p = board_[from.index()];
  Bitboard ft = from.bb() | to.bb();
  by_type_[index_of(p.type())] ^= ft;
  by_color_[index_of(p.color())] ^= ft;
  board_[from.index()] = Piece::none();
  board_[to.index()] = p;
}

Bitboard Position::attackers_to(Square s, Bitboard occ) const {
  return (pawn_attacks(Color::kBlack, s) & pieces(Color::kWhite, PieceType::kPawn)) |
         (pawn_attacks(Color::kWhite, s) & pieces(Color::kBlack, PieceType::kPawn)) |
         (knight_attacks(s) & pieces(PieceType::kKnight)) |
         (bishop_attacks(s, occ) & (pieces(PieceType::kBishop) | pieces(PieceType::kQueen))) |
         (rook_attacks(s, occ) & (pieces(PieceType::kRook) | pieces(PieceType::kQueen))) |
         (king_attacks(s) & pieces(PieceType::kKing));
}

Bitboard Position::compute_checkers() const {
  return attackers_to(king_square(side_), pieces()) & pieces(~side_);
}

Bitboard Position::blockers_for_king(Color c) const {
  Square ksq = king_square(c);
  Bitboard occ = pieces();
  Bitboard snipers = ((rook_attacks(ksq, 0) & (pieces(PieceType::kRook) | pieces(PieceType::kQueen))) |
                      (bishop_attacks(ksq, 0) & (pieces(PieceType::kBishop) | pieces(PieceType::kQueen)))) &
                     pieces(~c);
  Bitboard blockers = 0;
  while (snipers) {
    Bitboard b = between_bb(ksq, pop_lsb(snipers)) & occ;
    if (b && !more_than_one(b)) blockers |= b;
  }
  return blockers;
}

std::uint64_t Position::compute_key() const {
  std::uint64_t k = 0;
  for (Bitboard b = pieces(); b;) {
    Square s = pop_lsb(b);
    k ^= zobrist::piece_key(board_[s.index()], s);
  }
  k ^= castling_keys(st().castling);
  if (!st().en_passant.is_none()) k ^= zobrist::en_passant_key(st().en_passant.file());
  if (side_ == Color::kWhite) k ^= zobrist::white_to_move_key();
  return k;
}

void Position::do_move(Move m) {
  states_.push_back(states_.back());
  StateInfo& s = st();
  const Color us = side_, them = ~us;
  const Square from = m.from(), to = m.to();
  const Piece pc = board_[from.index()];
  assert(!pc.is_none() && pc.color() == us);
  std::uint64_t k = s.key ^ zobrist::white_to_move_key();
  if (!s.en_passant.is_none()) {
    k ^= zobrist::en_passant_key(s.en_passant.file());
    s.en_passant = Square::none();
  }
  s.captured = Piece::none();
  // Saturate: FEN allows a clock of 65535, and wrapping to 0 would undo a fifty-move draw.
  if (s.halfmove < 0xFFFF) ++s.halfmove;

  if (m.is_castling()) {
    const bool kingside = to.file() == 6;
    const Square rook_from(kingside ? 7 : 0, from.rank());
    const Square rook_to(kingside ? 5 : 3, from.rank());
    const Piece rook = board_[rook_from.index()];
    move_piece(from, to);
    move_piece(rook_from, rook_to);
    k ^= zobrist::piece_key(pc, from) ^ zobrist::piece_key(pc, to) ^ zobrist::piece_key(rook, rook_from) ^
         zobrist::piece_key(rook, rook_to);
  } else {
    Square cap_sq = to;
    if (m.is_en_passant()) cap_sq = us == Color::kWhite ? Square(to.index() - 8) : Square(to.index() + 8);
    const Piece captured = board_[cap_sq.index()];
    if (!captured.is_none()) {
      assert(captured.type() != PieceType::kKing);
      remove_piece(cap_sq);
      k ^= zobrist::piece_key(captured, cap_sq);
      s.captured = captured;
      s.halfmove = 0;
    }
    move_piece(from, to);
    k ^= zobrist::piece_key(pc, from) ^ zobrist::piece_key(pc, to);
    if (pc.type() == PieceType::kPawn) {
      s.halfmove = 0;
      if ((from.index() ^ to.index()) == 16) {
        Square mid((from.index() + to.index()) / 2);
        if (pawn_attacks(us, mid) & pieces(them, PieceType::kPawn)) {
          s.en_passant = mid;
          k ^= zobrist::en_passant_key(mid.file());
        }
      } else if (m.is_promotion()) {
        const Piece promoted(us, m.promotion());
        remove_piece(to);
        put_piece(promoted, to);
        k ^= zobrist::piece_key(pc, to) ^ zobrist::piece_key(promoted, to);
      }
    }
  }
  const std::uint8_t rights = s.castling & kCastlingMask[from.index()] & kCastlingMask[to.index()];
  if (rights != s.castling) {
    k ^= castling_keys(s.castling) ^ castling_keys(rights);
    s.castling = rights;
  }
  if (us == Color::kBlack) ++fullmove_;
  side_ = them;
  s.key = k;
  s.checkers = attackers_to(king_square(them), pieces()) & pieces(us);
}

void Position::undo_move(Move m) {
  const Color us = ~side_;
  const Square from = m.from(), to = m.to();
  const Piece captured = st().captured;
  side_ = us;
  if (us == Color::kBlack) --fullmove_;
  if (m.is_castling()) {
    const bool kingside = to.file() == 6;
    move_piece(to, from);
    move_piece(Square(kingside ? 5 : 3, from.rank()), Square(kingside ? 7 : 0, from.rank()));
  } else {
    if (m.is_promotion()) {
      remove_piece(to);
      put_piece(Piece(us, PieceType::kPawn), to);
    }
    move_piece(to, from);
    if (!captured.is_none()) {
      Square cap_sq = to;
      if (m.is_en_passant()) cap_sq = us == Color::kWhite ? Square(to.index() - 8) : Square(to.index() + 8);
      put_piece(captured, cap_sq);
    }
  }
  states_.pop_back();
}

void Position::do_null_move() {
  assert(!in_check());
  states_.push_back(states_.back());
  StateInfo& s = st();
  std::uint64_t k = s.key ^ zobrist::white_to_move_key();
  if (!s.en_passant.is_none()) {
    k ^= zobrist::en_passant_key(s.en_passant.file());
    s.en_passant = Square::none();
  }
  s.key = k;
  s.captured = Piece::none();
  if (s.halfmove < 0xFFFF) ++s.halfmove;
  s.checkers = 0;
  side_ = ~side_;
}

void Position::undo_null_move() {
  side_ = ~side_;
  states_.pop_back();
}

bool Position::gives_check(Move m) const {
  Position copy = *this;
  copy.do_move(m);
  return copy.in_check();
}

int Position::repetition_count() const {
  const int n = int(states_.size()) - 1;
  const int window = std::min<int>(st().halfmove, n);
  int count = 0;
  for (int back = 2; back <= window; back += 2)
    if (states_[n - back].key == st().key) ++count;
  return count;
}

bool Position::has_insufficient_material() const {
  if (pieces(PieceType::kPawn) | pieces(PieceType::kRook) | pieces(PieceType::kQueen)) return false;
  const Bitboard minors = pieces(PieceType::kKnight) | pieces(PieceType::kBishop);
  if (!more_than_one(minors)) return true;
  // Only bishops, all on one colour complex: no mate is possible.
  if (pieces(PieceType::kKnight)) return false;
  constexpr Bitboard kDark = 0xAA55AA55AA55AA55ULL;
  const Bitboard bishops = pieces(PieceType::kBishop);
  return (bishops & kDark) == 0 || (bishops & ~kDark) == 0;
}

bool operator==(const Position& a, const Position& b) {
  return a.board_ == b.board_ && a.side_ == b.side_ && a.st().castling == b.st().castling &&
         a.st().en_passant == b.st().en_passant && a.st().halfmove == b.st().halfmove && a.fullmove_ == b.fullmove_ &&
         a.st().key == b.st().key;
}

void Position::clear_history() {
  StateInfo s = st();
  states_.clear();
  states_.push_back(s);
}

const char* to_string(GameStatus s) {
  switch (s) {
    case GameStatus::kOngoing: return "ongoing";
    case GameStatus::kCheckmate: return "checkmate";
    case GameStatus::kStalemate: return "stalemate";
    case GameStatus::kInsufficientMaterial: return "draw by insufficient material";
    case GameStatus::kFiftyMoves: return "draw by the fifty-move rule";
    case GameStatus::kRepetition: return "draw by threefold repetition";
  }
  return "?";
}

}  // namespace tbkit::chess
